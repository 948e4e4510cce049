package dev.unread.counter;

import static dev.unread.events.ChatEvent.conversationRead;
import static dev.unread.events.ChatEvent.inboxOpened;
import static dev.unread.events.ChatEvent.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.contract.Count;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import dev.unread.events.UnreadCount;
import dev.unread.seqs.UnreadChunks;
import dev.unread.seqs.UnreadSeqs;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.testing.CounterOnRocksDb;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One test per rule of docs/contract.md's "Semantics", on the production state backend. */
class UnreadCounterTest {

    private static final long ALICE = 10086;
    private static final long BOB = 10087;
    private static final long CAROL = 10088;
    private static final long DAVE = 10089;
    private static final long CHAT = 80001;
    private static final long DAY = Duration.ofDays(1).toMillis();

    private KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness;

    @BeforeEach
    void openHarness() throws Exception {
        harness = CounterOnRocksDb.harness(new EmbeddedRocksDBStateBackend());
        harness.open();
    }

    /** The harness counts state entries only on the heap backend; the rules are the same. */
    private void reopenOnHeap() throws Exception {
        harness.close();
        harness = CounterOnRocksDb.harness(new HashMapStateBackend());
        harness.open();
    }

    @AfterEach
    void closeHarness() throws Exception {
        harness.close();
    }

    @Test
    void hundredMessagesFromOneFriendShowOne() throws Exception {
        for (int i = 1; i <= 100; i++) {
            send(message(BOB, ALICE, 1000 + i));
        }
        assertThat(counts()).containsExactly(UnreadCount.senders(ALICE, 1));
    }

    @Test
    void threeFriendsShowThree() throws Exception {
        send(
                message(BOB, ALICE, 1000),
                message(CAROL, ALICE, 1001),
                message(DAVE, ALICE, 1002),
                message(CAROL, ALICE, 1003));
        assertThat(counts())
                .containsExactly(
                        UnreadCount.senders(ALICE, 1),
                        UnreadCount.senders(ALICE, 2),
                        UnreadCount.senders(ALICE, 3));
    }

    @Test
    void ownMessageCountsTowardNothing() throws Exception {
        reopenOnHeap();
        send(message(ALICE, ALICE, 1000), message(ALICE, ALICE, CHAT, 1, 1001));
        assertThat(counts()).isEmpty();
        // Nothing kept: sending a root makes its sender no follower unless root senders are
        // tracked (ThreadFollowsTest), and the rest of a message to oneself counts nowhere.
        assertThat(harness.numKeyedStateEntries()).isZero();
    }

    @Test
    void openingTheInboxResetsTheBadgeAndFreesSenderState() throws Exception {
        send(message(BOB, ALICE, 1000), message(CAROL, ALICE, 1001));
        assertThat(sendersHeld(ALICE)).isEqualTo(2);

        send(inboxOpened(ALICE, 2000));

        assertThat(last(counts())).isEqualTo(UnreadCount.senders(ALICE, 0));
        assertThat(sendersHeld(ALICE)).isZero();
        assertThat(inboxCursors()).containsExactly(new InboxCursor(ALICE, 2000));
    }

    @Test
    void messageExactlyAtTheWatermarkDoesNotCount() throws Exception {
        send(inboxOpened(ALICE, 2000), message(BOB, ALICE, 2000));
        // The one count is the first write of the badge since the counter opened.
        assertThat(counts()).containsExactly(UnreadCount.senders(ALICE, 0));
    }

    @Test
    void lateMessageChangesNothing() throws Exception {
        reopenOnHeap();
        send(inboxOpened(ALICE, 2000));
        int entries = harness.numKeyedStateEntries();
        harness.getOutput().clear();

        send(message(BOB, ALICE, 1500));

        assertThat(counts()).isEmpty();
        assertThat(harness.numKeyedStateEntries()).isEqualTo(entries);
    }

