package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.testing.CounterOnRocksDb;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rules of docs/contract.md's "Deleted messages" for one user, one by one, on the production
 * state backend, as the fan-out tells a deletion to each participant; UnreadCounterModelTest and
 * GroupsModelTest check them on random streams.
 */
class UnreadCounterDeletionsTest {

    private static final long ALICE = 10086;
    private static final long BOB = 10087;
    private static final long CHAT = 80001;

    private KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness;

    @BeforeEach
    void open() throws Exception {
        harness = CounterOnRocksDb.harness();
        harness.open();
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    @Test
    void aDeletionAfterTheMessageTakesItOutOfUnreadMentionsAndTotalsButNotTheBadge()
            throws Exception {
        send(
                ChatEvent.message(BOB, ALICE, CHAT, 1, 1000),
                ChatEvent.mention(BOB, ALICE, CHAT, 2, 1001));
        assertThat(counts()).containsExactly(2L, 1L, 2L, 1L, 1L);

        send(ChatEvent.deleted(ALICE, CHAT, 2));
        assertThat(counts()).containsExactly(1L, 0L, 1L, 0L, 1L);
        assertThat(last(Count.SENDERS, UnreadCount.SENDER_BADGE)).isEqualTo(1);

        // Again, or the message again: nothing changes.
        send(ChatEvent.deleted(ALICE, CHAT, 2), ChatEvent.mention(BOB, ALICE, CHAT, 2, 1001));
        assertThat(counts()).containsExactly(1L, 0L, 1L, 0L, 1L);
    }

    @Test
    void aDeletionBeforeTheMessageKeepsItFromEverCounting() throws Exception {
        send(
                ChatEvent.deleted(ALICE, CHAT, 3),
                ChatEvent.mention(BOB, ALICE, CHAT, 3, 1000),
                ChatEvent.mention(BOB, ALICE, CHAT, 3, 1000),
                ChatEvent.message(BOB, ALICE, CHAT, 4, 1001));
        assertThat(counts()).containsExactly(1L, 0L, 1L, 0L, 1L);
        // The badge counts the sender all the same: someone did write.
        assertThat(last(Count.SENDERS, UnreadCount.SENDER_BADGE)).isEqualTo(1);
    }

    @Test
    void deletingAReadSeqChangesNothingAndKeepsNothing() throws Exception {
        send(
                ChatEvent.message(BOB, ALICE, CHAT, 1, 1000),
                ChatEvent.message(BOB, ALICE, CHAT, 2, 1000),
                ChatEvent.conversationRead(ALICE, CHAT, 1, 2000));
        List<UnreadCount> before = harness.extractOutputValues();

        send(ChatEvent.deleted(ALICE, CHAT, 1));

        assertThat(deletionEntries()).isZero();
        assertThat(conversation().deletedCount).isZero();
        assertThat(harness.extractOutputValues()).isEqualTo(before);
        assertThat(last(Count.CONVERSATION, CHAT)).isEqualTo(1);
    }

    @Test
    void deletingAMembershipSeqOrAnUnknownSeqChangesNoCount() throws Exception {
        send(
                ChatEvent.membership(true, ALICE, CHAT, 1),
                ChatEvent.message(BOB, ALICE, CHAT, 2, 1000),
                ChatEvent.message(BOB, ALICE, CHAT, 5, 1000));
        List<UnreadCount> before = harness.extractOutputValues();

        send(ChatEvent.deleted(ALICE, CHAT, 1), ChatEvent.deleted(ALICE, CHAT, 3));

        assertThat(harness.extractOutputValues()).isEqualTo(before);
        assertThat(counts()).containsExactly(2L, 0L, 2L, 0L, 1L);
    }

    @Test
    void aReplayAfterARestoreDoesNotBringADeletedMessageBack() throws Exception {
        send(ChatEvent.message(BOB, ALICE, CHAT, 1, 1000), ChatEvent.deleted(ALICE, CHAT, 2));
        var snapshot = harness.snapshot(1, 1);
        harness.close();

        harness = CounterOnRocksDb.harness();
        harness.initializeState(snapshot);
        harness.open();
        send(
                ChatEvent.mention(BOB, ALICE, CHAT, 2, 1001),
                ChatEvent.message(BOB, ALICE, CHAT, 1, 1000),
                ChatEvent.deleted(ALICE, CHAT, 2));

        assertThat(counts()).containsExactly(1L, 0L, 1L, 0L, 1L);
    }

    @Test
    void earlyDeletionsAreForgottenAsTheCursorPassesThem() throws Exception {
        send(
                ChatEvent.message(BOB, ALICE, CHAT, 1, 1000),
                ChatEvent.conversationRead(ALICE, CHAT, 1, 2000));
        // Each in a chunk of its own: a thousand deletions of messages nobody has received.
        long apart = 1 << 16;
        for (long i = 1; i <= 1000; i++) {
            send(ChatEvent.deleted(ALICE, CHAT, i * apart));
        }
        int kept = deletionEntries();
        assertThat(kept).isGreaterThanOrEqualTo(1000);
        assertThat(conversation().deletedCount).isEqualTo(1000);

        send(ChatEvent.conversationRead(ALICE, CHAT, 500 * apart, 3000));
        int half = deletionEntries();
        assertThat(half).isBetween(500, kept / 2 + 3);
        assertThat(conversation().deletedCount).isEqualTo(500);

        send(ChatEvent.conversationRead(ALICE, CHAT, 1000 * apart, 4000));
        assertThat(deletionEntries()).isZero();
        assertThat(conversation().deletedCount).isZero();
        assertThat(counts()).containsExactly(0L, 0L, 0L, 0L, 0L);
    }

    /** Alice's entries in the deleted seqs' chunks and tree. */
    private int deletionEntries() throws Exception {
        int n = 0;
        for (var descriptor : List.of(StateSchema.DELETED.chunks(), StateSchema.DELETED.tree())) {
            for (var ignored : aliceState(descriptor).keys()) {
                n++;
            }
        }
        return n;
    }

    private ConversationState conversation() throws Exception {
        return aliceState(StateSchema.CONVERSATIONS).get(CHAT);
    }

    private <K, V> MapState<K, V> aliceState(MapStateDescriptor<K, V> descriptor) throws Exception {
        var backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(ALICE);
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    private void send(ChatEvent... events) throws Exception {
        for (ChatEvent event : events) {
            harness.processElement(event, 0);
        }
    }

    /** The last value emitted of one kind for one conversation (0 for the totals); 0 if none. */
    private long last(Count kind, long conversationId) {
        List<UnreadCount> of =
                harness.extractOutputValues().stream()
                        .filter(c -> c.kind == kind && c.conversationId == conversationId)
                        .collect(Collectors.toList());
        return of.isEmpty() ? 0 : of.get(of.size() - 1).count;
    }

    /** unread(CHAT), mentions(CHAT) and the totals: messages, mentions, conversations. */
    private List<Long> counts() {
        return List.of(
                last(Count.CONVERSATION, CHAT),
                last(Count.MENTIONS, CHAT),
                last(Count.TOTAL_MESSAGES, 0),
                last(Count.TOTAL_MENTIONS, 0),
                last(Count.TOTAL_CONVERSATIONS, 0));
    }
}
