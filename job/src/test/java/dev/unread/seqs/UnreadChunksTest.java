package dev.unread.seqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.counter.ConversationSeqs;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.testing.CounterOnRocksDb;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/** The chunked unread seqs against a TreeSet, in the production state backend. */
class UnreadChunksTest {

    /** Fixed seeds reproduce past runs; the fresh one explores, and is printed when it fails. */
    private static final long[] SEEDS = {1L, 20260101L, 0x5EED5L, System.nanoTime()};

    private static final long CHUNK = 1 << 16;

    /** What one message may read and write: one chunk as a bitmap, twice, and a few small. */
    private static final long BYTES_PER_MESSAGE = 2 * UnreadChunks.MAX_CHUNK_BYTES + 64;

    /** Enough chunks that a structure linear in them exceeds the bound many times over. */
    private static final int SPREAD_MESSAGES = 6_000;

    private CounterOnRocksDb counter;
    private MapState<Tuple2<Long, Long>, byte[]> chunks;
    private MapState<Tuple2<Long, Long>, byte[]> tree;
    private MapState<Long, long[]> flatIndex;
    private UnreadChunks seqs;

    @BeforeEach
    void open() throws Exception {
        counter = CounterOnRocksDb.open();
        chunks = counter.state(StateSchema.UNREAD.chunks());
        tree = counter.state(StateSchema.UNREAD.tree());
        flatIndex = counter.state(StateSchema.UNREAD.flatIndex());
        seqs = new UnreadChunks(chunks, tree, flatIndex);
    }

    /** Adds to a conversation's set in chunks, keeping its count as ConversationSeqs does. */
    private boolean add(long conversation, ConversationState state, long seq) throws Exception {
        if (!seqs.addSeq(conversation, seq)) {
            return false;
        }
        state.unreadCount++;
        return true;
    }

    /** Removes up to the cursor from a conversation's set in chunks, keeping its count. */
    private long removeUpTo(long conversation, ConversationState state, long cursor)
            throws Exception {
        long removed = seqs.removeSeqsUpTo(conversation, state.unreadCount, cursor);
        state.unreadCount -= removed;
        return removed;
    }

    @AfterEach
    void close() throws Exception {
        counter.close();
    }

    @Test
    void randomEditsOfTwoConversationsMatchTreeSets() throws Exception {
        for (long seed : SEEDS) {
            try {
                randomEdits(seed);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(
                        "UnreadChunksTest seed " + seed + ": " + e.getMessage(), e);
            }
        }
    }

    private void randomEdits(long seed) throws Exception {
        Random random = new Random(seed);
        ConversationState[] states = {new ConversationState(), new ConversationState()};
        TreeSet<Long>[] oracles = new TreeSet[] {new TreeSet<Long>(), new TreeSet<Long>()};
        for (int step = 0; step < 20_000; step++) {
            int c = random.nextInt(2);
            long conversation = seed * 2 + c;
            TreeSet<Long> oracle = oracles[c];
            int op = random.nextInt(100);
            if (op < 88) {
                long seq = nextSeq(random, oracle);
                assertThat(add(conversation, states[c], seq))
                        .as("step %d add %d", step, seq)
                        .isEqualTo(oracle.add(seq));
            } else if (op < 97) {
                long cursor = nextCursor(random, oracle);
                int before = oracle.size();
                oracle.headSet(cursor, true).clear();
                assertThat(removeUpTo(conversation, states[c], cursor))
                        .as("step %d removeUpTo %d", step, cursor)
                        .isEqualTo(before - oracle.size());
            } else {
                assertStored(conversation, oracle);
            }
            assertThat(states[c].unreadCount).as("step %d count", step).isEqualTo(oracle.size());
        }
        for (int c = 0; c < 2; c++) {
            assertStored(seed * 2 + c, oracles[c]);
            removeUpTo(seed * 2 + c, states[c], Long.MAX_VALUE);
            assertStored(seed * 2 + c, new TreeSet<>());
        }
    }