    @Test
    void lateResetRemovesOnlyCoveredSenders() throws Exception {
        // Bob wrote before the reset, Carol after it, Dave both before and after.
        send(
                message(BOB, ALICE, 1000),
                message(CAROL, ALICE, 3000),
                message(DAVE, ALICE, 1500),
                message(DAVE, ALICE, 2500));
        assertThat(last(counts())).isEqualTo(UnreadCount.senders(ALICE, 3));

        send(inboxOpened(ALICE, 2000));

        assertThat(last(counts())).isEqualTo(UnreadCount.senders(ALICE, 2));
    }

    @Test
    void resetOlderThanTheWatermarkChangesNothing() throws Exception {
        send(inboxOpened(ALICE, 2000), message(BOB, ALICE, 2500));
        harness.getOutput().clear();

        send(inboxOpened(ALICE, 1000), inboxOpened(ALICE, 2000));

        assertThat(counts()).isEmpty();
        assertThat(inboxCursors()).containsExactly(new InboxCursor(ALICE, 2000));
    }

    @Test
    void conversationMessageCountsTowardBadgeAndConversation() throws Exception {
        send(message(BOB, ALICE, CHAT, 1, 1000));
        assertThat(counts())
                .containsExactly(
                        UnreadCount.senders(ALICE, 1), UnreadCount.conversation(ALICE, CHAT, 1));
    }

    @Test
    void repeatedSeqCountsOnce() throws Exception {
        send(
                message(BOB, ALICE, CHAT, 7, 1000),
                message(BOB, ALICE, CHAT, 7, 1000),
                message(CAROL, ALICE, CHAT, 7, 1001));
        assertThat(conversationCounts()).containsExactly(UnreadCount.conversation(ALICE, CHAT, 1));
    }

    @Test
    void readingAConversationRemovesSeqsUpToTheCursor() throws Exception {
        for (long seq = 1; seq <= 5; seq++) {
            send(message(BOB, ALICE, CHAT, seq, 1000 + seq));
        }
        harness.getOutput().clear();

        send(conversationRead(ALICE, CHAT, 3, 2000));

        assertThat(conversationCounts()).containsExactly(UnreadCount.conversation(ALICE, CHAT, 2));
        assertThat(conversationCursors())
                .containsExactly(new ConversationCursor(ALICE, CHAT, 3, 2));
    }

    @Test
    void cursorRegressionIsIgnored() throws Exception {
        send(conversationRead(ALICE, CHAT, 10, 2000), conversationRead(ALICE, CHAT, 5, 2001));
        send(message(BOB, ALICE, CHAT, 7, 1000));

        assertThat(conversationCursors())
                .containsExactly(new ConversationCursor(ALICE, CHAT, 10, 0));
        assertThat(conversationCounts()).containsExactly(UnreadCount.conversation(ALICE, CHAT, 0));
    }

    @Test
    void messageAtTheCursorDoesNotCountButOnePastItDoes() throws Exception {
        send(
                conversationRead(ALICE, CHAT, 10, 2000),
                message(BOB, ALICE, CHAT, 10, 1000),
                message(BOB, ALICE, CHAT, 11, 1000));
        assertThat(conversationCounts())
                .containsExactly(
                        UnreadCount.conversation(ALICE, CHAT, 0),
                        UnreadCount.conversation(ALICE, CHAT, 1));
    }

    @Test
    void readSeqZeroMovesNothing() throws Exception {
        send(message(BOB, ALICE, CHAT, 1, 1000), conversationRead(ALICE, CHAT, 0, 2000));
        assertThat(conversationCounts()).containsExactly(UnreadCount.conversation(ALICE, CHAT, 1));
        assertThat(conversationCursors()).isEmpty();
    }

    @Test
    void advancingACursorPastNoUnreadStillRecordsIt() throws Exception {
        send(conversationRead(ALICE, CHAT, 4, 2000));
        assertThat(conversationCounts()).containsExactly(UnreadCount.conversation(ALICE, CHAT, 0));
        assertThat(conversationCursors())
                .containsExactly(new ConversationCursor(ALICE, CHAT, 4, 0));
    }

