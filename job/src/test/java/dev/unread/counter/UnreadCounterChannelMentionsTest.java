package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import dev.unread.testing.CounterOnRocksDb;
import dev.unread.testing.EventStreams;
import dev.unread.testing.ThreadStreams;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * docs/contract.md's "Counts of channel-wide mentions" for one user, one rule at a time, on the
 * production state backend: which mentions they count, what takes them away, and that a message
 * without {@code mentionsAll} costs no write of them, before or after a restore, while a restore
 * still rewrites one the replay leaves unchanged. UnreadCounterModelTest and GroupsModelTest check
 * them against the oracle on random streams.
 */
class UnreadCounterChannelMentionsTest {

    private static final long ALICE = 10086;
    private static final long BOB = 10087;
    private static final long CHAT = 80001;
    private static final long ROOT = 100;

    private static final Set<Count> CHANNEL_COUNTS =
            Set.of(Count.CHANNEL_MENTIONS, Count.THREAD_CHANNEL_MENTIONS);

    private KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness;

    /** What earlier incarnations emitted, for {@link #channelCounts}. */
    private final List<UnreadCount> emittedBefore = new ArrayList<>();

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
    void onlyAMentionThroughTheChannelCountsAndAsLongAsTheMentionsShowIt() throws Exception {
        send(channelWide(ChatEvent.message(BOB, ALICE, CHAT, 1, 1000)));
        assertThat(last(Count.MENTIONS)).isEqualTo(1);
        assertThat(last(Count.CHANNEL_MENTIONS)).isEqualTo(1);
        // Named and channel-wide: a mention by id, no mark's.
        send(channelWide(ChatEvent.mention(BOB, ALICE, CHAT, 2, 1000)));
        assertThat(last(Count.MENTIONS)).isEqualTo(2);
        assertThat(last(Count.CHANNEL_MENTIONS)).isEqualTo(1);
        // Muted: the mentions stay shown, and so does their mark.
        send(ChatEvent.preference(ALICE, CHAT, ChatEvent.NONE, 2000));
        assertThat(last(Count.MENTIONS)).isEqualTo(2);
        assertThat(last(Count.CHANNEL_MENTIONS)).isEqualTo(1);
        send(
                ChatEvent.ignoreChannelMentions(
                        ALICE, CHAT, ChatEvent.NO_COUNT_PREFERENCE, true, 3000));
        assertThat(last(Count.MENTIONS)).isEqualTo(1);
        assertThat(last(Count.CHANNEL_MENTIONS)).isZero();
        send(
                ChatEvent.ignoreChannelMentions(
                        ALICE, CHAT, ChatEvent.NO_COUNT_PREFERENCE, false, 4000));
        assertThat(last(Count.CHANNEL_MENTIONS)).isEqualTo(1);
        send(ChatEvent.membership(false, ALICE, CHAT, 3));
        assertThat(last(Count.CHANNEL_MENTIONS)).isZero();
        send(ChatEvent.membership(true, ALICE, CHAT, 4));
        assertThat(last(Count.CHANNEL_MENTIONS)).isEqualTo(1);
        // Edits move a message between the two kinds of mention.
        send(ChatEvent.edited(ALICE, CHAT, 1, 0, 5000, true, false));
        assertThat(last(Count.CHANNEL_MENTIONS)).isZero();
        send(ChatEvent.edited(ALICE, CHAT, 2, 0, 5000, false, true));
        assertThat(last(Count.CHANNEL_MENTIONS)).isEqualTo(1);
        assertThat(last(Count.MENTIONS)).isEqualTo(2);
        send(ChatEvent.deleted(ALICE, CHAT, 2));
        assertThat(last(Count.CHANNEL_MENTIONS)).isZero();
        send(channelWide(ChatEvent.message(BOB, ALICE, CHAT, 5, 1000)));
        assertThat(last(Count.CHANNEL_MENTIONS)).isEqualTo(1);
        send(ChatEvent.conversationRead(ALICE, CHAT, 5, 6000));
        assertThat(last(Count.CHANNEL_MENTIONS)).isZero();
        assertThat(last(Count.MENTIONS)).isZero();
    }