    /** Dense runs, alternation, gaps, chunk edges and the largest seqs, like real and hostile. */
    private static long nextSeq(Random random, TreeSet<Long> oracle) {
        // Kept below the largest seq, so the steps past it stay positive.
        long last = oracle.isEmpty() ? 1 : Math.min(Long.MAX_VALUE - 2, oracle.last());
        switch (random.nextInt(7)) {
            case 0:
                return last + 1;
            case 1:
                return last + 2;
            case 2:
                return Math.max(1, random.nextInt(8) * CHUNK + random.nextInt(3) - 1);
            case 3:
                return Long.MAX_VALUE - random.nextInt(3);
            case 4:
                return 1 + random.nextInt((int) (5 * CHUNK));
            case 5:
                {
                    long first = oracle.isEmpty() ? 1 : oracle.first();
                    return first + random.nextInt((int) Math.min(40, Long.MAX_VALUE - first + 1));
                }
            default:
                return Math.max(1, last + 1 - random.nextInt(8000));
        }
    }

    private static long nextCursor(Random random, TreeSet<Long> oracle) {
        if (oracle.isEmpty() || random.nextInt(10) == 0) {
            return random.nextBoolean() ? Long.MAX_VALUE : random.nextInt((int) (5 * CHUNK));
        }
        long first = oracle.first();
        return first + random.nextInt((int) Math.min(3 * CHUNK, Long.MAX_VALUE - first + 1));
    }

    /**
     * The tree holds exactly the nodes the oracle's chunks call for, each chunk and node stored in
     * the smallest of the encodings a Roaring container has, plus its type byte: so never larger
     * than Roaring's. Chunks all below 2^16 call for level-1 node 0 alone (a short tree), others
     * for all three levels. No flat index is left.
     */
    private void assertStored(long conversation, TreeSet<Long> oracle) throws Exception {
        TreeMap<Long, TreeSet<Integer>> byChunk = new TreeMap<>();
        for (long seq : oracle) {
            byChunk.computeIfAbsent(seq >>> 16, k -> new TreeSet<>()).add((int) (seq & 0xFFFF));
        }
        int levels = !byChunk.isEmpty() && byChunk.lastKey() >= CHUNK ? 3 : 1;
        Map<Tuple2<Long, Long>, TreeSet<Integer>> nodes = new HashMap<>();
        for (long chunk : byChunk.keySet()) {
            for (int level = 1; level <= levels; level++) {
                nodes.computeIfAbsent(
                                ChunkStore.nodeKey(conversation, level, chunk >>> 16 * level),
                                k -> new TreeSet<>())
                        .add((int) (chunk >>> 16 * (level - 1) & 0xFFFF));
            }
        }
        Map<Tuple2<Long, Long>, TreeSet<Integer>> stored = new HashMap<>();
        for (Map.Entry<Tuple2<Long, Long>, byte[]> node : tree.entries()) {
            if (node.getKey().f0 == conversation) {
                TreeSet<Integer> values = new TreeSet<>();
                for (int value : UnreadChunks.values(node.getValue())) {
                    values.add(value);
                }
                stored.put(node.getKey(), values);
                assertThat(node.getValue())
                        .as("node %s", node.getKey())
                        .hasSize(1 + smallest(values));
            }
        }
        assertThat(stored).isEqualTo(nodes);
        assertThat(flatIndex.get(conversation)).isNull();
        for (Map.Entry<Long, TreeSet<Integer>> chunk : byChunk.entrySet()) {
            assertThat(chunks.get(Tuple2.of(conversation, chunk.getKey())))
                    .as("chunk %d", chunk.getKey())
                    .hasSize(1 + smallest(chunk.getValue()));
        }
        for (Map.Entry<Tuple2<Long, Long>, byte[]> chunk : chunks.entries()) {
            if (chunk.getKey().f0 == conversation) {
                assertThat(byChunk).containsKey(chunk.getKey().f1);
            }
        }
    }

    /** The bytes of the smallest of array, bitmap and runs for a set of 16-bit values. */
    private static int smallest(TreeSet<Integer> values) {
        int runs = 0;
        int previous = -2;
        for (int low : values) {
            if (low != previous + 1) {
                runs++;
            }
            previous = low;
        }
        return Math.min(8192, Math.min(2 * values.size(), 4 * runs));
    }

