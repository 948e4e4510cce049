package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import dev.unread.seqs.UnreadSeqs;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.DefaultOpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 33: a user token may read or follow threads by any seq, and each such thread stays in the
 * user's state; no event's cost may grow with them. A deletion and a membership change visit only
 * the threads of their conversation with unread replies.
 */
class ThreadVisitsTest {

    private static final long ALICE = 10086;
    private static final long BOB = 10087;
    private static final long CHAT = 80001;
    private static final int MADE_UP = 5_000;

    private final UnreadCounter counter = new UnreadCounter();
    private KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness;

    @BeforeEach
    void open() throws Exception {
        harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(counter), e -> e.userId, Types.LONG);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        harness.open();
        send(ChatEvent.membership(true, ALICE, CHAT, 1));
        for (long t = 1; t <= MADE_UP; t++) {
            send(ChatEvent.threadRead(ALICE, CHAT, 1_000_000 + t, 1_000_000 + t, 1000));
            send(ChatEvent.threadFollowed(ALICE, CHAT, 2_000_000 + t, true, 1000));
        }
        for (long root = 10; root <= 12; root++) {
            send(ChatEvent.threadFollowed(ALICE, CHAT, root, true, 1000));
            send(ChatEvent.reply(BOB, ALICE, CHAT, root + 10, root, 1000, false));
        }
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    @Test
    void aDeletionVisitsOnlyTheThreadsWithUnreadReplies() throws Exception {
        long before = counter.threadsVisited();
        send(ChatEvent.deleted(ALICE, CHAT, 99));
        assertThat(counter.threadsVisited() - before).isLessThanOrEqualTo(3);

        harness.getOutput().clear();
        before = counter.threadsVisited();
        send(ChatEvent.deleted(ALICE, CHAT, 21));
        assertThat(counter.threadsVisited() - before).isLessThanOrEqualTo(3);
        assertThat(harness.extractOutputValues())
                .contains(UnreadCount.thread(ALICE, Count.THREAD, CHAT, 11, 0));
    }

    @Test
    void aMembershipChangeVisitsOnlyTheThreadsWithUnreadReplies() throws Exception {
        harness.getOutput().clear();
        long before = counter.threadsVisited();
        send(ChatEvent.membership(false, ALICE, CHAT, 50));
        assertThat(counter.threadsVisited() - before).isLessThanOrEqualTo(3);
        List<UnreadCount> hidden = harness.extractOutputValues();
        for (long root = 10; root <= 12; root++) {
            assertThat(hidden).contains(UnreadCount.thread(ALICE, Count.THREAD, CHAT, root, 0));
        }

        harness.getOutput().clear();
        send(ChatEvent.membership(true, ALICE, CHAT, 60));
        assertThat(harness.extractOutputValues())
                .contains(UnreadCount.thread(ALICE, Count.THREAD, CHAT, 12, 1));
    }

    /**
     * What a user token can make the job keep by reading and following threads of made-up seqs is
     * bounded per conversation: the bare threads touched last (here the reads and follows of the
     * last 512 or so of the 5,000 made-up seqs, which alternate), and every thread with something
     * unread or taken part in.
     */
    @Test
    void threadsKeptOnlyForACursorOrAFollowAreBoundedPerConversation() throws Exception {
        MapState<Tuple2<Long, Long>, ThreadState> threads = aliceState(StateSchema.THREADS);
        MapState<Long, ConversationState> conversations = aliceState(StateSchema.CONVERSATIONS);
        long bare = conversations.get(CHAT).bareThreadCount;
        // The three followed threads were bare between their follow and their reply.
        assertThat(bare)
                .isBetween(
                        ThreadSets.DEFAULT_MAX_BARE_THREADS - 3L,
                        (long) ThreadSets.DEFAULT_MAX_BARE_THREADS);
        List<Long> roots = new ArrayList<>();
        threads.keys().forEach(k -> roots.add(k.f1));
        assertThat(roots)
                .hasSize((int) bare + 3)
                .contains(10L, 11L, 12L, 2_000_000L + MADE_UP)
                .doesNotContain(1_000_001L, 2_000_001L)
                .allMatch(
                        root ->
                                root <= 12
                                        || root % 1_000_000
                                                > MADE_UP
                                                        - ThreadSets.DEFAULT_MAX_BARE_THREADS / 2);
    }

    /**
     * Issue 45, item 3: past the bound, the bare thread touched least recently (its cursor or
     * follow changed longest ago) is forgotten, not the one with the oldest root: a thread read
     * again keeps its cursor, whatever its root.
     */
    @Test
    void theLeastRecentlyTouchedBareThreadIsForgottenFirst() throws Exception {
        long other = CHAT + 1;
        send(ChatEvent.membership(true, ALICE, other, 1));
        for (long root = 1; root <= ThreadSets.DEFAULT_MAX_BARE_THREADS; root++) {
            send(ChatEvent.threadRead(ALICE, other, root, root + 1, 1000 + root));
        }
        // The oldest root, read again last: touched most recently.
        send(ChatEvent.threadRead(ALICE, other, 1, 5, 100_000));
        send(ChatEvent.threadRead(ALICE, other, 1_000_000, 1_000_001, 100_001));

        MapState<Tuple2<Long, Long>, ThreadState> threads = aliceState(StateSchema.THREADS);
        assertThat(threads.contains(Tuple2.of(other, 1L))).isTrue();
        assertThat(threads.contains(Tuple2.of(other, 2L))).as("touched longest ago").isFalse();
        assertThat(threads.contains(Tuple2.of(other, 1_000_000L))).isTrue();

        // Root 1's cursor holds: a reply below it counts for nothing; root 2's is gone.
        harness.getOutput().clear();
        send(ChatEvent.reply(BOB, ALICE, other, 4, 1, 200_000, true));
        send(ChatEvent.reply(BOB, ALICE, other, 3, 2, 200_000, true));
        assertThat(harness.extractOutputValues())
                .contains(UnreadCount.thread(ALICE, Count.THREAD, other, 2, 1))
                .doesNotContain(UnreadCount.thread(ALICE, Count.THREAD, other, 1, 1));
    }