    @Test
    void aFollowedThreadCountsItsChannelWideMentionsUntilReadOrIgnored() throws Exception {
        send(
                ChatEvent.threadFollowed(ALICE, CHAT, ROOT, true, 500),
                channelWide(ChatEvent.reply(BOB, ALICE, CHAT, 101, ROOT, 1000, false)),
                channelWide(ChatEvent.reply(BOB, ALICE, CHAT, 102, ROOT, 1000, true)));
        assertThat(lastOfThread(Count.THREAD_MENTIONS)).isEqualTo(2);
        assertThat(lastOfThread(Count.THREAD_CHANNEL_MENTIONS)).isEqualTo(1);
        // A reply counts toward no conversation count.
        assertThat(last(Count.CHANNEL_MENTIONS)).isZero();
        send(
                ChatEvent.ignoreChannelMentions(
                        ALICE, CHAT, ChatEvent.NO_COUNT_PREFERENCE, true, 2000));
        assertThat(lastOfThread(Count.THREAD_CHANNEL_MENTIONS)).isZero();
        send(
                ChatEvent.ignoreChannelMentions(
                        ALICE, CHAT, ChatEvent.NO_COUNT_PREFERENCE, false, 3000));
        assertThat(lastOfThread(Count.THREAD_CHANNEL_MENTIONS)).isEqualTo(1);
        send(ChatEvent.threadFollowed(ALICE, CHAT, ROOT, false, 4000));
        assertThat(lastOfThread(Count.THREAD_CHANNEL_MENTIONS)).isZero();
        send(ChatEvent.threadFollowed(ALICE, CHAT, ROOT, true, 5000));
        assertThat(lastOfThread(Count.THREAD_CHANNEL_MENTIONS)).isEqualTo(1);
        send(ChatEvent.threadRead(ALICE, CHAT, ROOT, 102, 6000));
        assertThat(lastOfThread(Count.THREAD_CHANNEL_MENTIONS)).isZero();
    }

    @Test
    void aRestoredCounterRewritesAChannelMentionCountTheReplayLeavesUnchanged() throws Exception {
        // Checkpointed: a followed thread with a plain reply. Lost after it: an @channel message
        // and an edit making the reply an @all (Redis got 1 for both), then the reads.
        send(
                ChatEvent.threadFollowed(ALICE, CHAT, ROOT, true, 500),
                ChatEvent.reply(BOB, ALICE, CHAT, 101, ROOT, 1000, false));
        OperatorSubtaskState checkpoint = harness.snapshot(1, 1);
        send(
                channelWide(ChatEvent.message(BOB, ALICE, CHAT, 1, 1000)),
                ChatEvent.edited(ALICE, CHAT, 101, ROOT, 2000, false, true));
        assertThat(last(Count.CHANNEL_MENTIONS)).isEqualTo(1);
        assertThat(lastOfThread(Count.THREAD_CHANNEL_MENTIONS)).isEqualTo(1);
        restore(checkpoint);

        // The replay brings the reads first: neither count ever changes from 0, and without a
        // rewrite Redis would keep the lost timeline's 1s.
        send(
                ChatEvent.conversationRead(ALICE, CHAT, 1, 3000),
                ChatEvent.threadRead(ALICE, CHAT, ROOT, 101, 3000),
                channelWide(ChatEvent.message(BOB, ALICE, CHAT, 1, 1000)),
                ChatEvent.edited(ALICE, CHAT, 101, ROOT, 2000, false, true));
        assertThat(channelCounts())
                .containsExactly(
                        UnreadCount.conversation(ALICE, Count.CHANNEL_MENTIONS, CHAT, 1),
                        UnreadCount.thread(ALICE, Count.THREAD_CHANNEL_MENTIONS, CHAT, ROOT, 1),
                        UnreadCount.conversation(ALICE, Count.CHANNEL_MENTIONS, CHAT, 0),
                        UnreadCount.thread(ALICE, Count.THREAD_CHANNEL_MENTIONS, CHAT, ROOT, 0));
    }