    /**
     * Issue 17 (item 6): seqs spread one per chunk, so that each message opens a new chunk (one,
     * two and 2^16 chunks apart, and one per 2^48 seqs), then read one at a time. Each message and
     * each read touches at most one chunk's worth of stored bytes, read and written, however many
     * chunks the conversation has.
     */
    @Test
    void seqsSpreadOnePerChunkCostBoundedBytesPerMessageAndPerRead() throws Exception {
        for (long stride : new long[] {CHUNK, 2 * CHUNK, CHUNK << 16, CHUNK << 32}) {
            ConversationState state = new ConversationState();
            TreeSet<Long> oracle = new TreeSet<>();
            long mostPerMessage = 0;
            for (int i = 0; i < SPREAD_MESSAGES; i++) {
                long before = seqs.bytesTouched();
                long seq = 1 + i * stride;
                assertThat(add(stride, state, seq)).as("add %d", seq).isTrue();
                oracle.add(seq);
                mostPerMessage = Math.max(mostPerMessage, seqs.bytesTouched() - before);
            }
            assertThat(mostPerMessage)
                    .as("bytes touched by one message, seqs %d apart", stride)
                    .isLessThanOrEqualTo(BYTES_PER_MESSAGE);
            assertStored(stride, oracle);
            long mostPerRead = 0;
            for (int i = 0; i < SPREAD_MESSAGES; i++) {
                long before = seqs.bytesTouched();
                assertThat(removeUpTo(stride, state, 1 + i * stride)).isEqualTo(1);
                mostPerRead = Math.max(mostPerRead, seqs.bytesTouched() - before);
            }
            assertThat(mostPerRead)
                    .as("bytes touched by one read, seqs %d apart", stride)
                    .isLessThanOrEqualTo(BYTES_PER_MESSAGE);
            assertThat(state.unreadCount).isZero();
            assertStored(stride, new TreeSet<>());
        }
    }

    /**
     * A typical conversation, a few seqs below 2^32 in a few chunks, stores one index entry (its
     * short tree, level-1 node 0), as the flat index of earlier builds did; its first seq at or
     * above 2^32 makes the tree tall, and reading past it leaves no entry.
     */
    @Test
    void aConversationWithSeqsBelow2To32StoresOneIndexEntry() throws Exception {
        ConversationState state = new ConversationState();
        TreeSet<Long> oracle = new TreeSet<>();
        for (long seq : new long[] {3, 4, 70_000, 5 * CHUNK + 9, (CHUNK << 16) - 1}) {
            assertThat(add(11, state, seq)).isTrue();
            oracle.add(seq);
            assertThat(treeEntries(11)).as("after %d", seq).hasSize(1);
        }
        assertThat(tree.get(ChunkStore.nodeKey(11, 1, 0))).isNotNull();
        assertStored(11, oracle);

        long tall = CHUNK << 16;
        assertThat(add(11, state, tall)).isTrue();
        oracle.add(tall);
        // Level-1 nodes 0 and 1, level-2 node 0, the root.
        assertThat(treeEntries(11)).hasSize(4);
        assertStored(11, oracle);
        assertThat(removeUpTo(11, state, 70_000)).isEqualTo(3);
        oracle.headSet(70_000L, true).clear();
        assertStored(11, oracle);
        assertThat(removeUpTo(11, state, tall)).isEqualTo(3);
        assertThat(treeEntries(11)).isEmpty();
        assertStored(11, new TreeSet<>());
    }

    private List<Tuple2<Long, Long>> treeEntries(long conversation) throws Exception {
        List<Tuple2<Long, Long>> keys = new ArrayList<>();
        for (Tuple2<Long, Long> key : tree.keys()) {
            if (key.f0 == conversation) {
                keys.add(key);
            }
        }
        return keys;
    }

