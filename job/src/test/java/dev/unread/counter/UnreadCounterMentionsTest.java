package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import dev.unread.state.InboxState;
import dev.unread.state.StateSchema;
import dev.unread.testing.CounterOnRocksDb;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rules of docs/contract.md's mentions, count preferences, marks and app-icon totals, one by
 * one, on the production state backend; UnreadCounterModelTest checks them on random streams.
 */
class UnreadCounterMentionsTest {

    private static final long ALICE = 10086;
    private static final long BOB = 10087;
    private static final long CHAT = 80001;
    private static final long OTHER_CHAT = 80002;

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
    void aSeqMentionedOnAnyOfItsRecordsCountsOnceUntilTheCursorPassesIt() throws Exception {
        send(
                ChatEvent.message(BOB, ALICE, CHAT, 1, 1000),
                ChatEvent.mention(BOB, ALICE, CHAT, 2, 1001),
                ChatEvent.mention(BOB, ALICE, CHAT, 2, 1001),
                ChatEvent.mention(BOB, ALICE, CHAT, 1, 1000));
        assertThat(last(Count.MENTIONS, CHAT)).isEqualTo(2);
        assertThat(last(Count.TOTAL_MENTIONS, 0)).isEqualTo(2);

        send(ChatEvent.conversationRead(ALICE, CHAT, 1, 2000));
        assertThat(last(Count.MENTIONS, CHAT)).isEqualTo(1);
        assertThat(last(Count.CONVERSATION, CHAT)).isEqualTo(1);

        // Behind the cursor: no mention, no count.
        send(ChatEvent.mention(BOB, ALICE, CHAT, 1, 1000));
        assertThat(last(Count.MENTIONS, CHAT)).isEqualTo(1);
        // One's own mention counts toward nothing.
        send(ChatEvent.mention(ALICE, ALICE, CHAT, 7, 1000));
        assertThat(last(Count.MENTIONS, CHAT)).isEqualTo(1);
    }

    @Test
    void aPreferenceDecidesOnlyWhatEntersTheTotals() throws Exception {
        send(
                ChatEvent.message(BOB, ALICE, CHAT, 1, 1000),
                ChatEvent.mention(BOB, ALICE, CHAT, 2, 1001),
                ChatEvent.message(BOB, ALICE, OTHER_CHAT, 1, 1002));
        assertThat(totals()).containsExactly(3L, 1L, 2L);

        send(ChatEvent.preference(ALICE, CHAT, ChatEvent.MENTIONS, 5000));
        assertThat(totals()).containsExactly(1L, 1L, 2L);
        send(ChatEvent.preference(ALICE, CHAT, ChatEvent.NONE, 6000));
        assertThat(totals()).containsExactly(1L, 0L, 1L);
        // The quieter one wins a tie, in either order; an older one changes nothing.
        send(
                ChatEvent.preference(ALICE, OTHER_CHAT, ChatEvent.NONE, 7000),
                ChatEvent.preference(ALICE, OTHER_CHAT, ChatEvent.ALL, 7000),
                ChatEvent.preference(ALICE, CHAT, ChatEvent.ALL, 5500));
        assertThat(totals()).containsExactly(0L, 0L, 0L);
        // The per-conversation counts never moved: unmuting shows the right number at once.
        assertThat(last(Count.CONVERSATION, CHAT)).isEqualTo(2);
        assertThat(last(Count.MENTIONS, CHAT)).isEqualTo(1);
        send(ChatEvent.preference(ALICE, CHAT, ChatEvent.ALL, 8000));
        assertThat(totals()).containsExactly(2L, 1L, 1L);
    }

