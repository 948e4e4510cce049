package dev.unread.ops;

import dev.unread.config.UnreadConfig;
import dev.unread.counter.ConversationView;
import dev.unread.counter.Projection;
import dev.unread.counter.Refresh;
import dev.unread.counter.Share;
import dev.unread.counter.ThreadView;
import dev.unread.events.ChannelWrite;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.UnreadCount;
import dev.unread.sinks.RedisChannels;
import dev.unread.sinks.RedisCounts;
import dev.unread.sinks.RedisReaders;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

/**
 * {@code unread savepoint republish PATH}: writes every count a savepoint holds to Redis — each
 * badge (the size of the user's sender set), each conversation's count and mention count (its
 * unread and mentioning seqs, 0 while the user has left the conversation, as the job shows them),
 * each conversation marked unread, each followed thread's unread replies and mentions (none of a
 * conversation the user has left), and each user's app-icon totals, summed afresh from the
 * conversations' shares, their threads' included — and each conversation's readers ({@code
 * chat:readers:{C}}), and each channel's index and its members' tracks, from the channel stage's
 * state ({@link ChannelSavepoints}): the recovery after Redis lost its data. All go through the
 * job's own Redis sinks, so the keys, the key prefix and the absolute SET/HSET, ZADD GT, SETRANGE
 * of whole blocks and the channels' transactions are exactly the job's.
 *
 * <p>Run it while the job is stopped, on the savepoint the job is then restarted from: a running
 * job could change a count between the savepoint and the write, and the write would then be older
 * than the job's. Only counts above 0 are written; keys the savepoint does not hold are left as
 * they are. Of a channel, every block of its bitmap is written whole, its sorted sets gain the seqs
 * the stage holds and lose none, each member's tracks are set (a field the stage no longer holds
 * stays), and its version rises as with every write of the job's: over an emptied Redis that is
 * exactly what the job had written.
 */
public final class SavepointRepublish {

    static final String WRITTEN = "counts-written";
    static final String READERS_WRITTEN = "reader-scores-written";

    private SavepointRepublish() {}

    /**
     * What a republish wrote.
     *
     * @param counts badges, conversation, mention and thread counts, marks and totals
     * @param readerScores members of {@code chat:readers:{C}} sorted sets
     * @param channelIndexes channels whose index was written
     * @param tracks members' track fields of channels and of their followed threads
     */
    public record Written(long counts, long readerScores, long channelIndexes, long tracks) {}

    /** Writes the savepoint's counts and readers to the Redis of {@code config}. */
    public static Written republish(String path, UnreadConfig config) throws Exception {
        CounterSavepoints.counterState(path);
        boolean hasReaders =
                CounterSavepoints.operatorState(path, CounterSavepoints.READERS).isPresent();
        boolean hasChannels =
                CounterSavepoints.operatorState(path, ChannelSavepoints.CHANNELS).isPresent();
        try (BatchJobs jobs = BatchJobs.start()) {
            return republish(jobs.environment(), path, config, hasReaders, hasChannels);
        }
    }

    private static Written republish(
            StreamExecutionEnvironment env,
            String path,
            UnreadConfig config,
            boolean hasReaders,
            boolean hasChannels)
            throws Exception {
        SavepointReader savepoint =
                SavepointReader.read(env, path, CounterSavepoints.stateBackend());
        savepoint
                .readKeyedState(
                        CounterSavepoints.COUNTER,
                        new CountsReader(),
                        Types.LONG,
                        TypeInformation.of(UnreadCount.class))
                // The reader's source passes on a null for a user who has no count above 0.
                .filter(Objects::nonNull)
                .name("counts above 0")
                .sinkTo(new RedisCounts(config))
                .name("Redis counts");
        // A savepoint of a build before groups holds no readers: there is nothing to write.
        if (hasReaders) {
            savepoint
                    .readKeyedState(
                            CounterSavepoints.READERS,
                            new ReadersReader(),
                            Types.LONG,
                            TypeInformation.of(ReaderUpdate.class))
                    // Not Objects::nonNull again: javac deserializes both references of one
                    // class as the first, with its cast to UnreadCount.
                    .filter(update -> update != null)
                    .name("reader scores above 0")
                    .sinkTo(new RedisReaders(config))
                    .name("Redis readers");
        }
        // A savepoint of a build before channels, or of a job that never saw one, holds none.
        if (hasChannels) {
            savepoint
                    .readKeyedState(
                            ChannelSavepoints.CHANNELS,
                            new ChannelSavepoints.WritesReader(),
                            Types.LONG,
                            TypeInformation.of(ChannelWrite.class))
                    .filter(ChannelSavepoints::isWrite)
                    .name("channel indexes and tracks")
                    .sinkTo(new RedisChannels(config))
                    .name("Redis channels");
        }
        JobExecutionResult result = env.execute("unread savepoint republish");
        return new Written(
                accumulated(result, WRITTEN),
                accumulated(result, READERS_WRITTEN),
                accumulated(result, ChannelSavepoints.INDEXES_WRITTEN),
                accumulated(result, ChannelSavepoints.TRACKS_WRITTEN));
    }

