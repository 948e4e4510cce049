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
import org.apache.flink.api.common.state.MapState;
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
     * bounded per conversation: the bare threads with the newest roots, and every thread with
     * something unread or taken part in.
     */
    @Test
    void threadsKeptOnlyForACursorOrAFollowAreBoundedPerConversation() throws Exception {
        var backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(ALICE);
        MapState<Tuple2<Long, Long>, ThreadState> threads =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        StateSchema.THREADS);
        MapState<Long, ConversationState> conversations =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        StateSchema.CONVERSATIONS);
        long bare = conversations.get(CHAT).bareThreadCount;
        // The three followed threads were bare between their follow and their reply.
        assertThat(bare)
                .isBetween(ThreadSets.MAX_BARE_THREADS - 3L, (long) ThreadSets.MAX_BARE_THREADS);
        List<Long> roots = new ArrayList<>();
        threads.keys().forEach(k -> roots.add(k.f1));
        assertThat(roots)
                .hasSize((int) bare + 3)
                .contains(10L, 11L, 12L, 2_000_000L + MADE_UP)
                .doesNotContain(1_000_001L, 2_000_001L)
                .allMatch(
                        root ->
                                root <= 12
                                        || root
                                                > 2_000_000L
                                                        + MADE_UP
                                                        - ThreadSets.MAX_BARE_THREADS);
    }

    /**
     * A conversation record of an earlier build has no set of its threads with unread replies: the
     * first deletion builds it from every thread, once, and finds the reply all the same.
     */
    @Test
    void aRecordOfAnEarlierBuildGetsItsSetOnce() throws Exception {
        var backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(ALICE);
        MapState<Long, ConversationState> conversations =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        StateSchema.CONVERSATIONS);
        ConversationState earlier = conversations.get(CHAT);
        earlier.threadsIndexed = 0;
        earlier.unreadThreadCount = 0;
        earlier.unreadThreadSeqs = UnreadSeqs.EMPTY;
        conversations.put(CHAT, earlier);

        harness.getOutput().clear();
        long before = counter.threadsVisited();
        send(ChatEvent.deleted(ALICE, CHAT, 22));
        assertThat(counter.threadsVisited() - before).isGreaterThan(ThreadSets.MAX_BARE_THREADS);
        assertThat(harness.extractOutputValues())
                .contains(UnreadCount.thread(ALICE, Count.THREAD, CHAT, 12, 0));

        before = counter.threadsVisited();
        send(ChatEvent.deleted(ALICE, CHAT, 20));
        assertThat(counter.threadsVisited() - before).isLessThanOrEqualTo(2);
        backend.setCurrentKey(ALICE);
        assertThat(conversations.get(CHAT).unreadThreadCount).isEqualTo(1);
    }

    private void send(ChatEvent event) throws Exception {
        harness.processElement(event, 0L);
    }
}