    @Test
    void aRestoredCounterRewritesAChannelMentionItKeptHidden() throws Exception {
        // Checkpointed: an @channel message, ignored. Lost after it: heeded again (Redis got 1).
        send(
                channelWide(ChatEvent.message(BOB, ALICE, CHAT, 1, 1000)),
                ChatEvent.ignoreChannelMentions(
                        ALICE, CHAT, ChatEvent.NO_COUNT_PREFERENCE, true, 2000));
        OperatorSubtaskState checkpoint = harness.snapshot(1, 1);
        send(
                ChatEvent.ignoreChannelMentions(
                        ALICE, CHAT, ChatEvent.NO_COUNT_PREFERENCE, false, 3000));
        restore(checkpoint);

        // The replay reads the message first: what is shown never changes from 0, but the kept
        // mention is written out at the first touch.
        send(
                ChatEvent.conversationRead(ALICE, CHAT, 1, 4000),
                ChatEvent.ignoreChannelMentions(
                        ALICE, CHAT, ChatEvent.NO_COUNT_PREFERENCE, false, 3000));
        assertThat(channelCounts()).extracting(c -> c.count).containsExactly(1L, 0L, 1L, 0L);
    }

    /**
     * Issue 36's cost: on a random stream with conversation messages, replies, reads, follows,
     * preferences, deletions and duplicates, none with {@code mentionsAll} and no edit, no
     * channel-wide mention count is ever written, before or after a restore, while the other counts
     * are.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void messagesWithoutMentionsAllWriteNoChannelMentionCountBeforeOrAfterARestore(long seed)
            throws Exception {
        System.out.println("seed " + seed);
        EventStreams streams = new EventStreams(seed);
        List<ChatEvent> events = new ArrayList<>();
        for (ChatEvent e :
                streams.withDuplicates(
                        ThreadStreams.withThreads(streams.random(), streams.events()), 0.2)) {
            if (e.kind == ChatEvent.Kind.MESSAGE_EDITED) {
                continue;
            }
            if (e.kind == ChatEvent.Kind.MESSAGE) {
                e.mentionsAll = false;
            }
            events.add(e);
        }
        int half = events.size() / 2;
        send(events.subList(0, half).toArray(ChatEvent[]::new));
        OperatorSubtaskState checkpoint = harness.snapshot(1, 1);
        send(events.subList(half, events.size()).toArray(ChatEvent[]::new));
        long before = harness.extractOutputValues().size();
        restore(checkpoint);
        // The replay of what came after the checkpoint, in another order.
        send(streams.shuffled(events.subList(half, events.size())).toArray(ChatEvent[]::new));

        assertThat(before).as("seed %d: counts written before the restore", seed).isPositive();
        assertThat(harness.extractOutputValues())
                .as("seed %d: counts written after the restore", seed)
                .isNotEmpty();
        assertThat(channelCounts()).as("seed %d", seed).isEmpty();
    }

    /** Closes the counter and opens another from {@code checkpoint}: a restore. */
    private void restore(OperatorSubtaskState checkpoint) throws Exception {
        emittedBefore.addAll(harness.extractOutputValues());
        harness.close();
        harness = CounterOnRocksDb.harness();
        harness.initializeState(checkpoint);
        harness.open();
    }

    /** The channel-wide mention counts every incarnation emitted, in order. */
    private List<UnreadCount> channelCounts() {
        List<UnreadCount> all = new ArrayList<>(emittedBefore);
        all.addAll(harness.extractOutputValues());
        return all.stream().filter(c -> CHANNEL_COUNTS.contains(c.kind)).toList();
    }

    private static ChatEvent channelWide(ChatEvent message) {
        message.mentionsAll = true;
        return message;
    }

    private void send(ChatEvent... events) throws Exception {
        for (ChatEvent event : events) {
            harness.processElement(event, 0);
        }
    }

    /** The last value emitted of a conversation count of CHAT in this incarnation; 0 if none. */
    private long last(Count kind) {
        return last(kind, 0);
    }

    /** The same of a count of thread ROOT. */
    private long lastOfThread(Count kind) {
        return last(kind, ROOT);
    }

    private long last(Count kind, long threadSeq) {
        List<UnreadCount> of =
                harness.extractOutputValues().stream()
                        .filter(
                                c ->
                                        c.kind == kind
                                                && c.conversationId == CHAT
                                                && c.threadSeq == threadSeq)
                        .toList();
        return of.isEmpty() ? 0 : of.get(of.size() - 1).count;
    }
}
