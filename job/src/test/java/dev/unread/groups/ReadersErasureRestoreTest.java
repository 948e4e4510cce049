package dev.unread.groups;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.counter.UnreadCounter;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.ParticipantNotices;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.UnreadCount;
import dev.unread.testing.CounterOnRocksDb;
import dev.unread.testing.EventStreams;
import dev.unread.testing.Oracle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;

/**
 * docs/contract.md, "Erasure": no score of an erased user stays in {@code chat:readers:{C}} for
 * what it read at or before the erasure, also after a restore. The counter and the readers stage
 * restore from one checkpoint; Redis keeps what the timeline after it wrote, and the replay takes
 * the two topics in another order. (DependencyOutageITCase, seed 627341, found such scores left
 * behind, in a conversation and in a group: an ALL_READ of the user's read a message taken after
 * the checkpoint, which scored it, and the replay took the erasure before that message.)
 */
class ReadersErasureRestoreTest {

    private static final long C = 5;
    private static final long U = 10;
    private static final long V = 9;
    private static final long T = EventStreams.T0;
    private static final long ERASED_AT = T + 10;

    /**
     * The seed's case: the message comes after the erasure this time, which met no conversation of
     * the user to remove a score from, while Redis holds the one the lost timeline gave it.
     */
    @Test
    void aScoreALostTimelineGaveAMessageAnAllReadReadGoesWhenTheErasureComesFirst()
            throws Exception {
        ChatEvent allRead = ChatEvent.allRead(U, T + 5);
        ChatEvent message = ChatEvent.message(V, U, C, 3, T + 1);
        ChatEvent erasure = ChatEvent.userErased(U, ERASED_AT);
        Map<String, Map<String, Double>> redis = new TreeMap<>();
        try (Pipeline lost = Pipeline.fresh(redis)) {
            lost.take(allRead);
            Pipeline.Checkpoint checkpoint = lost.checkpoint();
            lost.take(message);
            assertThat(redis).as("the lost timeline's score").isEqualTo(scores(U, 3));

            try (Pipeline replay = Pipeline.restored(checkpoint, redis)) {
                replay.take(erasure);
                replay.take(message);
            }
        }
        assertThat(redis)
                .isEqualTo(
                        Oracle.of(List.of(allRead, message, erasure), List.of()).redisReaders(""))
                .isEmpty();
    }

    /** The same with a read of the user's, all of the conversation lost. */
    @Test
    void aScoreALostTimelineGaveAReadGoesWhenTheErasureComesFirst() throws Exception {
        ChatEvent message = ChatEvent.message(V, U, C, 3, T + 1);
        ChatEvent read = ChatEvent.conversationRead(U, C, 3, T + 2);
        ChatEvent erasure = ChatEvent.userErased(U, ERASED_AT);
        Map<String, Map<String, Double>> redis = new TreeMap<>();
        try (Pipeline lost = Pipeline.fresh(redis)) {
            Pipeline.Checkpoint checkpoint = lost.checkpoint();
            lost.take(message);
            lost.take(read);
            assertThat(redis).as("the lost timeline's score").isEqualTo(scores(U, 3));

            try (Pipeline replay = Pipeline.restored(checkpoint, redis)) {
                replay.take(erasure);
                replay.take(message);
                replay.take(read);
            }
        }
        assertThat(redis)
                .isEqualTo(Oracle.of(List.of(message, read, erasure), List.of()).redisReaders(""))
                .isEmpty();
    }

    /** A covered event takes out no score the user earned after the erasure. */
    @Test
    void aCoveredEventLeavesAScoreAfterTheErasure() throws Exception {
        ChatEvent message = ChatEvent.message(V, U, C, 3, T + 1);
        ChatEvent erasure = ChatEvent.userErased(U, ERASED_AT);
        ChatEvent later = ChatEvent.conversationRead(U, C, 4, ERASED_AT + 1);
        ChatEvent covered = ChatEvent.conversationRead(U, C, 3, T + 2);
        Map<String, Map<String, Double>> redis = new TreeMap<>();
        try (Pipeline pipeline = Pipeline.fresh(redis)) {
            pipeline.take(message);
            pipeline.take(erasure);
            pipeline.take(later);
            pipeline.take(covered);
        }
        assertThat(redis)
                .isEqualTo(
                        Oracle.of(List.of(message, erasure, later, covered), List.of())
                                .redisReaders(""))
                .isEqualTo(scores(U, 4));
    }

