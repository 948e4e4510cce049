package dev.unread.events;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Turns raw Kafka records of one topic into {@link ChatEvent}s; every record that breaks the
 * contract goes to {@link #DEAD_LETTERS} instead, so input can never fail the job.
 */
public class ParseEvents extends ProcessFunction<RawRecord, ChatEvent> {

    public static final OutputTag<DeadLetter> DEAD_LETTERS =
            new OutputTag<>("dead-letters") {};

    /** Which of the two input topics this instance reads. */
    public enum Topic {
        MESSAGES,
        READS
    }

    private final Topic topic;
    private transient EventParser parser;

    public ParseEvents(Topic topic) {
        this.topic = topic;
    }

    @Override
    public void open(OpenContext openContext) {
        parser = new EventParser();
    }

    @Override
    public void processElement(RawRecord record, Context ctx, Collector<ChatEvent> out) {
        try {
            out.collect(
                    topic == Topic.MESSAGES
                            ? parser.parseMessage(record.value)
                            : parser.parseRead(record.value));
        } catch (InvalidRecordException e) {
            ctx.output(DEAD_LETTERS, new DeadLetter(record, e.getMessage()));
        }
    }
}
