package dev.unread.events;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Turns raw {@code chat-conversations} records into {@link ConversationEvent}s; every record that
 * breaks the contract goes to {@link ParseEvents#DEAD_LETTERS}, as for the other topics.
 */
public class ParseConversations extends ProcessFunction<RawRecord, ConversationEvent> {

    private transient ConversationParser parser;

    @Override
    public void open(OpenContext openContext) {
        parser = new ConversationParser();
    }

    @Override
    public void processElement(RawRecord record, Context ctx, Collector<ConversationEvent> out) {
        try {
            out.collect(parser.parse(record.value));
        } catch (InvalidRecordException e) {
            ctx.output(ParseEvents.DEAD_LETTERS, new DeadLetter(record, e.getMessage()));
        }
    }
}
