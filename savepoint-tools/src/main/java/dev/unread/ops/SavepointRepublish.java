package dev.unread.ops;

import dev.unread.config.UnreadConfig;
import dev.unread.events.UnreadCount;
import dev.unread.sinks.RedisCounts;
import dev.unread.state.ConversationState;
import dev.unread.state.UnreadCounter;
import dev.unread.state.UnreadChunks;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

/**
 * {@code unread savepoint republish PATH}: writes every count a savepoint holds to Redis — each
 * badge (the size of the user's sender set) and each conversation's count (its unread seqs) — the
 * recovery after Redis lost its data. The counts go through the job's own Redis sink, so the keys,
 * the key prefix and the absolute SET/HSET are exactly the job's.
 *
 * <p>Run it while the job is stopped, on the savepoint the job is then restarted from: a running
 * job could change a count between the savepoint and the write, and the write would then be older
 * than the job's. Only counts above 0 are written; keys the savepoint does not hold are left as
 * they are.
 */
public final class SavepointRepublish {

    static final String WRITTEN = "counts-written";

    private SavepointRepublish() {}

    /** Writes the savepoint's counts to the Redis of {@code config}; returns how many. */
    public static long republish(String path, UnreadConfig config) throws Exception {
        CounterSavepoints.counterState(path);
        StreamExecutionEnvironment env = CounterSavepoints.batchEnvironment();
        SavepointReader.read(env, path, CounterSavepoints.stateBackend())
                .readKeyedState(CounterSavepoints.COUNTER, new CountsReader(),
                        Types.LONG, TypeInformation.of(UnreadCount.class))
                // The reader's source passes on a null for a user who has no count above 0.
                .filter(Objects::nonNull)
                .name("counts above 0")
                .sinkTo(new RedisCounts(config))
                .name("Redis counts");
        JobExecutionResult result = env.execute("unread savepoint republish");
        Long written = result.getAccumulatorResult(WRITTEN);
        return written == null ? 0 : written;
    }

    /** Each user's counts above 0, as the job emits them. */
    static final class CountsReader extends KeyedStateReaderFunction<Long, UnreadCount> {

        private transient MapState<Long, Long> senders;
        private transient MapState<Long, ConversationState> conversations;
        private transient LongCounter written;

        @Override
        public void open(OpenContext openContext) {
            senders = getRuntimeContext().getMapState(UnreadCounter.SENDERS);
            conversations = getRuntimeContext().getMapState(UnreadCounter.CONVERSATIONS);
            written = getRuntimeContext().getLongCounter(WRITTEN);
        }

        @Override
        public void readKey(Long userId, Context context, Collector<UnreadCount> out)
                throws Exception {
            long badge = 0;
            for (Long ignored : senders.keys()) {
                badge++;
            }
            if (badge > 0) {
                emit(UnreadCount.senders(userId, badge), out);
            }
            for (Map.Entry<Long, ConversationState> entry : conversations.entries()) {
                long unread = UnreadChunks.count(entry.getValue());
                if (unread > 0) {
                    emit(UnreadCount.conversation(userId, entry.getKey(), unread), out);
                }
            }
        }

        private void emit(UnreadCount count, Collector<UnreadCount> out) {
            written.add(1);
            out.collect(count);
        }
    }
}