    private static Map<String, Map<String, Double>> scores(long user, long cursor) {
        return Map.of(Oracle.READERS_KEY + C, Map.of(Long.toString(user), (double) cursor));
    }

    /**
     * The counter and the readers stage as the job wires them, one event at a time, everything each
     * emits taken at once, and the readers' output written to {@code redis} as the sink writes it:
     * ZADD GT, ZREM.
     */
    private static final class Pipeline implements AutoCloseable {
        private final KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> counter;
        private final KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate>
                readers;
        private final ParticipantNotices participants = new ParticipantNotices();
        private final Map<String, Map<String, Double>> redis;

        record Checkpoint(OperatorSubtaskState counter, OperatorSubtaskState readers) {}

        private Pipeline(
                KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> counter,
                KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> readers,
                Map<String, Map<String, Double>> redis) {
            this.counter = counter;
            this.readers = readers;
            this.redis = redis;
            participants.open(null);
        }

        static Pipeline fresh(Map<String, Map<String, Double>> redis) throws Exception {
            return restored(null, redis);
        }

        static Pipeline restored(Checkpoint checkpoint, Map<String, Map<String, Double>> redis)
                throws Exception {
            var counter = CounterOnRocksDb.harness();
            var readers =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            new KeyedProcessOperator<>(
                                    new ConversationReaders(
                                            ConversationReaders.DEFAULT_MAX_RECEIPT_PARTICIPANTS)),
                            (ReaderUpdate u) -> u.conversationId,
                            Types.LONG);
            readers.setStateBackend(new EmbeddedRocksDBStateBackend());
            if (checkpoint != null) {
                counter.initializeState(checkpoint.counter());
                readers.initializeState(checkpoint.readers());
            }
            counter.open();
            readers.open();
            return new Pipeline(counter, readers, redis);
        }

        Checkpoint checkpoint() throws Exception {
            return new Checkpoint(counter.snapshot(1, 1), readers.snapshot(1, 1));
        }

        void take(ChatEvent event) throws Exception {
            List<ReaderUpdate> toReaders = new ArrayList<>();
            participants.flatMap(event, new ListCollector<>(toReaders));
            counter.processElement(event, 0L);
            for (ConversationCursor cursor : drain(counter, UnreadCounter.CONVERSATION_CURSORS)) {
                toReaders.add(ReaderUpdate.cursor(cursor));
            }
            toReaders.addAll(drain(counter, UnreadCounter.KNOWN_READERS));
            for (ReaderUpdate update : toReaders) {
                readers.processElement(update, 0L);
            }
            for (ReaderUpdate out : readers.extractOutputValues()) {
                Map<String, Double> set =
                        redis.computeIfAbsent(
                                Oracle.READERS_KEY + out.conversationId, k -> new TreeMap<>());
                if (out.participant) {
                    set.merge(Long.toString(out.userId), (double) out.lastReadSeq, Math::max);
                } else {
                    set.remove(Long.toString(out.userId));
                }
            }
            redis.values().removeIf(Map::isEmpty);
            readers.getOutput().clear();
        }

        @SuppressWarnings("unchecked")
        private static <T> List<T> drain(
                KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness,
                OutputTag<T> tag) {
            List<T> values = new ArrayList<>();
            var side = harness.getSideOutput(tag);
            if (side != null) {
                side.forEach(o -> values.add(((StreamRecord<T>) o).getValue()));
                side.clear();
            }
            return values;
        }

        @Override
        public void close() throws Exception {
            counter.close();
            readers.close();
        }
    }
}
