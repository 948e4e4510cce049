package dev.unread.groups;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.counter.UnreadCounter;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.events.UnreadCount;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import dev.unread.testing.EventStreams;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/contract.md, "Threads", what the job keeps per user, in a group of 2,000 members with three
 * busy threads, through the fan-out and the counter: a member's thread state is its unread replies
 * and nothing more unless it takes part (writes, is mentioned, follows or reads), and reading a
 * thread drops its replies. Measured as the state's entries and their serialized bytes, never as
 * time.
 */
class GroupThreadsStateTest {

    private static final long GROUP = 90_001;
    private static final int MEMBERS = 2_000;
    private static final long FIRST_MEMBER = 100_001;
    private static final long[] WRITERS = {FIRST_MEMBER, FIRST_MEMBER + 1, FIRST_MEMBER + 2};
    private static final long MENTIONED = FIRST_MEMBER + 10;
    private static final long FOLLOWER = FIRST_MEMBER + 20;
    private static final long READING_FOLLOWER = FIRST_MEMBER + 21;
    private static final long LURKER = FIRST_MEMBER + 1_000;
    private static final long[] ROOTS = {MEMBERS + 1, MEMBERS + 2, MEMBERS + 3};
    private static final int REPLIES = 60;
    private static final long LAST_SEQ = MEMBERS + 3 + REPLIES;

    /** A thread's entry in its map, with its reply seqs' chunk and level-1 node. */
    private static final int ENTRIES_PER_THREAD = 3;

    /**
     * A thread's entry, and the keys, type bytes and node of its seq sets, serialized: 135 bytes
     * measured with one set (unread replies), 179 with two (and mentions); a little room above.
     */
    private static final long MAX_BYTES_PER_THREAD = 200;

    /** A seq in a chunk's smallest encoding costs at most its 16 low bits (UnreadChunks). */
    private static final long SEQ_BYTES = 2;

    private static long readingFollowerBytesBeforeRead;

    private static KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> counter;

