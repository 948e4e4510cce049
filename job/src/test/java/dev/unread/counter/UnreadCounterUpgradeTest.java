package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import dev.unread.events.ChatEvent;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.UnreadCount;
import dev.unread.seqs.UnreadSeqs;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.testing.CounterOnRocksDb;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * Issue 22, item 11: a restore from state an older version wrote brings that version's missing
 * output (totals, readers) before any event, once; a restore from this version's state does not.
 */
class UnreadCounterUpgradeTest {

    private static final long ALICE = 10086;
    private static final long CHAT = 80001;
    private static final long GROUP = 80002;

    /** State as an older version left it: two conversations, totals never kept. */
    private static OperatorSubtaskState olderState() throws Exception {
        try (var older =
                CounterOnRocksDb.opened(new KeyedProcessOperator<>(new UnreadCounter()), null)) {
            var backend = older.getOperator().getKeyedStateBackend();
            backend.setCurrentKey(ALICE);
            MapState<Long, ConversationState> conversations =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            StateSchema.CONVERSATIONS);
            ConversationState chat = new ConversationState();
            chat.lastReadSeq = 3;
            UnreadSeqs seqs = UnreadSeqs.of(UnreadSeqs.EMPTY);
            seqs.add(5);
            seqs.add(6);
            chat.unreadSeqs = seqs.toBytes();
            conversations.put(CHAT, chat);
            // A group Alice left: not a participant, so not handed to the readers.
            ConversationState left = new ConversationState();
            left.lastReadSeq = 9;
            left.membership = -10;
            conversations.put(GROUP, left);
            return older.snapshot(1, 1);
        }
    }

    private static List<ReaderUpdate> knownReaders(
            KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness) {
        List<ReaderUpdate> readers = new ArrayList<>();
        var side = harness.getSideOutput(UnreadCounter.KNOWN_READERS);
        if (side != null) {
            side.forEach(record -> readers.add(record.getValue()));
        }
        return readers;
    }

    @Test
    void aRestoreFromOlderStateWritesTotalsAndReadersBeforeAnyEventAndOnlyOnce() throws Exception {
        OperatorSubtaskState upgraded;
        try (var restored = CounterOnRocksDb.opened(new UnreadCounterOperator(0), olderState())) {
            assertThat(restored.extractOutputValues())
                    .containsExactly(
                            UnreadCount.total(ALICE, Count.TOTAL_MESSAGES, 2),
                            UnreadCount.total(ALICE, Count.TOTAL_MENTIONS, 0),
                            UnreadCount.total(ALICE, Count.TOTAL_CONVERSATIONS, 1),
                            UnreadCount.total(ALICE, Count.TOTAL_THREADS, 0));
            assertThat(knownReaders(restored))
                    .containsExactly(new ReaderUpdate(CHAT, ALICE, 3, true));
            upgraded = restored.snapshot(2, 2);
        }
        try (var again = CounterOnRocksDb.opened(new UnreadCounterOperator(0), upgraded)) {
            assertThat(again.extractOutputValues()).isEmpty();
            assertThat(knownReaders(again)).isEmpty();
        }
    }
}
