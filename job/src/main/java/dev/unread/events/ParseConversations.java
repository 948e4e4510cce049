package dev.unread.events;

import dev.unread.contract.InputKind;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Turns raw {@code chat-conversations} records into {@link ConversationEvent}s; every record that
 * breaks the contract goes to {@link ParseEvents#DEAD_LETTERS}, as for the other topics, a
 * MESSAGE's {@code sentAt} bounded by its record's timestamp as theirs are.
 */
public class ParseConversations extends ProcessFunction<RawRecord, ConversationEvent> {

    private final long maxFutureSkewMs;
    private transient ConversationParser parser;

    public ParseConversations(long maxFutureSkewMs) {
        this.maxFutureSkewMs = maxFutureSkewMs;
    }

    @Override
    public void open(OpenContext openContext) {
        parser = new ConversationParser();
    }

    @Override
    public void processElement(RawRecord record, Context ctx, Collector<ConversationEvent> out) {
        try {
            ConversationEvent event = parser.parse(record.value);
            if (event.kind == ConversationEvent.Kind.MESSAGE) {
                ParseEvents.checkTime(
                        InputKind.GROUP_MESSAGE.time().wireName(),
                        event.sentAt,
                        record.timestamp,
                        maxFutureSkewMs);
            }
            out.collect(event);
        } catch (InvalidRecordException e) {
            ctx.output(ParseEvents.DEAD_LETTERS, new DeadLetter(record, e.getMessage()));
        }
    }
}
