package dev.unread.seqs;

import static dev.unread.seqs.ChunkEncoding.contains;
import static dev.unread.seqs.ChunkEncoding.low;
import static dev.unread.seqs.ChunkStore.chunkKey;

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
 * 16}) ({@link ChunkStore}), holding the low 16 bits of its seqs in the smallest of three encodings
 * ({@link ChunkEncoding}). Empty chunks are not stored. {@link ChunkTree} indexes a conversation's
 * chunks; adding a seq edits its chunk, and only when the chunk is new does it touch the tree.
 *
 * <p>The caller keeps each set's count; a conversation's sets are here only once they outgrow its
 * record ({@code ConversationSeqs}). States written by earlier builds may hold the chunks with a
 * flat index, which the first message that opens a chunk or the first read moves into the tree
 * ({@link FlatIndexUpgrade}).
 */
public final class UnreadChunks {

    /** A chunk holds the seqs whose bits above these are its index; a node as many of an index. */
    public static final int CHUNK_BITS = 16;

    /** The largest chunk or node: the type byte and a bitmap. */
    public static final int MAX_CHUNK_BYTES = 1 + ChunkEncoding.BITMAP_BYTES;

    private final ChunkStore store;
    private final FlatIndexUpgrade flatIndex;
    private final ChunkTree tree;

    /** The chunk being edited, shared with the tree and the upgrade, which edit after it. */
    private final ChunkBits bits = new ChunkBits();

    /**
     * Over the given states: the chunks, the tree of their indices, and the flat index of earlier
     * builds, read only to move it into the tree (null for a set no earlier build wrote).
     */
    public UnreadChunks(
            MapState<Tuple2<Long, Long>, byte[]> chunks,
            MapState<Tuple2<Long, Long>, byte[]> tree,
            MapState<Long, long[]> flatIndex) {
        this.store = new ChunkStore(chunks, tree);
        this.flatIndex = new FlatIndexUpgrade(flatIndex, store, bits);
        this.tree = new ChunkTree(store, bits, this.flatIndex);
    }

    /**
     * Adds the seqs of runs (ascending, each run's first and last seq one after the other, as
     * {@link UnreadSeqs} gives them) to the set whose count the caller keeps. Reads and writes each
     * chunk the runs touch once, and links the new ones.
     */
    public void addAll(long id, long[] runs) throws Exception {
        store.touch((long) Long.BYTES * runs.length);
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
                    before = store.chunk(chunkKey(id, c));
                    if (before == null) {
                        bits.empty();
                    } else {
                        bits.decode(before);
                    }
                }
                bits.setRange(low(first), low(end));
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
        store.putChunk(chunkKey(id, chunk), bits.encode());
        if (before == null) {
            tree.link(id, chunk);
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
        Tuple2<Long, Long> key = chunkKey(conversationId, chunk);
        byte[] bytes = store.chunk(key);
        byte[] edited = bits.with(bytes, low(seq));
        if (edited == bytes) {
            return false;
        }
        store.putChunk(key, edited);
        if (bytes == null) {
            tree.link(conversationId, chunk);
        }
        return true;
    }

    /** Whether the set whose count the caller keeps holds {@code seq}: one chunk read. */
    public boolean containsSeq(long conversationId, long seq) throws Exception {
        byte[] bytes = store.chunk(chunkKey(conversationId, seq >>> CHUNK_BITS));
        return bytes != null && contains(bytes, low(seq));
    }

    /**
     * Removes one seq from the set whose count the caller keeps; false when it was not there. Reads
     * and writes one chunk; when that empties it, takes the chunk out of the tree too.
     */
    public boolean removeSeq(long conversationId, long seq) throws Exception {
        long chunk = seq >>> CHUNK_BITS;
        Tuple2<Long, Long> key = chunkKey(conversationId, chunk);
        byte[] bytes = store.chunk(key);
        int low = low(seq);
        if (bytes == null || !contains(bytes, low)) {
            return false;
        }
        bits.decode(bytes);
        bits.unset(low);
        byte[] rest = bits.encode();
        if (rest != null) {
            store.putChunk(key, rest);
            return true;
        }
        store.removeChunk(key);
        tree.unlink(conversationId, chunk);
        return true;
    }

    /**
     * Removes every seq up to and including {@code cursor} from the set of {@code count} seqs whose
     * count the caller keeps; returns how many. Costs the path from the tree's top to the cursor's
     * chunk, and the subtrees wholly below it ({@link ChunkTree#removeUpTo}).
     */
    public long removeSeqsUpTo(long conversationId, long count, long cursor) throws Exception {
        if (count == 0) {
            return 0;
        }
        return tree.removeUpTo(conversationId, count, cursor);
    }

    /**
     * Calls {@code visit} with every seq of the set, ascending: reads every node and chunk of it,
     * so a caller walks only sets it keeps small (the threads with unread replies, say).
     */
    public void forEachSeq(long conversationId, LongConsumer visit) throws Exception {
        tree.forEachSeq(conversationId, visit);
    }

    /** Forgets every conversation's seqs of the current user. */
    public void clear() {
        store.clear();
        flatIndex.clear();
    }

    /**
     * Bytes of chunks, nodes, indices and old sets read and written so far: the work, for tests.
     */
    public long bytesTouched() {
        return store.bytesTouched();
    }

    /** The values of a stored chunk or node, ascending: the low 16 bits of its seqs or indices. */
    public static int[] values(byte[] bytes) {
        return ChunkEncoding.values(bytes);
    }
}
