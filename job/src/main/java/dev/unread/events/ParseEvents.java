package dev.unread.events;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Turns raw Kafka records of one topic into {@link ChatEvent}s; every record that breaks the
 * contract goes to {@link #DEAD_LETTERS} instead, so input can never fail the job.
 *
 * <p>A {@code sentAt}, {@code readAt}, {@code setAt}, {@code markedAt} or {@code erasedAt} (which
 * would hold back every event of its user until then) more than {@code maxFutureSkewMs} after the
 * Kafka record's own timestamp is refused too: a time far in the future (or in microseconds) would
 * otherwise keep a sender counted after every inbox open, or silence a badge for good. The record's
 * timestamp, unlike the job's clock, is the same on every replay, so the decision is too. A record
 * without one (only the pre-0.10 message format had none) cannot be bounded and is refused.
 */
public class ParseEvents extends ProcessFunction<RawRecord, ChatEvent> {

    public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("dead-letters") {};

    /** Which of the two input topics this instance reads. */
    public enum Topic {
        MESSAGES,
        READS
    }

    private final Topic topic;
    private final long maxFutureSkewMs;
    private transient EventParser parser;

    public ParseEvents(Topic topic, long maxFutureSkewMs) {
        this.topic = topic;
        this.maxFutureSkewMs = maxFutureSkewMs;
    }

    @Override
    public void open(OpenContext openContext) {
        parser = new EventParser();
    }

    @Override
    public void processElement(RawRecord record, Context ctx, Collector<ChatEvent> out) {
        try {
            ChatEvent event =
                    topic == Topic.MESSAGES
                            ? parser.parseMessage(record.value)
                            : parser.parseRead(record.value);
            checkTime(event, record.timestamp);
            out.collect(event);
        } catch (InvalidRecordException e) {
            ctx.output(DEAD_LETTERS, new DeadLetter(record, e.getMessage()));
        }
    }

    private void checkTime(ChatEvent event, long recordTimestamp) throws InvalidRecordException {
        // Parsed from chat-messages or chat-reads, whose every kind has its time.
        String field = event.kind.input().time().wireName();
        checkTime(field, event.time, recordTimestamp, maxFutureSkewMs);
    }

    /**
     * Refuses {@code time} (the field {@code name}) when it lies more than {@code maxFutureSkewMs}
     * after the Kafka record's own {@code recordTimestamp}, or when the record has none.
     */
    static void checkTime(String name, long time, long recordTimestamp, long maxFutureSkewMs)
            throws InvalidRecordException {
        if (recordTimestamp < 0) {
            throw new InvalidRecordException(name + ": the record has no timestamp to bound it by");
        }
        // Written so that a skew up to Long.MAX_VALUE cannot overflow.
        if (time - recordTimestamp > maxFutureSkewMs) {
            throw new InvalidRecordException(
                    name
                            + ": "
                            + time
                            + " is more than "
                            + maxFutureSkewMs
                            + " ms after the record's timestamp "
                            + recordTimestamp);
        }
    }
}
