package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import dev.unread.state.InboxState;
import dev.unread.state.StateSchema;
import dev.unread.testing.CounterOnRocksDb;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The user's side of a channel (docs/contract.md, "Channels"): the user's state learns the channel
 * from a membership event, forwards what it held of it and every later fact to the channel stage,
 * counts the channel's messages that name the user toward the badge alone, and drops a {@code
 * chat-messages} record that names the channel. The channel list outlives idle expiry, which goes
 * to each channel of it.
 */
class UnreadCounterChannelsTest {

    private static final long U = 10086;
    private static final long SENDER = 10087;
    private static final long CHANNEL = 80001;
    private static final long OTHER_CHANNEL = 80003;
    private static final long DIRECT = 80002;
    private static final long T0 = 1_767_225_600_000L;

    private CounterOnRocksDb counter;
    private KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness;

    @BeforeEach
    void open() throws Exception {
        counter = CounterOnRocksDb.open();
        harness = counter.harness;
    }

    @AfterEach
    void close() throws Exception {
        // The counter's own harness, or the one a test opened in its place.
        harness.close();
    }

    @Test
    void whatTheUserDidInAChannelBeforeJoiningItIsForwardedWhenTheStateLearnsIt() throws Exception {
        ChatEvent read = ChatEvent.conversationRead(U, CHANNEL, 7, T0 + 1);
        ChatEvent preference = ChatEvent.preference(U, CHANNEL, ChatEvent.MENTIONS, T0 + 2);
        ChatEvent ignore =
                ChatEvent.ignoreChannelMentions(
                        U, CHANNEL, ChatEvent.NO_COUNT_PREFERENCE, true, T0 + 3);
        ChatEvent threadRead = ChatEvent.threadRead(U, CHANNEL, 5, 9, T0 + 4);
        ChatEvent follow = ChatEvent.threadFollowed(U, CHANNEL, 5, true, T0 + 5);
        send(read, preference, ignore, threadRead, follow, ChatEvent.allRead(U, T0 + 6));
        assertThat(facts()).isEmpty();

        send(ChatEvent.channelMembership(true, U, CHANNEL, 3));

        List<ChatEvent> forwarded = facts();
        assertThat(forwarded)
                .extracting(ChatEvent::toString)
                .containsExactlyInAnyOrder(
                        ChatEvent.conversationRead(U, CHANNEL, 7, T0 + 1).toString(),
                        preference.toString(),
                        ignore.toString(),
                        ChatEvent.threadRead(U, CHANNEL, 5, 9, 1).toString(),
                        follow.toString(),
                        "ALL_READ(10086 @" + (T0 + 6) + ")");
        assertThat(forwarded).allSatisfy(f -> assertThat(f.conversationId).isEqualTo(CHANNEL));
    }

    /**
     * The user's state keeps no time of a thread read, and the stage drops a fact not after the
     * member's erasure: a held read goes with a time just after the erasure it follows.
     */
    @Test
    void aThreadReadHeldBeforeTheChannelWasKnownGoesAfterTheErasure() throws Exception {
        send(ChatEvent.userErased(U, T0), ChatEvent.threadRead(U, CHANNEL, 5, 9, T0 + 4));
        send(ChatEvent.channelMembership(true, U, CHANNEL, 3));
        assertThat(facts())
                .extracting(f -> f.kind + " @" + f.time + " <=" + f.readSeq())
                .containsExactly(
                        "USER_ERASED @" + T0 + " <=0", "THREAD_READ @" + (T0 + 1) + " <=9");
    }