    /** Chunks filled densely pass from array to bitmap to runs, each edit against a TreeSet. */
    @Test
    void denseChunksGoThroughEveryEncoding() throws Exception {
        Random random = new Random(99);
        ConversationState state = new ConversationState();
        TreeSet<Long> oracle = new TreeSet<>();
        for (int step = 0; step < 60_000; step++) {
            long seq =
                    switch (random.nextInt(3)) {
                        case 0 -> 1 + random.nextInt((int) CHUNK - 1);
                        case 1 -> CHUNK + 2 * random.nextInt((int) CHUNK / 2) + 1;
                        default -> 2 * CHUNK + random.nextInt(100) * 600 + random.nextInt(400);
                    };
            assertThat(add(7, state, seq))
                    .as("step %d add %d", step, seq)
                    .isEqualTo(oracle.add(seq));
            if (step % 5_000 == 0) {
                assertStored(7, oracle);
            }
        }
        assertStored(7, oracle);
        for (long seq = 1; seq < 3 * CHUNK; seq++) {
            assertThat(add(7, state, seq)).as("fill %d", seq).isEqualTo(oracle.add(seq));
        }
        assertStored(7, oracle);
        long cursor = CHUNK + 12_345;
        int before = oracle.size();
        oracle.headSet(cursor, true).clear();
        assertThat(removeUpTo(7, state, cursor)).isEqualTo(before - oracle.size());
        assertThat(state.unreadCount).isEqualTo(oracle.size());
        assertStored(7, oracle);
    }

    @Test
    void setsOfEarlierBuildsAreUpgradedOnFirstTouch() throws Exception {
        Random random = new Random(17);
        ConversationSeqs unread = new ConversationSeqs(seqs, ConversationSeqs.Field.UNREAD);
        for (int i = 0; i < 60; i++) {
            TreeSet<Long> oracle = new TreeSet<>();
            Roaring64NavigableMap roaring = new Roaring64NavigableMap();
            UnreadSeqs runs = UnreadSeqs.of(UnreadSeqs.EMPTY);
            int n = random.nextInt(300);
            for (int j = 0; j < n; j++) {
                long seq = nextSeq(random, oracle);
                oracle.add(seq);
                roaring.addLong(seq);
                runs.add(seq);
            }
            if (random.nextBoolean()) {
                long start = 1 + random.nextInt(1 << 20);
                long length = random.nextInt(100_000);
                roaring.addRange(start, start + length);
                for (long seq = start; seq < start + length; seq++) {
                    oracle.add(seq);
                    runs.add(seq);
                }
            }
            ConversationState state = new ConversationState();
            state.unreadSeqs = random.nextBoolean() ? runs.toBytes() : portable(roaring);
            assertThat(ConversationSeqs.count(state)).isEqualTo(oracle.size());
            assertThat(unread.upgrade(i, state)).isEqualTo(!oracle.isEmpty());
            assertThat(unread.upgrade(i, state)).isFalse();
            assertThat(!Arrays.equals(state.unreadSeqs, UnreadSeqs.EMPTY))
                    .as("in the record")
                    .isEqualTo(!oracle.isEmpty() && oracle.size() <= ConversationSeqs.SMALL);
            assertSet(unread, i, state, oracle);
            for (long seq : oracle) {
                if (random.nextInt(100) == 0) {
                    assertThat(unread.add(i, state, seq)).as("%d kept", seq).isFalse();
                }
            }
            long cursor = nextCursor(random, oracle);
            int before = oracle.size();
            oracle.headSet(cursor, true).clear();
            assertThat(unread.removeUpTo(i, state, cursor)).isEqualTo(before - oracle.size());
            assertSet(unread, i, state, oracle);
        }
    }

    /** The set holds the oracle's seqs, in the record or else in chunks. */
    private void assertSet(
            ConversationSeqs set, long conversation, ConversationState state, TreeSet<Long> oracle)
            throws Exception {
        assertThat(state.unreadCount).isEqualTo(oracle.size());
        boolean inRecord = !Arrays.equals(state.unreadSeqs, UnreadSeqs.EMPTY);
        assertStored(conversation, inRecord ? new TreeSet<>() : oracle);
        for (long seq : oracle) {
            assertThat(set.contains(conversation, state, seq)).as("holds %d", seq).isTrue();
        }
    }

