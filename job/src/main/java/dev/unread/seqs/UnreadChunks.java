package dev.unread.seqs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.LongConsumer;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * The unread seqs of a user's conversations, split into chunks of 2^16 consecutive seqs and found
 * through a radix tree of the chunks' indices, so that whatever the pattern of seqs a message reads
 * and rewrites at most one stored entry of at most 8 KiB (its chunk, or the index node that gains
 * its new chunk), reads at most one more (level-1 node 0, when it promotes a short tree) and writes
 * at most five new ones of 3 bytes: neither the set nor its index is ever copied whole. Public for
 * the savepoint tools (dev.unread.ops), which read the counts and write sets.
 *
 * <p>A chunk is one entry of {@code StateSchema#UNREAD}, keyed by (conversation, seq {@code >>>
 * 16}), holding the low 16 bits of its seqs as the smallest of three encodings, as a Roaring
 * bitmap's container does: a type byte, then a sorted array of 16-bit values (2 bytes per seq), or
 * a bitmap (8,192 bytes), or runs (4 bytes per run: first and last). So a chunk is at most {@link
 * #MAX_CHUNK_BYTES}, and never larger than Roaring's container for the same seqs plus one byte.
 * Empty chunks are not stored.
 *
 * <p>{@code StateSchema#UNREAD} indexes a conversation's chunks, so that a read finds the chunks at
 * or below its cursor without probing the empty index range between them (a seq of {@code
 * Long.MAX_VALUE} is chunk 2^47 - 1). A chunk index c (47 bits) is split into 16-bit parts, each a
 * node in the chunks' own encoding: the level-1 node keyed by {@code c >>> 16} holds {@code c &
 * 0xFFFF} of each of its chunks, the level-2 node keyed by {@code c >>> 32} holds {@code (c >>> 16)
 * & 0xFFFF} of each of its level-1 nodes, and one root per conversation holds {@code c >>> 32} of
 * each level-2 node. Every node is thus at most {@link #MAX_CHUNK_BYTES} and no larger than a
 * Roaring container of its values plus one byte. A conversation whose chunks all are below 2^16
 * (its seqs below 2^32, the common case) has a short tree: level-1 node 0 alone, no level-2 node
 * and no root, so one stored entry indexes it as one flat index did. The root marks a tall tree;
 * the first chunk at or above 2^16 promotes a short tree, giving node 0 its level-2 node and the
 * root (3 bytes each). Reads remove seqs from the lowest up, so a tall tree keeps a chunk at or
 * above 2^16 until it empties: the form is always the one its chunks call for. Adding a seq edits
 * its chunk; only when the chunk is new does it add to the level-1 node, and goes up only while the
 * node is new: at most one stored entry is read and rewritten (and node 0 read when a tree has no
 * root), and new ones are 3 bytes. A read walks the path from the top (the root, or node 0) to the
 * chunk of its cursor and deletes whole subtrees below it, which costs what creating them cost.
 *
 * <p>The caller keeps each set's count; a conversation's sets are here only once they outgrow its
 * record ({@code ConversationSeqs}). States written by earlier builds may hold the chunks with a
 * flat index, the sorted chunk indices as one {@code long[]} in {@code unread-chunk-index}, which
 * the first message that opens a chunk or the first read moves into the tree (a one-time cost
 * linear in the number of chunks) and removes. Such an index is looked for only when there is no
 * tree: neither a root nor level-1 node 0.
 */
public final class UnreadChunks {

    /** A chunk holds the seqs whose bits above these are its index; a node as many of an index. */
    public static final int CHUNK_BITS = 16;

    /** The tree's levels above the chunks: 3 × 16 bits hold the 47 bits of a chunk's index. */
    private static final int LEVELS = 3;

    private static final int WORDS = (1 << CHUNK_BITS) / Long.SIZE;

    private static final byte ARRAY = 0;
    private static final byte BITMAP = 1;
    private static final byte RUNS = 2;

    /** The largest chunk or node: the type byte and a bitmap. */
    public static final int MAX_CHUNK_BYTES = 1 + WORDS * Long.BYTES;

    private final MapState<Tuple2<Long, Long>, byte[]> chunks;
    private final MapState<Tuple2<Long, Long>, byte[]> tree;
    private final MapState<Long, long[]> flatIndex;

    /** The chunk or node being edited, one bit per value. */
    private final long[] words = new long[WORDS];

    private long bytesTouched;

    /**
     * Over the given states: the chunks, the tree of their indices, and the flat index of earlier
     * builds, read only to move it into the tree (null for a set no earlier build wrote).
     */
    public UnreadChunks(
            MapState<Tuple2<Long, Long>, byte[]> chunks,
            MapState<Tuple2<Long, Long>, byte[]> tree,
            MapState<Long, long[]> flatIndex) {
        this.chunks = chunks;
        this.tree = tree;
        this.flatIndex = flatIndex;
    }

    /**
     * Adds the seqs of runs (ascending, each run's first and last seq one after the other, as
     * {@link UnreadSeqs} gives them) to the set whose count the caller keeps. Reads and writes each
     * chunk the runs touch once, and links the new ones.
     */
    public void addAll(long id, long[] runs) throws Exception {
        bytesTouched += (long) Long.BYTES * runs.length;
        long chunk = -1;
        byte[] before = null;
        for (int r = 0; r < runs.length; r += 2) {
            long first = runs[r];
            long last = runs[r + 1];
            if (first < 1) {
                throw new IllegalArgumentException("seqs are positive: " + first);
            }
            while (true) {
                long c = first >>> CHUNK_BITS;
                long end = Math.min(last, c << CHUNK_BITS | (1 << CHUNK_BITS) - 1);
                if (c != chunk) {
                    if (chunk >= 0) {
                        store(id, chunk, before);
                    }
                    chunk = c;
                    before = get(chunks, Tuple2.of(id, c));
                    if (before == null) {
                        Arrays.fill(words, 0);
                    } else {
                        decode(before);
                    }
                }
                setRange(low(first), low(end));
                if (end == last) {
                    break;
                }
                first = end + 1;
            }
        }
        if (chunk >= 0) {
            store(id, chunk, before);
        }
    }

    /** Writes the chunk being edited, linking it when it is new ({@code before} null). */
    private void store(long id, long chunk, byte[] before) throws Exception {
        put(id, chunk, encode());
        if (before == null) {
            link(id, chunk);
        }
    }

    /**
     * Adds a seq to the set whose count the caller keeps (the mentions' set, see {@code
     * mention-chunks}); false when it was already there.
     *
     * @throws IllegalArgumentException when seq is not positive
     */
    public boolean addSeq(long conversationId, long seq) throws Exception {
        if (seq < 1) {
            throw new IllegalArgumentException("seqs are positive: " + seq);
        }
        long chunk = seq >>> CHUNK_BITS;
        Tuple2<Long, Long> key = Tuple2.of(conversationId, chunk);
        byte[] bytes = get(chunks, key);
        byte[] edited = with(bytes, low(seq));
        if (edited == bytes) {
            return false;
        }
        put(chunks, key, edited);
        if (bytes == null) {
            link(conversationId, chunk);
        }
        return true;
    }

    /** Whether the set whose count the caller keeps holds {@code seq}: one chunk read. */
    public boolean containsSeq(long conversationId, long seq) throws Exception {
        byte[] bytes = get(chunks, Tuple2.of(conversationId, seq >>> CHUNK_BITS));
        return bytes != null && contains(bytes, low(seq));
    }

    /**
     * Removes one seq from the set whose count the caller keeps; false when it was not there. Reads
     * and writes one chunk; when that empties it, takes the chunk out of the tree too.
     */
    public boolean removeSeq(long conversationId, long seq) throws Exception {
        long chunk = seq >>> CHUNK_BITS;
        Tuple2<Long, Long> key = Tuple2.of(conversationId, chunk);
        byte[] bytes = get(chunks, key);
        int low = low(seq);
        if (bytes == null || !contains(bytes, low)) {
            return false;
        }
        decode(bytes);
        words[low >>> 6] &= ~(1L << low);
        byte[] rest = encode();
        if (rest != null) {
            put(chunks, key, rest);
            return true;
        }
        chunks.remove(key);
        unlink(conversationId, chunk);
        return true;
    }

    /**
     * Takes an emptied chunk out of the tree: out of its level-1 node, and out of the node above
     * only when that one emptied too. A chunk with no level-1 node is in a flat index of an earlier
     * build, which is moved into the tree first.
     */
    private void unlink(long conversationId, long chunk) throws Exception {
        for (int level = 1; level <= LEVELS; level++) {
            Tuple2<Long, Long> key = nodeKey(conversationId, level, chunk >>> level * CHUNK_BITS);
            byte[] node = get(tree, key);
            if (node == null) {
                if (level == 1 && moveFlatIndex(conversationId)) {
                    unlink(conversationId, chunk);
                }
                // Above a short tree's only node there is nothing.
                return;
            }
            decode(node);
            int slot = slot(level, chunk);
            words[slot >>> 6] &= ~(1L << slot);
            byte[] rest = encode();
            if (rest != null) {
                put(tree, key, rest);
                return;
            }
            tree.remove(key);
        }
    }

    /**
     * Adds a new chunk to the tree: to its level-1 node, and to the level above only when that node
     * is new. A tree with no root is short (level-1 node 0 alone) or none: then a chunk below 2^16
     * goes into node 0 only; a chunk above it first promotes a short tree, giving node 0 its path
     * (level-2 node 0 and the root, 3 bytes each); and when there is no tree, a flat index of an
     * earlier build is moved into one first. Reads the nodes from the chunk up to the first that
     * exists (node 0 too when there is no root) and rewrites only that one.
     */
    private void link(long conversationId, long chunk) throws Exception {
        // nodes[level]: the node above the chunk at that level, read up to the first that exists.
        byte[][] nodes = new byte[LEVELS + 1][];
        int top = 1;
        for (; top <= LEVELS; top++) {
            nodes[top] = get(tree, nodeKey(conversationId, top, chunk >>> top * CHUNK_BITS));
            if (nodes[top] != null) {
                break;
            }
        }
        if (top > LEVELS) {
            boolean fitsShort = chunk >>> CHUNK_BITS == 0;
            byte[] shortTree = fitsShort ? null : get(tree, shortTreeKey(conversationId));
            if (shortTree == null && moveFlatIndex(conversationId)) {
                link(conversationId, chunk);
                return;
            }
            if (fitsShort) {
                put(tree, shortTreeKey(conversationId), with(null, slot(1, chunk)));
                return;
            }
            if (shortTree != null) {
                put(tree, nodeKey(conversationId, 2, 0), with(null, 0));
                put(tree, nodeKey(conversationId, LEVELS, 0), with(null, 0));
                link(conversationId, chunk);
                return;
            }
            top = LEVELS;
        }
        for (int level = 1; level <= top; level++) {
            put(
                    tree,
                    nodeKey(conversationId, level, chunk >>> level * CHUNK_BITS),
                    with(nodes[level], slot(level, chunk)));
        }
    }

    /**
     * Removes every seq up to and including {@code cursor} from the set of {@code count} seqs whose
     * count the caller keeps; returns how many. Reads the path of nodes from the top of the tree
     * (the root, or level-1 node 0 of a short tree) to the chunk the cursor falls in, rewrites
     * those and the chunk, and deletes the subtrees wholly below it (reading their chunks only to
     * count them when some seqs stay beyond the cursor's chunk).
     */
    public long removeSeqsUpTo(long conversationId, long count, long cursor) throws Exception {
        if (count == 0) {
            return 0;
        }
        long last = cursor >>> CHUNK_BITS;
        // The top of the tree: the root, or level-1 node 0 of a short tree.
        int top = LEVELS;
        byte[] topNode = get(tree, nodeKey(conversationId, LEVELS, 0));
        if (topNode == null) {
            top = 1;
            topNode = get(tree, shortTreeKey(conversationId));
            if (topNode == null) {
                return moveFlatIndex(conversationId)
                        ? removeSeqsUpTo(conversationId, count, cursor)
                        : count;
            }
            if (last >>> CHUNK_BITS != 0) {
                // Beyond every chunk a short tree can hold.
                deleteSubtree(conversationId, 1, 0, false);
                return count;
            }
        }
        // path[level]: the node of that level above chunk `last`, path[0] the chunk; null below
        // the first node that lacks the next, and above the top.
        byte[][] path = new byte[LEVELS + 1][];
        path[top] = topNode;
        // Whether some chunk lies beyond chunk `last`: if not, what stays is in that chunk.
        boolean beyond = false;
        for (int level = top; level > 0 && path[level] != null; level--) {
            int slot = slot(level, last);
            beyond |= max(path[level]) > slot;
            if (contains(path[level], slot)) {
                path[level - 1] =
                        level == 1
                                ? get(chunks, Tuple2.of(conversationId, last))
                                : get(
                                        tree,
                                        nodeKey(
                                                conversationId,
                                                level - 1,
                                                last >>> (level - 1) * CHUNK_BITS));
            }
        }
        long removed = 0;
        for (int level = top; level > 0; level--) {
            if (path[level] == null) {
                continue;
            }
            int slot = slot(level, last);
            long prefix = last >>> level * CHUNK_BITS;
            for (int value : values(path[level])) {
                if (value >= slot) {
                    break;
                }
                removed +=
                        deleteSubtree(
                                conversationId, level - 1, prefix << CHUNK_BITS | value, beyond);
            }
        }
        long kept = 0;
        boolean childGone = true;
        if (path[0] != null) {
            Tuple2<Long, Long> key = Tuple2.of(conversationId, last);
            decode(path[0]);
            long here = clearUpTo(low(cursor));
            removed += here;
            kept = cardinality(path[0]) - here;
            if (kept == 0) {
                chunks.remove(key);
            } else {
                childGone = false;
                if (here > 0) {
                    put(chunks, key, encode());
                }
            }
        }
        for (int level = 1; level <= top; level++) {
            if (path[level] == null) {
                continue;
            }
            // The values below the path's, and the path's own when its child emptied.
            int upTo = slot(level, last) - (childGone ? 0 : 1);
            decode(path[level]);
            if (upTo >= 0 && clearUpTo(upTo) > 0) {
                Tuple2<Long, Long> key =
                        nodeKey(conversationId, level, last >>> level * CHUNK_BITS);
                byte[] rest = encode();
                if (rest == null) {
                    tree.remove(key);
                    childGone = true;
                    continue;
                }
                put(tree, key, rest);
            }
            childGone = false;
        }
        return beyond ? removed : count - kept;
    }

    /**
     * Calls {@code visit} with every seq of the set, ascending: reads every node and chunk of it,
     * so a caller walks only sets it keeps small (the threads with unread replies, say).
     */
    public void forEachSeq(long conversationId, LongConsumer visit) throws Exception {
        if (get(tree, nodeKey(conversationId, LEVELS, 0)) != null) {
            visit(conversationId, LEVELS, 0, visit);
        } else if (get(tree, shortTreeKey(conversationId)) != null) {
            visit(conversationId, 1, 0, visit);
        }
    }

    private void visit(long conversationId, int level, long prefix, LongConsumer visit)
            throws Exception {
        if (level == 0) {
            for (int value : values(get(chunks, Tuple2.of(conversationId, prefix)))) {
                visit.accept(prefix << CHUNK_BITS | value);
            }
            return;
        }
        for (int value : values(get(tree, nodeKey(conversationId, level, prefix)))) {
            visit(conversationId, level - 1, prefix << CHUNK_BITS | value, visit);
        }
    }

    /**
     * Deletes the node of a level (0: the chunk) with the given prefix and everything below it;
     * returns the number of seqs deleted when {@code counting}, else 0 (the chunks are not read).
     */
    private long deleteSubtree(long conversationId, int level, long prefix, boolean counting)
            throws Exception {
        if (level == 0) {
            Tuple2<Long, Long> key = Tuple2.of(conversationId, prefix);
            long n = counting ? cardinality(get(chunks, key)) : 0;
            chunks.remove(key);
            return n;
        }
        Tuple2<Long, Long> key = nodeKey(conversationId, level, prefix);
        long n = 0;
        for (int value : values(get(tree, key))) {
            n += deleteSubtree(conversationId, level - 1, prefix << CHUNK_BITS | value, counting);
        }
        tree.remove(key);
        return n;
    }

    /**
     * Moves a flat index of an earlier build into the tree and removes it; true when there was one.
     * A one-time cost linear in the number of chunks.
     */
    private boolean moveFlatIndex(long conversationId) throws Exception {
        if (flatIndex == null) {
            return false;
        }
        long[] indices = flatIndex.get(conversationId);
        if (indices == null) {
            return false;
        }
        bytesTouched += (long) Long.BYTES * indices.length;
        flatIndex.remove(conversationId);
        if (indices.length == 0) {
            return false;
        }
        writeTree(conversationId, indices);
        return true;
    }

    /**
     * Writes the tree of a conversation that has none, over chunk indices in ascending order: short
     * (level-1 node 0 alone) when they all are below 2^16.
     */
    private void writeTree(long conversationId, long[] indices) throws Exception {
        int levels = indices[indices.length - 1] >>> CHUNK_BITS == 0 ? 1 : LEVELS;
        long[] ids = indices;
        for (int level = 1; level <= levels; level++) {
            long[] parents = new long[ids.length];
            int n = 0;
            for (int i = 0; i < ids.length; ) {
                long prefix = ids[i] >>> CHUNK_BITS;
                Arrays.fill(words, 0);
                for (; i < ids.length && ids[i] >>> CHUNK_BITS == prefix; i++) {
                    int value = low(ids[i]);
                    words[value >>> 6] |= 1L << value;
                }
                put(tree, nodeKey(conversationId, level, prefix), encode());
                parents[n++] = prefix;
            }
            ids = Arrays.copyOf(parents, n);
        }
    }

    /** Forgets every conversation's seqs of the current user. */
    public void clear() {
        chunks.clear();
        tree.clear();
        if (flatIndex != null) {
            flatIndex.clear();
        }
    }

    /**
     * Bytes of chunks, nodes, indices and old sets read and written so far: the work, for tests.
     */
    public long bytesTouched() {
        return bytesTouched;
    }

    /**
     * The key of a conversation's tree node: its level (1 to 3, the root) in the top byte, then the
     * bits of the chunk indices below it above the level's 16 ({@code c >>> 16 * level}).
     */
    static Tuple2<Long, Long> nodeKey(long conversationId, int level, long prefix) {
        return Tuple2.of(conversationId, (long) level << 56 | prefix);
    }

    /** The key of level-1 node 0: the whole tree when it is short, so when it has no root. */
    private static Tuple2<Long, Long> shortTreeKey(long conversationId) {
        return nodeKey(conversationId, 1, 0);
    }

    /** The value a node of the level holds for a chunk: its index's 16 bits of that level. */
    private static int slot(int level, long chunk) {
        return low(chunk >>> (level - 1) * CHUNK_BITS);
    }

    private static int low(long seq) {
        return (int) seq & (1 << CHUNK_BITS) - 1;
    }

    private byte[] get(MapState<Tuple2<Long, Long>, byte[]> map, Tuple2<Long, Long> key)
            throws Exception {
        byte[] bytes = map.get(key);
        if (bytes != null) {
            bytesTouched += bytes.length;
        }
        return bytes;
    }

    private void put(MapState<Tuple2<Long, Long>, byte[]> map, Tuple2<Long, Long> key, byte[] bytes)
            throws Exception {
        bytesTouched += bytes.length;
        map.put(key, bytes);
    }

    private void put(long conversationId, long chunk, byte[] bytes) throws Exception {
        put(chunks, Tuple2.of(conversationId, chunk), bytes);
    }

    /**
     * The set with low added, editing the encoded set while it stays the smallest encoding and
     * going through {@link #words} when it changes form: the same array when low is there already.
     */
    private byte[] with(byte[] bytes, int low) {
        if (bytes == null) {
            return new byte[] {ARRAY, (byte) low, (byte) (low >>> 8)};
        }
        byte[] edited =
                bytes[0] == RUNS
                        ? addToRuns(bytes, low)
                        : bytes[0] == ARRAY ? addToArray(bytes, low) : addToBitmap(bytes, low);
        if (edited != null) {
            return edited;
        }
        decode(bytes);
        if ((words[low >>> 6] & 1L << low) != 0) {
            return bytes;
        }
        words[low >>> 6] |= 1L << low;
        return encode();
    }

    /** Whether an encoded set holds the value. */
    private static boolean contains(byte[] bytes, int value) {
        if (bytes[0] == BITMAP) {
            return (bytes[1 + (value >>> 3)] & 1 << (value & 7)) != 0;
        }
        // Array values or runs: the last entry whose first value is at or below value.
        int width = bytes[0] == RUNS ? 4 : 2;
        int lo = 0;
        int hi = (bytes.length - 1) / width - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (u16(bytes, 1 + width * mid) <= value) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return hi >= 0 && value <= u16(bytes, 1 + width * hi + width - 2);
    }

    /** The greatest value of a non-empty encoded set. */
    private static int max(byte[] bytes) {
        if (bytes[0] != BITMAP) {
            return u16(bytes, bytes.length - 2);
        }
        int at = bytes.length - 1;
        while (bytes[at] == 0) {
            at--;
        }
        return (at - 1) * 8 + 31 - Integer.numberOfLeadingZeros(bytes[at] & 0xFF);
    }

    /** The values of an encoded set, ascending. */
    public static int[] values(byte[] bytes) {
        int[] out = new int[(int) cardinality(bytes)];
        int n = 0;
        if (bytes[0] == ARRAY) {
            for (int at = 1; at < bytes.length; at += 2) {
                out[n++] = u16(bytes, at);
            }
        } else if (bytes[0] == RUNS) {
            for (int at = 1; at < bytes.length; at += 4) {
                for (int v = u16(bytes, at), last = u16(bytes, at + 2); v <= last; v++) {
                    out[n++] = v;
                }
            }
        } else {
            for (int at = 1; at < bytes.length; at++) {
                for (int bits = bytes[at] & 0xFF; bits != 0; bits &= bits - 1) {
                    out[n++] = (at - 1) * 8 + Integer.numberOfTrailingZeros(bits);
                }
            }
        }
        return out;
    }

    /**
     * Adds low to a chunk of runs, editing the runs when they stay the smallest encoding: the same
     * array when low is there already, a new one, or null when the chunk must change form.
     */
    private static byte[] addToRuns(byte[] bytes, int low) {
        int n = (bytes.length - 1) / 4;
        // The last run starting at or before low; -1 when none.
        int lo = 0;
        int hi = n - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (u16(bytes, 1 + 4 * mid) <= low) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        int i = hi;
        if (i >= 0 && low <= u16(bytes, 3 + 4 * i)) {
            return bytes;
        }
        boolean extendsBefore = i >= 0 && u16(bytes, 3 + 4 * i) == low - 1;
        boolean joinsAfter = i + 1 < n && u16(bytes, 1 + 4 * (i + 1)) == low + 1;
        int runs = n + 1 - (extendsBefore ? 1 : 0) - (joinsAfter ? 1 : 0);
        long count = cardinality(bytes) + 1;
        if (!(4 * runs <= 2 * count && 4 * runs < WORDS * Long.BYTES)) {
            return null;
        }
        if (extendsBefore && joinsAfter) {
            byte[] out = new byte[bytes.length - 4];
            System.arraycopy(bytes, 0, out, 0, 3 + 4 * i);
            int rest = 3 + 4 * (i + 1);
            System.arraycopy(bytes, rest, out, 3 + 4 * i, bytes.length - rest);
            return out;
        }
        if (extendsBefore || joinsAfter) {
            byte[] out = bytes.clone();
            putU16(out, extendsBefore ? 3 + 4 * i : 1 + 4 * (i + 1), low);
            return out;
        }
        byte[] out = new byte[bytes.length + 4];
        int at = 1 + 4 * (i + 1);
        System.arraycopy(bytes, 0, out, 0, at);
        putU16(out, at, low);
        putU16(out, at + 2, low);
        System.arraycopy(bytes, at, out, at + 4, bytes.length - at);
        return out;
    }

    /**
     * Adds low to a chunk of sorted values, editing them when they stay the smallest encoding: the
     * same array when low is there already, a new one, or null when the chunk must change form.
     */
    private static byte[] addToArray(byte[] bytes, int low) {
        int n = (bytes.length - 1) / 2;
        int lo = 0;
        int hi = n - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int v = u16(bytes, 1 + 2 * mid);
            if (v == low) {
                return bytes;
            } else if (v < low) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        int runs = 1;
        for (int j = 1; j < n; j++) {
            if (u16(bytes, 1 + 2 * j) != u16(bytes, 2 * j - 1) + 1) {
                runs++;
            }
        }
        boolean extendsBefore = lo > 0 && u16(bytes, 2 * lo - 1) == low - 1;
        boolean joinsAfter = lo < n && u16(bytes, 1 + 2 * lo) == low + 1;
        runs += 1 - (extendsBefore ? 1 : 0) - (joinsAfter ? 1 : 0);
        int count = n + 1;
        if (4 * runs <= 2 * count && 4 * runs < WORDS * Long.BYTES
                || 2 * count >= WORDS * Long.BYTES) {
            return null;
        }
        byte[] out = new byte[bytes.length + 2];
        int at = 1 + 2 * lo;
        System.arraycopy(bytes, 0, out, 0, at);
        putU16(out, at, low);
        System.arraycopy(bytes, at, out, at + 2, bytes.length - at);
        return out;
    }

    /**
     * Adds low to a bitmap chunk, setting its bit when the bitmap stays the smallest encoding: the
     * same array when low is there already, a new one, or null when the chunk must change form.
     */
    private static byte[] addToBitmap(byte[] bytes, int low) {
        if (bytes.length != MAX_CHUNK_BYTES) {
            return null;
        }
        int at = 1 + (low >>> 3);
        if ((bytes[at] & 1 << (low & 7)) != 0) {
            return bytes;
        }
        ByteBuffer in = ByteBuffer.wrap(bytes, 1, bytes.length - 1).order(ByteOrder.LITTLE_ENDIAN);
        int count = 1;
        int runs = 1;
        long carry = 0;
        while (in.hasRemaining()) {
            long w = in.getLong();
            count += Long.bitCount(w);
            runs += Long.bitCount(w & ~(w << 1 | carry));
            carry = w >>> 63;
        }
        if (low > 0 && (bytes[1 + ((low - 1) >>> 3)] & 1 << ((low - 1) & 7)) != 0) {
            runs--;
        }
        if (low < WORDS * 64 - 1 && (bytes[1 + ((low + 1) >>> 3)] & 1 << ((low + 1) & 7)) != 0) {
            runs--;
        }
        int bitmap = WORDS * Long.BYTES;
        if (4 * runs <= 2 * count && 4 * runs < bitmap || 2 * count < bitmap) {
            return null;
        }
        byte[] out = bytes.clone();
        out[at] |= (byte) (1 << (low & 7));
        return out;
    }

    private static int u16(byte[] bytes, int at) {
        return (bytes[at] & 0xFF) | (bytes[at + 1] & 0xFF) << 8;
    }

    private static void putU16(byte[] bytes, int at, int value) {
        bytes[at] = (byte) value;
        bytes[at + 1] = (byte) (value >>> 8);
    }

    /** Sets the bits from a to b, both included. */
    private void setRange(int a, int b) {
        int first = a >>> 6;
        int last = b >>> 6;
        long tail = -1L >>> (63 - (b & 63));
        if (first == last) {
            words[first] |= -1L << a & tail;
            return;
        }
        words[first] |= -1L << a;
        Arrays.fill(words, first + 1, last, -1L);
        words[last] |= tail;
    }

    /** Clears the bits from 0 to b included; returns how many were set. */
    private long clearUpTo(int b) {
        long cleared = 0;
        int last = b >>> 6;
        for (int w = 0; w < last; w++) {
            cleared += Long.bitCount(words[w]);
            words[w] = 0;
        }
        long mask = -1L >>> (63 - (b & 63));
        cleared += Long.bitCount(words[last] & mask);
        words[last] &= ~mask;
        return cleared;
    }

    private void decode(byte[] bytes) {
        Arrays.fill(words, 0);
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        byte type = in.get();
        if (type == BITMAP && bytes.length == MAX_CHUNK_BYTES) {
            in.asLongBuffer().get(words);
        } else if (type == ARRAY && bytes.length % 2 == 1 && bytes.length > 1) {
            while (in.hasRemaining()) {
                int v = in.getChar();
                words[v >>> 6] |= 1L << v;
            }
        } else if (type == RUNS && bytes.length % 4 == 1 && bytes.length > 1) {
            while (in.hasRemaining()) {
                int first = in.getChar();
                int last = in.getChar();
                if (last < first) {
                    throw corrupt("run ends before it starts");
                }
                setRange(first, last);
            }
        } else {
            throw corrupt("chunk of type " + type + " and " + bytes.length + " bytes");
        }
    }

    private static long cardinality(byte[] bytes) {
        if (bytes[0] == ARRAY) {
            return bytes.length / 2;
        }
        ByteBuffer in = ByteBuffer.wrap(bytes, 1, bytes.length - 1).order(ByteOrder.LITTLE_ENDIAN);
        long n = 0;
        if (bytes[0] == RUNS) {
            while (in.hasRemaining()) {
                int first = in.getChar();
                n += in.getChar() - first + 1;
            }
        } else {
            while (in.hasRemaining()) {
                n += Long.bitCount(in.getLong());
            }
        }
        return n;
    }

    /** The smallest encoding of {@link #words}; null when empty. */
    private byte[] encode() {
        int count = 0;
        int runs = 0;
        long carry = 0;
        for (long w : words) {
            count += Long.bitCount(w);
            // A run starts at each set bit whose lower neighbour is clear.
            runs += Long.bitCount(w & ~(w << 1 | carry));
            carry = w >>> 63;
        }
        if (count == 0) {
            return null;
        }
        int bitmap = WORDS * Long.BYTES;
        ByteBuffer out;
        if (4 * runs <= 2 * count && 4 * runs < bitmap) {
            out = ByteBuffer.allocate(1 + 4 * runs).order(ByteOrder.LITTLE_ENDIAN).put(RUNS);
            for (int first = nextSet(0); first >= 0; ) {
                int end = nextClear(first);
                out.putChar((char) first).putChar((char) (end - 1));
                first = nextSet(end);
            }
        } else if (2 * count < bitmap) {
            out = ByteBuffer.allocate(1 + 2 * count).order(ByteOrder.LITTLE_ENDIAN).put(ARRAY);
            for (int w = 0; w < WORDS; w++) {
                for (long bits = words[w]; bits != 0; bits &= bits - 1) {
                    out.putChar((char) (w << 6 | Long.numberOfTrailingZeros(bits)));
                }
            }
        } else {
            out = ByteBuffer.allocate(MAX_CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN).put(BITMAP);
            out.asLongBuffer().put(words);
        }
        return out.array();
    }

    /** The first set bit at or after from; -1 when none. */
    private int nextSet(int from) {
        if (from >= WORDS * 64) {
            return -1;
        }
        int w = from >>> 6;
        long bits = words[w] & -1L << from;
        while (bits == 0) {
            if (++w == WORDS) {
                return -1;
            }
            bits = words[w];
        }
        return w << 6 | Long.numberOfTrailingZeros(bits);
    }

    /** The first clear bit at or after from; the chunk's size when none. */
    private int nextClear(int from) {
        if (from >= WORDS * 64) {
            return WORDS * 64;
        }
        int w = from >>> 6;
        long bits = ~words[w] & -1L << from;
        while (bits == 0) {
            if (++w == WORDS) {
                return WORDS * 64;
            }
            bits = ~words[w];
        }
        return w << 6 | Long.numberOfTrailingZeros(bits);
    }

    private static UncheckedIOException corrupt(String why) {
        return new UncheckedIOException("corrupt unread seqs in state", new IOException(why));
    }
}