    @Test
    void laterFactsOfAChannelGoToItsStageAndCountNothingHere() throws Exception {
        send(ChatEvent.channelMembership(true, U, CHANNEL, 1));
        facts();
        harness.getOutput().clear();

        ChatEvent read = ChatEvent.conversationRead(U, CHANNEL, 4, T0 + 1);
        ChatEvent threadRead = ChatEvent.threadRead(U, CHANNEL, 2, 3, T0 + 2);
        ChatEvent follow = ChatEvent.threadFollowed(U, CHANNEL, 2, false, T0 + 3);
        ChatEvent preference = ChatEvent.preference(U, CHANNEL, ChatEvent.NONE, T0 + 4);
        send(read, threadRead, follow, preference);

        assertThat(facts()).containsExactly(read, threadRead, follow, preference);
        assertThat(counts()).isEmpty();
        assertThat(harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS)).isNullOrEmpty();
    }

    @Test
    void anAllReadAndAnErasureReachEveryChannelOfTheUserAndTheListOutlivesTheErasure()
            throws Exception {
        send(
                ChatEvent.channelMembership(true, U, CHANNEL, 1),
                ChatEvent.channelMembership(true, U, OTHER_CHANNEL, 1),
                ChatEvent.channelMembership(false, U, OTHER_CHANNEL, 5));
        facts();

        send(ChatEvent.allRead(U, T0 + 10));
        assertThat(facts())
                .extracting(f -> f.kind + " " + f.conversationId + " " + f.time)
                .containsExactlyInAnyOrder(
                        "ALL_READ 80001 " + (T0 + 10), "ALL_READ 80003 " + (T0 + 10));

        send(ChatEvent.userErased(U, T0 + 20));
        assertThat(facts())
                .extracting(f -> f.kind + " " + f.conversationId)
                .containsExactlyInAnyOrder("USER_ERASED 80001", "USER_ERASED 80003");

        ChatEvent read = ChatEvent.conversationRead(U, CHANNEL, 9, T0 + 30);
        send(read, ChatEvent.conversationRead(U, CHANNEL, 10, T0 + 20));
        assertThat(facts()).containsExactly(read);
    }

    @Test
    void anIdleExpiryReachesEveryChannelOfTheUserAndLaterFactsStillGoToTheirStage()
            throws Exception {
        long day = UnreadCounter.DAY_MS;
        harness.close();
        harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new UnreadCounterOperator(2), e -> e.userId, Types.LONG);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        harness.open();
        harness.setProcessingTime(100 * day);
        send(
                ChatEvent.channelMembership(true, U, CHANNEL, 1),
                ChatEvent.channelMembership(true, U, OTHER_CHANNEL, 1));
        facts();

        // A channel's message that names U is an event of U: U stays a day longer.
        harness.setProcessingTime(101 * day);
        send(ChatEvent.channelMention(SENDER, U, CHANNEL, 2, T0 + 1));
        harness.setProcessingTime(103 * day);
        assertThat(facts()).isEmpty();

        harness.setProcessingTime(104 * day);
        assertThat(facts())
                .extracting(f -> f.kind + " " + f.conversationId + " " + f.time)
                .containsExactlyInAnyOrder(
                        "CHANNEL_EXPIRED 80001 " + 104 * day, "CHANNEL_EXPIRED 80003 " + 104 * day);

        ChatEvent read = ChatEvent.conversationRead(U, CHANNEL, 9, T0 + 30);
        send(read, ChatEvent.allRead(U, T0 + 40));
        assertThat(facts())
                .extracting(f -> f.kind + " " + f.conversationId)
                .containsExactlyInAnyOrder(
                        "CONVERSATION_READ 80001", "ALL_READ 80001", "ALL_READ 80003");
    }

    @Test
    void aChannelMessageThatNamesTheUserCountsTowardTheBadgeAlone() throws Exception {
        send(
                ChatEvent.channelMembership(true, U, CHANNEL, 1),
                ChatEvent.channelMention(SENDER, U, CHANNEL, 2, T0 + 1),
                ChatEvent.channelMention(SENDER, U, CHANNEL, 3, T0 + 2));

        assertThat(counts()).extracting(c -> c.kind).containsOnly(Count.SENDERS).hasSize(1);
        assertThat(counts()).isEmpty();
    }

    @Test
    void aChatMessagesRecordThatNamesAChannelOfTheUserIsDropped() throws Exception {
        send(ChatEvent.channelMembership(true, U, CHANNEL, 1));
        harness.getOutput().clear();

        send(ChatEvent.message(SENDER, U, CHANNEL, 2, T0 + 1));
        assertThat(counts()).isEmpty();

        send(ChatEvent.message(SENDER, U, DIRECT, 2, T0 + 1));
        assertThat(counts()).isNotEmpty();
        assertThat(facts()).isEmpty();
    }

    @Test
    void aChannelsMarkIsWrittenAndClearedByAReadButLeftOutOfTheTotals() throws Exception {
        send(ChatEvent.markedUnread(U, CHANNEL, T0 + 1));
        assertThat(totalConversations()).isEqualTo(1);

        send(ChatEvent.channelMembership(true, U, CHANNEL, 1));
        assertThat(totalConversations()).isEqualTo(0);

        send(ChatEvent.conversationRead(U, CHANNEL, 3, T0 + 2));
        assertThat(counts()).extracting(UnreadCount::toString).contains(unmarked().toString());
        assertThat(facts()).extracting(f -> f.kind).contains(ChatEvent.Kind.CONVERSATION_READ);

        send(ChatEvent.markedUnread(U, CHANNEL, T0 + 3));
        List<UnreadCount> marked = counts();
        assertThat(marked).extracting(c -> c.kind).contains(Count.MARKED);
        assertThat(marked).noneMatch(c -> c.kind == Count.TOTAL_CONVERSATIONS);
    }

    /**
     * A state from before kept totals sums them once from the user's conversations: a marked
     * channel's record is one of them, and stays out of the totals as on every other path.
     */
    @Test
    void totalsSummedForAStateFromBeforeThemLeaveAMarkedChannelOut() throws Exception {
        send(
                ChatEvent.channelMembership(true, U, CHANNEL, 1),
                ChatEvent.markedUnread(U, CHANNEL, T0 + 1),
                ChatEvent.markedUnread(U, DIRECT, T0 + 2));
        assertThat(totalConversations()).isEqualTo(1);
        var backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(U);
        ValueState<InboxState> inbox =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        StateSchema.INBOX);
        InboxState old = inbox.value();
        old.totalsKept = false;
        old.totalConversations = 0;
        inbox.update(old);
        var snapshot = harness.snapshot(1, 1);
        harness.close();
        harness = CounterOnRocksDb.harness();
        harness.initializeState(snapshot);
        harness.open();

        send(ChatEvent.message(SENDER, U, DIRECT, 1, T0 + 3));

        assertThat(totalConversations()).isEqualTo(1);
    }

    @Test
    void aChannelsReadThatArrivesBeforeAnOlderMarkStillClearsIt() throws Exception {
        send(ChatEvent.channelMembership(true, U, CHANNEL, 1));
        send(ChatEvent.conversationRead(U, CHANNEL, 3, T0 + 5));
        counts();

        send(ChatEvent.markedUnread(U, CHANNEL, T0 + 4));
        assertThat(counts()).noneMatch(c -> c.kind == Count.MARKED && c.count > 0);

        send(ChatEvent.markedUnread(U, CHANNEL, T0 + 6));
        assertThat(counts())
                .extracting(UnreadCount::toString)
                .contains(UnreadCount.marked(U, CHANNEL, true).toString());
    }

    private static UnreadCount unmarked() {
        return UnreadCount.marked(U, CHANNEL, false);
    }

    /** The newest total of conversations written since the last call, 0 when none was. */
    private long totalConversations() {
        return counts().stream()
                .filter(c -> c.kind == Count.TOTAL_CONVERSATIONS)
                .reduce((a, b) -> b)
                .map(c -> c.count)
                .orElse(0L);
    }

    private void send(ChatEvent... events) throws Exception {
        for (ChatEvent e : events) {
            harness.processElement(new StreamRecord<>(e, 0));
        }
    }

    /** The facts forwarded since the last call. */
    private List<ChatEvent> facts() {
        List<ChatEvent> facts = new ArrayList<>();
        Queue<StreamRecord<ChatEvent>> side = harness.getSideOutput(UnreadCounter.CHANNEL_FACTS);
        if (side != null) {
            side.forEach(r -> facts.add(r.getValue()));
            side.clear();
        }
        return facts;
    }

    /** The counts written since the last call. */
    @SuppressWarnings("unchecked")
    private List<UnreadCount> counts() {
        List<UnreadCount> counts = new ArrayList<>();
        for (Object o : harness.getOutput()) {
            if (o instanceof StreamRecord<?> r) {
                counts.add(((StreamRecord<UnreadCount>) r).getValue());
            }
        }
        harness.getOutput().clear();
        return counts;
    }
}
