package dev.unread.bench;

import dev.unread.ParsedTopics;
import dev.unread.UnreadJob;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The ceilings the pipeline is measured against ({@code unread bench}): the job's own sources and
 * parsers ({@link UnreadJob#parse}), the events keyed as the job keys them and then ended; what is
 * left is the cost of Kafka, parsing and Flink's network and checkpoints. Never run for real: they
 * write nothing.
 */
final class PassThroughJobs {

    /** The pass-through's discarding operator, whose input the bench counts. */
    static final String PASS_THROUGH_NAME = "discard";

    /** The stateful pass-through's operator, whose input the bench counts. */
    static final String STATEFUL_PASS_THROUGH_NAME = "touch state";

    /** Not in the contract's list of uids: a pass-through never makes a savepoint to keep. */
    private static final String PASS_THROUGH_UID = "pass-through-discard";

    private PassThroughJobs() {}

    /**
     * Adds {@code job}'s sources and parsers to {@code env}, the events keyed by user as the
     * counting operator's are and then discarded by {@link #PASS_THROUGH_NAME}.
     */
    static void passThrough(UnreadJob job, StreamExecutionEnvironment env) {
        build(job, env, false, PASS_THROUGH_NAME);
    }

    /**
     * The pass-through with the least keyed state any exact counter needs: one RocksDB read and one
     * write of the user's state per event ({@link #STATEFUL_PASS_THROUGH_NAME}). Between it and
     * {@link #passThrough} lies what keeping state at all costs; between the job and it, what the
     * job does with its state.
     */
    static void statefulPassThrough(UnreadJob job, StreamExecutionEnvironment env) {
        build(job, env, true, STATEFUL_PASS_THROUGH_NAME);
    }

    private static void build(
            UnreadJob job, StreamExecutionEnvironment env, boolean touchState, String name) {
        ParsedTopics in = job.parse(env);
        in.messageEvents()
                .union(in.readEvents())
                .keyBy(event -> event.userId, Types.LONG)
                .process(end(touchState))
                .returns(Types.VOID)
                .uid(PASS_THROUGH_UID)
                .name(name);
        in.conversationEvents()
                .keyBy(event -> event.conversationId, Types.LONG)
                .process(end(touchState))
                .returns(Types.VOID)
                .uid(PASS_THROUGH_UID + "-conversations")
                .name(name + " conversations");
    }

    private static <T> KeyedProcessFunction<Long, T, Void> end(boolean touchState) {
        return touchState ? new TouchState<>() : new Discard<>();
    }

    /** Takes events in, so that they are counted, and emits nothing. */
    private static final class Discard<T> extends KeyedProcessFunction<Long, T, Void> {
        @Override
        public void processElement(T event, Context context, Collector<Void> out) {}
    }

    /** Counts each key's events in keyed state: a read and a write per event, and nothing else. */
    private static final class TouchState<T> extends KeyedProcessFunction<Long, T, Void> {
        private transient ValueState<Long> events;

        @Override
        public void open(OpenContext openContext) {
            events = getRuntimeContext().getState(new ValueStateDescriptor<>("events", Types.LONG));
        }

        @Override
        public void processElement(T event, Context context, Collector<Void> out) throws Exception {
            Long seen = events.value();
            events.update(seen == null ? 1 : seen + 1);
        }
    }
}