    @Test
    void aMarkHoldsUntilANewerReadWhateverItsSeqAndNeverMovesTheCursor() throws Exception {
        send(
                ChatEvent.message(BOB, ALICE, CHAT, 5, 1000),
                ChatEvent.conversationRead(ALICE, CHAT, 5, 2000),
                ChatEvent.markedUnread(ALICE, CHAT, 3000));
        assertThat(last(Count.MARKED, CHAT)).isEqualTo(1);
        assertThat(last(Count.CONVERSATION, CHAT)).isZero();
        assertThat(totals()).containsExactly(0L, 0L, 1L);

        // An older read does not clear it.
        send(ChatEvent.conversationRead(ALICE, CHAT, 6, 2500));
        assertThat(last(Count.MARKED, CHAT)).isEqualTo(1);
        // One not older does (the mark must be newer than every read), even behind the cursor.
        send(ChatEvent.conversationRead(ALICE, CHAT, 0, 3000));
        assertThat(last(Count.MARKED, CHAT)).isZero();
        assertThat(totals()).containsExactly(0L, 0L, 0L);
    }

    @Test
    void aRestoredCounterRewritesEveryNewKeyItTouchesOnce() throws Exception {
        send(
                ChatEvent.mention(BOB, ALICE, CHAT, 1, 1000),
                ChatEvent.markedUnread(ALICE, CHAT, 1500));
        var snapshot = harness.snapshot(1, 1);
        harness.close();

        harness = CounterOnRocksDb.harness();
        harness.initializeState(snapshot);
        harness.open();
        send(ChatEvent.mention(BOB, ALICE, CHAT, 1, 1000));

        assertThat(harness.extractOutputValues())
                .containsExactlyInAnyOrder(
                        UnreadCount.senders(ALICE, 1),
                        UnreadCount.conversation(ALICE, CHAT, 1),
                        UnreadCount.mentions(ALICE, CHAT, 1),
                        UnreadCount.marked(ALICE, CHAT, true),
                        UnreadCount.total(ALICE, Count.TOTAL_MESSAGES, 1),
                        UnreadCount.total(ALICE, Count.TOTAL_MENTIONS, 1),
                        UnreadCount.total(ALICE, Count.TOTAL_CONVERSATIONS, 1),
                        UnreadCount.total(ALICE, Count.TOTAL_THREADS, 0));
    }

    @Test
    void totalsOfAStateFromBeforeThemAreSummedOnceFromItsConversations() throws Exception {
        send(
                ChatEvent.message(BOB, ALICE, CHAT, 1, 1000),
                ChatEvent.message(BOB, ALICE, CHAT, 2, 1000),
                ChatEvent.message(BOB, ALICE, OTHER_CHAT, 1, 1000));
        // As a savepoint of an earlier build restores it: totals 0 and not kept.
        ValueState<InboxState> inbox = inboxState();
        InboxState old = inbox.value();
        old.totalsKept = false;
        old.totalMessages = 0;
        old.totalMentions = 0;
        old.totalConversations = 0;
        inbox.update(old);
        // Restored, as such a state only ever reaches the counter: within a run it reads the
        // inbox state it wrote itself.
        var snapshot = harness.snapshot(1, 1);
        harness.close();
        harness = CounterOnRocksDb.harness();
        harness.initializeState(snapshot);
        harness.open();

        send(ChatEvent.message(BOB, ALICE, OTHER_CHAT, 2, 1000));

        assertThat(totals()).containsExactly(4L, 0L, 2L);
    }

    private ValueState<InboxState> inboxState() throws Exception {
        var backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(ALICE);
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, StateSchema.INBOX);
    }

    private void send(ChatEvent... events) throws Exception {
        for (ChatEvent event : events) {
            harness.processElement(event, 0);
        }
    }

    /** The last value emitted of one kind for one conversation (0 for the totals); -1 if none. */
    private long last(Count kind, long conversationId) {
        List<UnreadCount> of =
                harness.extractOutputValues().stream()
                        .filter(c -> c.kind == kind && c.conversationId == conversationId)
                        .collect(Collectors.toList());
        return of.isEmpty() ? -1 : of.get(of.size() - 1).count;
    }

    /** Messages, mentions and conversations, as last emitted (0 when never). */
    private List<Long> totals() {
        return List.of(
                Math.max(0, last(Count.TOTAL_MESSAGES, 0)),
                Math.max(0, last(Count.TOTAL_MENTIONS, 0)),
                Math.max(0, last(Count.TOTAL_CONVERSATIONS, 0)));
    }
}