    private static long accumulated(JobExecutionResult result, String name) {
        Long value = result.getAccumulatorResult(name);
        return value == null ? 0 : value;
    }

    /**
     * Each participant's cursor in a conversation, the score ConversationReaders has written to
     * {@code chat:readers:{C}}: a participant who never read has no score, and a user known only by
     * a cursor (stored negated) is not a reader yet.
     */
    static final class ReadersReader extends KeyedStateReaderFunction<Long, ReaderUpdate> {

        private transient MapState<Long, Long> readers;
        private transient LongCounter written;

        @Override
        public void open(OpenContext openContext) {
            readers = getRuntimeContext().getMapState(StateSchema.READERS);
            written = getRuntimeContext().getLongCounter(READERS_WRITTEN);
        }

        @Override
        public void readKey(Long conversationId, Context context, Collector<ReaderUpdate> out)
                throws Exception {
            for (Map.Entry<Long, Long> reader : readers.entries()) {
                if (reader.getValue() > 0) {
                    written.add(1);
                    out.collect(
                            new ReaderUpdate(
                                    conversationId, reader.getKey(), reader.getValue(), true));
                }
            }
        }
    }

    /**
     * Each user's counts above 0, as the job shows them (hidden while the user has left), and the
     * totals summed from every conversation rather than read from the user's stored sums, which a
     * state of an earlier build does not have yet.
     */
    static final class CountsReader extends KeyedStateReaderFunction<Long, UnreadCount> {

        private transient MapState<Long, Long> senders;
        private transient MapState<Long, ConversationState> conversations;
        private transient MapState<Tuple2<Long, Long>, ThreadState> threads;
        private transient LongCounter written;

        @Override
        public void open(OpenContext openContext) {
            senders = getRuntimeContext().getMapState(StateSchema.SENDERS);
            conversations = getRuntimeContext().getMapState(StateSchema.CONVERSATIONS);
            threads = getRuntimeContext().getMapState(StateSchema.THREADS);
            written = getRuntimeContext().getLongCounter(WRITTEN);
        }

        @Override
        public void readKey(Long userId, Context context, Collector<UnreadCount> out)
                throws Exception {
            long badge = 0;
            for (Long ignored : senders.keys()) {
                badge++;
            }
            Collector<UnreadCount> counted = counter(out);
            Projection.senders(userId, 0, badge, false, counted);
            Share totals = Share.NONE;
            for (Map.Entry<Long, ConversationState> entry : conversations.entries()) {
                ConversationView view = ConversationView.of(entry.getValue());
                Projection.conversation(
                        userId, entry.getKey(), ConversationView.NONE, view, Refresh.NONE, counted);
                totals = totals.plus(view.share());
            }
            for (Map.Entry<Tuple2<Long, Long>, ThreadState> entry : threads.entries()) {
                long conversationId = entry.getKey().f0;
                Projection.thread(
                        userId,
                        conversationId,
                        entry.getKey().f1,
                        ThreadView.NONE,
                        ThreadView.of(entry.getValue(), conversations.get(conversationId)),
                        Refresh.NONE,
                        counted);
            }
            Projection.totals(userId, Share.NONE, totals, false, counted);
        }

        /** {@code out}, counting what goes through it. */
        private Collector<UnreadCount> counter(Collector<UnreadCount> out) {
            return new Collector<>() {
                @Override
                public void collect(UnreadCount count) {
                    written.add(1);
                    out.collect(count);
                }

                @Override
                public void close() {
                    out.close();
                }
            };
        }
    }
}