    /**
     * Chunks indexed by the flat index of earlier builds (the sorted chunk indices as one long[])
     * keep their seqs and counts: a message into an existing chunk leaves the index as it is, the
     * first message that opens a chunk or the first read moves it into the tree and removes it.
     * Random sets, then random edits against a TreeSet.
     */
    @Test
    void flatIndicesOfEarlierBuildsMoveIntoTheTreeOnFirstTouch() throws Exception {
        Random random = new Random(23);
        for (long conversation = 0; conversation < 90; conversation++) {
            TreeSet<Long> oracle = new TreeSet<>();
            ConversationState state = new ConversationState();
            int n = 1 + random.nextInt(300);
            while (oracle.size() < n) {
                long seq = nextSeq(random, oracle);
                add(conversation, state, seq);
                oracle.add(seq);
            }
            writeFlatIndex(conversation);

            // The same chunk as the first seq: the lowest bit flipped.
            long near = oracle.first() == 1 ? 2 : oracle.first() ^ 1;
            assertThat(add(conversation, state, near)).isEqualTo(oracle.add(near));
            assertThat(flatIndex.get(conversation)).as("no chunk opened").isNotNull();
            if (conversation % 2 == 0) {
                long seq = nextSeq(random, oracle);
                assertThat(add(conversation, state, seq)).isEqualTo(oracle.add(seq));
            } else {
                long cursor = nextCursor(random, oracle);
                int before = oracle.size();
                oracle.headSet(cursor, true).clear();
                assertThat(removeUpTo(conversation, state, cursor))
                        .isEqualTo(before - oracle.size());
            }
            if (flatIndex.get(conversation) != null) {
                // The seq landed in a chunk that was there: the next new chunk moves the index.
                long chunk = 0;
                while (!oracle.subSet(chunk * CHUNK, (chunk + 1) * CHUNK).isEmpty()) {
                    chunk++;
                }
                long seq = chunk * CHUNK + 1;
                assertThat(add(conversation, state, seq)).isTrue();
                oracle.add(seq);
            }
            assertThat(state.unreadCount).isEqualTo(oracle.size());
            assertStored(conversation, oracle);
            for (int step = 0; step < 50; step++) {
                if (random.nextInt(4) > 0) {
                    long seq = nextSeq(random, oracle);
                    assertThat(add(conversation, state, seq)).isEqualTo(oracle.add(seq));
                } else {
                    long cursor = nextCursor(random, oracle);
                    int before = oracle.size();
                    oracle.headSet(cursor, true).clear();
                    assertThat(removeUpTo(conversation, state, cursor))
                            .isEqualTo(before - oracle.size());
                }
                assertThat(state.unreadCount).isEqualTo(oracle.size());
            }
            assertStored(conversation, oracle);
        }
    }

    /**
     * A flat index moved by a message whose new chunk shares a level-2 node (or only the root) with
     * the moved chunks: the moved tree holds the new chunk's path too.
     */
    @Test
    void aFlatIndexMovedByAChunkBeyond2To16KeepsThatChunksPath() throws Exception {
        for (long seq : new long[] {CHUNK << 16, Long.MAX_VALUE}) {
            ConversationState state = new ConversationState();
            TreeSet<Long> oracle = new TreeSet<>(List.of(5L, 3 * CHUNK));
            for (long old : oracle) {
                add(seq, state, old);
            }
            writeFlatIndex(seq);
            assertThat(add(seq, state, seq)).isTrue();
            oracle.add(seq);
            assertStored(seq, oracle);
        }
    }

    /** Puts a conversation's index in the flat form of earlier builds: its chunks stay. */
    private void writeFlatIndex(long conversation) throws Exception {
        TreeSet<Long> indices = new TreeSet<>();
        for (Tuple2<Long, Long> chunk : chunks.keys()) {
            if (chunk.f0 == conversation) {
                indices.add(chunk.f1);
            }
        }
        List<Tuple2<Long, Long>> nodes = new ArrayList<>();
        for (Tuple2<Long, Long> node : tree.keys()) {
            if (node.f0 == conversation) {
                nodes.add(node);
            }
        }
        for (Tuple2<Long, Long> node : nodes) {
            tree.remove(node);
        }
        flatIndex.put(conversation, indices.stream().mapToLong(Long::longValue).toArray());
    }

    private static byte[] portable(Roaring64NavigableMap map) throws IOException {
        map.runOptimize();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        map.serializePortable(new DataOutputStream(out));
        return out.toByteArray();
    }
}