    @BeforeAll
    static void runGroup() throws Exception {
        List<ChatEvent> fannedOut = fanOut(groupRecords());
        counter =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new UnreadCounter()), e -> e.userId, Types.LONG);
        counter.open();
        for (ChatEvent e : fannedOut) {
            counter.processElement(e, 0L);
        }
        // The follows come after the replies they show.
        for (long follower : new long[] {FOLLOWER, READING_FOLLOWER}) {
            counter.processElement(
                    ChatEvent.threadFollowed(follower, GROUP, ROOTS[0], true, EventStreams.T0), 0L);
        }
        readingFollowerBytesBeforeRead = threadBytes(READING_FOLLOWER);
        counter.processElement(
                ChatEvent.threadRead(READING_FOLLOWER, GROUP, ROOTS[0], LAST_SEQ, EventStreams.T0),
                0L);
    }

    @AfterAll
    static void close() throws Exception {
        counter.close();
    }

    /** 2,000 joins, three roots, and 60 replies among them by three writers, some mentioning. */
    private static List<ConversationEvent> groupRecords() {
        List<ConversationEvent> records = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            records.add(ConversationEvent.joined(GROUP, FIRST_MEMBER + i, i + 1));
        }
        for (int t = 0; t < ROOTS.length; t++) {
            records.add(ConversationEvent.message(GROUP, ROOTS[t], WRITERS[t], EventStreams.T0));
        }
        for (int r = 0; r < REPLIES; r++) {
            long seq = ROOTS[ROOTS.length - 1] + 1 + r;
            long[] mentions = r % 10 == 0 ? new long[] {MENTIONED} : new long[0];
            records.add(
                    ConversationEvent.reply(
                            GROUP,
                            seq,
                            ROOTS[r % ROOTS.length],
                            WRITERS[r % WRITERS.length],
                            EventStreams.T0 + r,
                            mentions));
        }
        return records;
    }

    private static List<ChatEvent> fanOut(List<ConversationEvent> records) throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> fanOut =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new GroupFanOut()),
                        e -> e.conversationId,
                        Types.LONG)) {
            fanOut.open();
            for (ConversationEvent e : records) {
                fanOut.processElement(e, 0L);
            }
            return fanOut.extractOutputValues();
        }
    }

    @Test
    void aMemberWhoTakesNoPartKeepsItsUnreadRepliesAndNoOtherFact() throws Exception {
        Map<Tuple2<Long, Long>, ThreadState> threads = threads(LURKER);
        assertThat(threads).hasSize(ROOTS.length);
        for (ThreadState t : threads.values()) {
            assertThat(t.unreadCount).isEqualTo(REPLIES / ROOTS.length);
            assertThat(t.involved).isFalse();
            assertThat(t.following).isZero();
            assertThat(t.cursor).isZero();
            assertThat(t.mentionCount).isZero();
        }
        assertThat(entries(LURKER, StateSchema.INVOLVED.chunks(), StateSchema.INVOLVED.tree()))
                .isZero();
        assertThat(threadEntries(LURKER)).isEqualTo(ROOTS.length * ENTRIES_PER_THREAD);
    }

    @Test
    void everyMembersThreadStateIsBoundedByItsUnreadReplies() throws Exception {
        for (int i = 0; i < MEMBERS; i++) {
            long member = FIRST_MEMBER + i;
            Map<Tuple2<Long, Long>, ThreadState> threads = threads(member);
            long seqs =
                    threads.values().stream().mapToLong(t -> t.unreadCount + t.mentionCount).sum();
            assertThat(threadBytes(member))
                    .as(
                            "member %d: %d threads, %d unread and mention seqs",
                            member, threads.size(), seqs)
                    .isLessThanOrEqualTo(
                            MAX_BYTES_PER_THREAD * threads.size()
                                    + SEQ_BYTES * seqs
                                    + involvedBytes(member));
            assertThat(threads.values())
                    .as("member %d keeps a thread only for unread replies or a fact", member)
                    .allMatch(t -> !t.isEmpty());
        }
    }

    @Test
    void aFollowerKeepsItsUnreadRepliesUntilItReadsTheThread() throws Exception {
        Tuple2<Long, Long> followed = Tuple2.of(GROUP, ROOTS[0]);
        ThreadState kept = threads(FOLLOWER).get(followed);
        assertThat(kept.follows()).isTrue();
        assertThat(kept.unreadCount).isEqualTo(REPLIES / ROOTS.length);

        ThreadState read = threads(READING_FOLLOWER).get(followed);
        assertThat(read.follows()).isTrue();
        assertThat(read.cursor).isEqualTo(LAST_SEQ);
        assertThat(read.unreadCount).isZero();
        // The read thread's replies went with their chunk and node: only its entry is left.
        assertThat(threadEntries(READING_FOLLOWER))
                .isEqualTo(threadEntries(FOLLOWER) - (ENTRIES_PER_THREAD - 1));
        assertThat(threadBytes(READING_FOLLOWER) + SEQ_BYTES * (REPLIES / ROOTS.length))
                .isLessThanOrEqualTo(readingFollowerBytesBeforeRead);
    }

    /** The member's threads, straight from the state backend. */
    private static Map<Tuple2<Long, Long>, ThreadState> threads(long member) throws Exception {
        Map<Tuple2<Long, Long>, ThreadState> threads = new HashMap<>();
        state(member, StateSchema.THREADS)
                .entries()
                .forEach(e -> threads.put(e.getKey(), e.getValue()));
        return threads;
    }

    private static long involvedBytes(long member) throws Exception {
        return bytes(member, StateSchema.INVOLVED.chunks())
                + bytes(member, StateSchema.INVOLVED.tree());
    }

    private static long threadEntries(long member) throws Exception {
        return entries(
                member,
                StateSchema.THREADS,
                StateSchema.THREAD_SEQS.chunks(),
                StateSchema.THREAD_SEQS.tree(),
                StateSchema.INVOLVED.chunks(),
                StateSchema.INVOLVED.tree());
    }

    private static long entries(long member, MapStateDescriptor<?, ?>... descriptors)
            throws Exception {
        long n = 0;
        for (MapStateDescriptor<?, ?> d : descriptors) {
            for (var ignored : state(member, d).keys()) {
                n++;
            }
        }
        return n;
    }

    /** The serialized keys and values of the member's thread state, as RocksDB holds them. */
    private static long threadBytes(long member) throws Exception {
        return bytes(member, StateSchema.THREADS)
                + bytes(member, StateSchema.THREAD_SEQS.chunks())
                + bytes(member, StateSchema.THREAD_SEQS.tree())
                + involvedBytes(member);
    }

    private static <K, V> long bytes(long member, MapStateDescriptor<K, V> d) throws Exception {
        TypeSerializer<K> keys = d.getKeySerializer();
        TypeSerializer<V> values = d.getValueSerializer();
        DataOutputSerializer out = new DataOutputSerializer(64);
        for (Map.Entry<K, V> e : state(member, d).entries()) {
            keys.serialize(e.getKey(), out);
            values.serialize(e.getValue(), out);
        }
        return out.length();
    }

    private static <K, V> MapState<K, V> state(long member, MapStateDescriptor<K, V> d)
            throws Exception {
        var backend = counter.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(member);
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, d);
    }
}