    @Test
    void openingTheInboxLeavesConversationCountsAlone() throws Exception {
        send(message(BOB, ALICE, CHAT, 1, 1000), inboxOpened(ALICE, 2000));
        assertThat(conversationCounts()).containsExactly(UnreadCount.conversation(ALICE, CHAT, 1));
        assertThat(last(counts())).isEqualTo(UnreadCount.senders(ALICE, 0));
    }

    @Test
    void usersAreCountedApart() throws Exception {
        send(message(BOB, ALICE, 1000), message(CAROL, BOB, 1000), inboxOpened(ALICE, 2000));
        assertThat(counts())
                .containsExactly(
                        UnreadCount.senders(ALICE, 1),
                        UnreadCount.senders(BOB, 1),
                        UnreadCount.senders(ALICE, 0));
    }

    @Test
    void stateSurvivesASnapshotAndRestore() throws Exception {
        send(message(BOB, ALICE, CHAT, 1, 1000), conversationRead(ALICE, CHAT, 0, 900));
        var snapshot = harness.snapshot(1, 1);
        harness.close();

        harness = CounterOnRocksDb.harness(new EmbeddedRocksDBStateBackend());
        harness.initializeState(snapshot);
        harness.open();
        send(message(BOB, ALICE, CHAT, 1, 1000), message(CAROL, ALICE, CHAT, 2, 1100));

        // The replayed message changes nothing, but the restored counter writes both counts out
        // once: Redis may hold values from after the snapshot that the restore rolled back.
        assertThat(counts())
                .containsExactly(
                        UnreadCount.senders(ALICE, 1), UnreadCount.conversation(ALICE, CHAT, 1),
                        UnreadCount.senders(ALICE, 2), UnreadCount.conversation(ALICE, CHAT, 2));
        // Each says what it was before: the sink leaves out the two rewrites where it knows Redis
        // holds what the restored state shows (issue 46).
        assertThat(counts()).extracting(c -> c.before).containsExactly(1L, 1L, 1L, 1L);
    }

    @Test
    void aRestoredCounterRewritesACountTheReplayLeavesUnchanged() throws Exception {
        // Checkpointed: nothing yet. Lost after it: Bob counted (Redis got 1), then a reset.
        var snapshot = harness.snapshot(1, 1);
        send(message(BOB, ALICE, 1000));
        assertThat(counts()).containsExactly(UnreadCount.senders(ALICE, 1));
        harness.close();

        // The replay brings the reset first, so Bob's message is late and the badge never
        // changes from 0; without a rewrite Redis would keep the lost timeline's 1.
        harness = CounterOnRocksDb.harness(new EmbeddedRocksDBStateBackend());
        harness.initializeState(snapshot);
        harness.open();
        send(inboxOpened(ALICE, 2000), message(BOB, ALICE, 1000));

        assertThat(counts()).containsExactly(UnreadCount.senders(ALICE, 0));
        assertThat(counts()).extracting(c -> c.before).containsExactly(0L);
    }

