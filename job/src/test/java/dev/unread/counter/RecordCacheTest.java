package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import dev.unread.state.StateSchema;
import dev.unread.testing.CounterOnRocksDb;
import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordCache} in {@link UnreadCounterOperator} on RocksDB: what it keeps in memory reaches
 * the keyed state when a checkpoint is taken, when its user leaves the cache, and when too many
 * records wait; and a restore from that checkpoint counts on from there. The counter's rules with
 * the cache are {@link UnreadCounterModelTest}'s, which runs a third of its seeds with a cache that
 * writes back on nearly every event.
 */
class RecordCacheTest {

    private static final long BOB = 100;
    private static final long CHAT = 80001;

    @Test
    void aCheckpointHoldsWhatTheCacheKeptAndARestoreCountsOnFromIt() throws Exception {
        OperatorSubtaskState snapshot;
        try (var harness = CounterOnRocksDb.opened(new UnreadCounterOperator(0), null)) {
            for (long seq = 1; seq <= 3; seq++) {
                harness.processElement(ChatEvent.message(BOB, 1, CHAT, seq, seq), 0L);
            }
            // Kept in memory: the keyed state has not seen the messages yet.
            assertThat(conversation(harness, 1)).isNull();
            assertThat(inbox(harness, 1)).isNull();

            snapshot = harness.snapshot(1, 0L);
            assertThat(conversation(harness, 1).unreadCount).isEqualTo(3);
            assertThat(inbox(harness, 1).unreadSenders).isEqualTo(1);
        }
        try (var restored = CounterOnRocksDb.opened(new UnreadCounterOperator(0), snapshot)) {
            restored.processElement(ChatEvent.message(BOB, 1, CHAT, 4, 4), 0L);
            assertThat(restored.extractOutputValues())
                    .contains(UnreadCount.conversation(1, CHAT, 4));
        }
    }

    @Test
    void aUserWhoLeavesTheCacheIsWrittenBack() throws Exception {
        // Two records per user (inbox, conversation): four users fill it.
        try (var harness = CounterOnRocksDb.opened(cacheOf(8, 1000), null)) {
            for (long user = 1; user <= 5; user++) {
                harness.processElement(ChatEvent.message(BOB, user, CHAT, 1, 1), 0L);
            }
            assertThat(conversation(harness, 1).unreadCount).isEqualTo(1);
            assertThat(inbox(harness, 1).unreadSenders).isEqualTo(1);
            assertThat(conversation(harness, 2)).isNull();

            // The evicted user's records come back from the keyed state.
            harness.processElement(ChatEvent.message(BOB, 1, CHAT, 2, 2), 0L);
            assertThat(harness.extractOutputValues())
                    .contains(UnreadCount.conversation(1, CHAT, 2));
        }
    }

    @Test
    void tooManyRecordsWaitingWriteTheOldestBack() throws Exception {
        try (var harness = CounterOnRocksDb.opened(cacheOf(1000, 4), null)) {
            for (long user = 1; user <= 3; user++) {
                harness.processElement(ChatEvent.message(BOB, user, CHAT, 1, 1), 0L);
            }
            // The fifth record waiting wrote the oldest users' back until two were left.
            assertThat(conversation(harness, 1)).isNotNull();
            assertThat(conversation(harness, 2)).isNotNull();
            assertThat(conversation(harness, 3)).isNull();
        }
    }

    private static UnreadCounterOperator cacheOf(int records, int dirty) {
        return new UnreadCounterOperator(
                0, false, ThreadSets.DEFAULT_MAX_BARE_THREADS, records, dirty);
    }

    /** The user's record of the chat in the keyed state, not the cache. */
    private static ConversationState conversation(
            KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness, long user)
            throws Exception {
        return keyed(harness, user, StateSchema.CONVERSATIONS).get(CHAT);
    }

    private static InboxState inbox(
            KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness, long user)
            throws Exception {
        return keyed(harness, user, StateSchema.INBOX).value();
    }

    private static <S extends State> S keyed(
            KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness,
            long user,
            StateDescriptor<S, ?> descriptor)
            throws Exception {
        var backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(user);
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }
}