    /**
     * Issue 45, item 3: an ALL_READ visits the conversations and, of their threads, only those with
     * something it may read (unread replies, or kept sentAts), as a deletion does: not the bare
     * threads a user token made up, here 1,024 in each of 20 conversations.
     */
    @Test
    void anAllReadVisitsOnlyTheThreadsWithSomethingToRead() throws Exception {
        int conversations = 20;
        for (long c = 1; c < conversations; c++) {
            for (long t = 1; t <= ThreadSets.DEFAULT_MAX_BARE_THREADS; t++) {
                send(ChatEvent.threadRead(ALICE, CHAT + c, 3_000_000 + t, 3_000_000 + t, 1000));
            }
        }
        harness.getOutput().clear();
        long before = counter.allReadVisits();
        long started = System.nanoTime();
        send(ChatEvent.allRead(ALICE, 5000));
        long tookMicros = (System.nanoTime() - started) / 1000;
        long visits = counter.allReadVisits() - before;
        System.out.printf(
                "ALL_READ over %d conversations, 3 threads with unread replies and %d bare"
                        + " threads: %d state entries read, %d us%n",
                conversations,
                conversations * ThreadSets.DEFAULT_MAX_BARE_THREADS,
                visits,
                tookMicros);
        // Each conversation record, and each of the three threads with its sentAts: 2 entries.
        assertThat(visits).isLessThanOrEqualTo(conversations + 3 * 2L);
        List<UnreadCount> out = harness.extractOutputValues();
        for (long root = 10; root <= 12; root++) {
            assertThat(out).contains(UnreadCount.thread(ALICE, Count.THREAD, CHAT, root, 0));
        }
    }

    /**
     * A conversation record of an earlier build has no set of its threads with unread replies: the
     * first deletion builds it from every thread, once, and finds the reply all the same.
     */
    @Test
    void aRecordOfAnEarlierBuildGetsItsSetOnce() throws Exception {
        asAnEarlierBuildLeftIt();

        harness.getOutput().clear();
        long before = counter.threadsVisited();
        send(ChatEvent.deleted(ALICE, CHAT, 22));
        assertThat(counter.threadsVisited() - before)
                .isGreaterThan(ThreadSets.DEFAULT_MAX_BARE_THREADS);
        assertThat(harness.extractOutputValues())
                .contains(UnreadCount.thread(ALICE, Count.THREAD, CHAT, 12, 0));

        before = counter.threadsVisited();
        send(ChatEvent.deleted(ALICE, CHAT, 20));
        assertThat(counter.threadsVisited() - before).isLessThanOrEqualTo(2);
        MapState<Long, ConversationState> conversations = aliceState(StateSchema.CONVERSATIONS);
        // Pending, all three: 11 with its unread reply, 10 and 12 with the sentAt of a deleted one.
        assertThat(conversations.get(CHAT).unreadThreadCount).isEqualTo(3);
    }

    /**
     * The first deletion on a record of an earlier build builds its sets and stores them, though
     * nothing it shows changes: the reply is in a thread Alice does not follow, below the
     * conversation's cursor. The next deletion visits no more than its own thread.
     */
    @Test
    void aDeletionThatShowsNothingNewStoresTheSetsItBuilt() throws Exception {
        send(ChatEvent.reply(BOB, ALICE, CHAT, 23, 13, 1000, false));
        send(ChatEvent.conversationRead(ALICE, CHAT, 100, 1000));
        asAnEarlierBuildLeftIt();

        send(ChatEvent.deleted(ALICE, CHAT, 23));
        assertThat(aliceState(StateSchema.CONVERSATIONS).get(CHAT).threadsIndexed)
                .isEqualTo(ThreadSets.INDEXED);
        long before = counter.threadsVisited();
        send(ChatEvent.deleted(ALICE, CHAT, 20));
        assertThat(counter.threadsVisited() - before).isLessThanOrEqualTo(2);
    }

    /** Alice's record of the conversation, as a build before its set of pending threads kept it. */
    private void asAnEarlierBuildLeftIt() throws Exception {
        MapState<Long, ConversationState> conversations = aliceState(StateSchema.CONVERSATIONS);
        ConversationState earlier = conversations.get(CHAT);
        earlier.threadsIndexed = 0;
        earlier.unreadThreadCount = 0;
        earlier.unreadThreadSeqs = UnreadSeqs.EMPTY;
        conversations.put(CHAT, earlier);
        // As the restore that brings such a record would: the counter reads its records anew.
        counter.open(DefaultOpenContext.INSTANCE);
    }

    /** Alice's keyed state {@code descriptor}. */
    private <K, V> MapState<K, V> aliceState(MapStateDescriptor<K, V> descriptor) throws Exception {
        var backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(ALICE);
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    private void send(ChatEvent event) throws Exception {
        harness.processElement(event, 0L);
    }
}