    @Test
    void idleUsersAreForgottenAfterTheConfiguredDaysAndOthersAreNot() throws Exception {
        harness.close();
        harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new UnreadCounter(2)),
                        e -> e.userId,
                        Types.LONG);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        harness.open();
        long day = Duration.ofDays(1).toMillis();
        harness.setProcessingTime(100 * day);
        send(message(BOB, ALICE, CHAT, 1, 1000), message(CAROL, DAVE, 1000));
        harness.setProcessingTime(101 * day + 5);
        send(message(BOB, DAVE, 1001));
        harness.getOutput().clear();

        // Alice's last event was on day 100: after days 101 and 102 pass idle, she is forgotten.
        harness.setProcessingTime(103 * day - 1);
        assertThat(counts()).isEmpty();
        harness.setProcessingTime(103 * day);
        assertThat(counts())
                .containsExactly(
                        UnreadCount.senders(ALICE, 0), UnreadCount.conversation(ALICE, CHAT, 0));
        assertThat(sendersHeld(ALICE)).isZero();

        // Dave was active on day 101, so his state lives one day longer.
        harness.getOutput().clear();
        harness.setProcessingTime(104 * day);
        assertThat(counts()).containsExactly(UnreadCount.senders(DAVE, 0));

        // A forgotten user counts again from the next message.
        send(message(BOB, ALICE, CHAT, 2, 2000));
        assertThat(counts())
                .endsWith(UnreadCount.senders(ALICE, 1), UnreadCount.conversation(ALICE, CHAT, 1));
    }

    /**
     * Issue 22, item 13: forgetting an idle user forgets its memberships too, so a group message of
     * before the user left, replayed after that, counts again: the contract's one departure from
     * the set semantics ("Forgetting idle users") covers memberships as well.
     */
    @Test
    void aForgottenUserForgetsHavingLeftAndAReplayedMessageCountsAgain() throws Exception {
        restart(2, null);
        harness.setProcessingTime(100 * DAY);
        send(
                ChatEvent.membership(true, ALICE, CHAT, 1),
                message(BOB, ALICE, CHAT, 2, 1000),
                ChatEvent.membership(false, ALICE, CHAT, 3));
        assertThat(last(counts())).isEqualTo(UnreadCount.conversation(ALICE, CHAT, 0));

        harness.setProcessingTime(103 * DAY);
        harness.getOutput().clear();
        send(message(BOB, ALICE, CHAT, 2, 1000));

        assertThat(counts()).contains(UnreadCount.conversation(ALICE, CHAT, 1));
    }

    @Test
    void turningExpiryOffStopsTheTimersItSet() throws Exception {
        // Issue 17, item 1: written with 7 idle days, restored with expiry off.
        restart(7, null);
        harness.setProcessingTime(20000 * DAY);
        send(message(BOB, ALICE, 1000));
        var snapshot = harness.snapshot(1, 1);

        restart(0, snapshot);
        harness.setProcessingTime(20006 * DAY);
        send(message(CAROL, ALICE, 1001));
        harness.getOutput().clear();
        harness.setProcessingTime(20008 * DAY);
        harness.setProcessingTime(20100 * DAY);

        assertThat(counts()).isEmpty();
        assertThat(sendersHeld(ALICE)).isEqualTo(2);
    }

    @Test
    void turningExpiryOnForgetsUsersByTheirLastEventOrFromTheRestore() throws Exception {
        // Written with expiry off: Alice's latest event is recorded; Dave's state comes from a
        // build before that was recorded (or from the savepoint tools), with no day in it.
        harness.setProcessingTime(20000 * DAY);
        send(message(BOB, ALICE, CHAT, 1, 1000));
        writeConversationWithoutActiveDay(DAVE, CHAT, 5);
        var snapshot = harness.snapshot(1, 1);

        // Restored with 2 idle days on day 20001, with no event after: Alice is forgotten two
        // whole days after her event, Dave two whole days after the restore.
        harness.setProcessingTime(20001 * DAY);
        restart(2, snapshot);
        harness.setProcessingTime(20003 * DAY - 1);
        assertThat(counts()).isEmpty();
        harness.setProcessingTime(20003 * DAY);
        assertThat(counts())
                .containsExactly(
                        UnreadCount.senders(ALICE, 0), UnreadCount.conversation(ALICE, CHAT, 0));
        assertThat(sendersHeld(ALICE)).isZero();

        harness.getOutput().clear();
        harness.setProcessingTime(20004 * DAY - 1);
        assertThat(counts()).isEmpty();
        harness.setProcessingTime(20004 * DAY);
        assertThat(counts()).containsExactly(UnreadCount.conversation(DAVE, CHAT, 0));
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void lengtheningTheIdlePeriodMovesTheTimersSet() throws Exception {
        restart(2, null);
        harness.setProcessingTime(20000 * DAY);
        send(message(BOB, ALICE, 1000));
        var snapshot = harness.snapshot(1, 1);

        restart(7, snapshot);
        harness.setProcessingTime(20008 * DAY - 1);
        assertThat(counts()).isEmpty();
        harness.setProcessingTime(20008 * DAY);

        assertThat(counts()).containsExactly(UnreadCount.senders(ALICE, 0));
    }

    @Test
    void shorteningTheIdlePeriodForgetsUsersIdleThatLongAlready() throws Exception {
        restart(7, null);
        harness.setProcessingTime(20000 * DAY);
        send(message(BOB, ALICE, 1000));
        var snapshot = harness.snapshot(1, 1);

        harness.setProcessingTime(20005 * DAY);
        restart(2, snapshot);
        // Its timer is due already and fires with the first tick after the restore.
        harness.setProcessingTime(20005 * DAY + 1);

        assertThat(counts()).containsExactly(UnreadCount.senders(ALICE, 0));
    }

    @Test
    void anEventWhileExpiryWasOffKeepsATimerSetBeforeFromForgettingTheUser() throws Exception {
        restart(2, null);
        harness.setProcessingTime(20000 * DAY);
        send(message(BOB, ALICE, 1000));
        var on = harness.snapshot(1, 1);

        restart(0, on);
        harness.setProcessingTime(20001 * DAY);
        send(message(CAROL, ALICE, 1001));
        var off = harness.snapshot(2, 2);

        // The timer set on day 20000 fires on day 20003, but Alice was active on day 20001.
        restart(2, off);
        harness.getOutput().clear();
        harness.setProcessingTime(20004 * DAY - 1);
        assertThat(counts()).isEmpty();
        harness.setProcessingTime(20004 * DAY);
        assertThat(counts()).containsExactly(UnreadCount.senders(ALICE, 0));
    }

    @Test
    void idleDaysATimerCannotHoldAreRefused() {
        // Issue 17, item 2: "forever" written as a huge number wrapped into the past.
        assertThatThrownBy(() -> new UnreadCounter(Long.MAX_VALUE / 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most " + UnreadCounter.MAX_IDLE_STATE_DAYS)
                .hasMessageContaining("0 keeps state forever");
    }

    @Test
    void theLongestIdlePeriodKeepsAUserUntilItEnds() throws Exception {
        restart(UnreadCounter.MAX_IDLE_STATE_DAYS, null);
        harness.setProcessingTime(20000 * DAY);
        send(message(BOB, ALICE, 1000));
        harness.getOutput().clear();

        harness.setProcessingTime(20001 * DAY);
        assertThat(counts()).isEmpty();
        assertThat(sendersHeld(ALICE)).isEqualTo(1);
        harness.setProcessingTime((20001 + UnreadCounter.MAX_IDLE_STATE_DAYS) * DAY);
        assertThat(counts()).containsExactly(UnreadCount.senders(ALICE, 0));
    }

    @Test
    void withoutIdleExpiryNoTimerIsEverSet() throws Exception {
        send(message(BOB, ALICE, 1000));
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    /**
     * Closes the harness and opens the job's counter with {@code idleStateDays} on RocksDB,
     * restored from {@code snapshot} unless null, at the current processing time.
     */
    private void restart(long idleStateDays, OperatorSubtaskState snapshot) throws Exception {
        long now = harness.getProcessingTime();
        harness.close();
        harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new UnreadCounterOperator(idleStateDays), e -> e.userId, Types.LONG);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        harness.setProcessingTime(now);
        if (snapshot != null) {
            harness.initializeState(snapshot);
        }
        harness.open();
    }

    /** Writes one conversation with one unread seq straight into the user's state. */
    private void writeConversationWithoutActiveDay(long user, long conversation, long seq)
            throws Exception {
        var backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(user);
        MapState<Long, ConversationState> conversations =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        StateSchema.CONVERSATIONS);
        ConversationState state = new ConversationState();
        UnreadSeqs seqs = UnreadSeqs.of(UnreadSeqs.EMPTY);
        seqs.add(seq);
        state.unreadSeqs = seqs.toBytes();
        conversations.put(conversation, state);
    }

    /**
     * Issue 17 (item 6): a message reads and writes at most one chunk of 2^16 seqs (at most a
     * bitmap of 8 KiB) of a conversation's unread seqs and of their index, however they are spread:
     * 1:1 alternating (odd seqs) never read, the same after one seq of Long.MAX_VALUE, and one seq
     * per 2^16 (each message opens a new chunk). Counts bytes, not time.
     */
    @Test
    void aMessageTouchesAtMostOneChunkOfTheUnreadSeqsWhateverThePattern() throws Exception {
        record Pattern(long first, long stride, int messages) {}
        for (Pattern p :
                new Pattern[] {
                    new Pattern(0, 2, 40_000),
                    new Pattern(Long.MAX_VALUE, 2, 40_000),
                    new Pattern(0, 1 << 16, 6_000)
                }) {
            UnreadCounter counter = new UnreadCounter();
            try (KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> h =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            new KeyedProcessOperator<>(counter), e -> e.userId, Types.LONG)) {
                h.setStateBackend(new EmbeddedRocksDBStateBackend());
                h.open();
                if (p.first() > 0) {
                    h.processElement(message(BOB, ALICE, CHAT, p.first(), 1000), 0);
                }
                long most = 0;
                for (int i = 0; i < p.messages(); i++) {
                    long before = counter.seqBytesTouched();
                    h.processElement(message(BOB, ALICE, CHAT, p.stride() * i + 1, 1000), 0);
                    most = Math.max(most, counter.seqBytesTouched() - before);
                }
                assertThat(most)
                        .as("bytes touched by one message, %s", p)
                        .isLessThanOrEqualTo(2 * UnreadChunks.MAX_CHUNK_BYTES + 64);
                List<UnreadCount> counts = unreadOnly(h.extractOutputValues());
                assertThat(counts.get(counts.size() - 1))
                        .isEqualTo(
                                UnreadCount.conversation(
                                        ALICE, CHAT, p.messages() + (p.first() > 0 ? 1 : 0)));
            }
        }
    }

    /** Entries in the user's sender map, read straight from the state backend. */
    private int sendersHeld(long user) throws Exception {
        var backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(user);
        MapState<Long, Long> senders =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        StateSchema.SENDERS);
        int n = 0;
        for (var ignored : senders.keys()) {
            n++;
        }
        return n;
    }

    private void send(ChatEvent... events) throws Exception {
        for (ChatEvent event : events) {
            harness.processElement(event, 0);
        }
    }

    /**
     * The counts of version 1 (badge and unread per conversation); UnreadCounterMentionsTest has
     * the rest.
     */
    private List<UnreadCount> counts() {
        return unreadOnly(harness.extractOutputValues());
    }

    static List<UnreadCount> unreadOnly(List<UnreadCount> counts) {
        return counts.stream()
                .filter(c -> c.kind == Count.SENDERS || c.kind == Count.CONVERSATION)
                .collect(Collectors.toList());
    }

    private List<UnreadCount> conversationCounts() {
        return counts().stream().filter(c -> !c.isSenderBadge()).collect(Collectors.toList());
    }

    private List<InboxCursor> inboxCursors() {
        return sideOutput(UnreadCounter.INBOX_CURSORS);
    }

    private <T> List<T> sideOutput(OutputTag<T> tag) {
        var records = harness.getSideOutput(tag);
        return records == null
                ? List.of()
                : records.stream().map(StreamRecord::getValue).collect(Collectors.toList());
    }

    private List<ConversationCursor> conversationCursors() {
        return sideOutput(UnreadCounter.CONVERSATION_CURSORS);
    }

    private static <T> T last(List<T> list) {
        return list.get(list.size() - 1);
    }
}
