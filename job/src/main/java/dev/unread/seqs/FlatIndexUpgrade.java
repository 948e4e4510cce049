package dev.unread.seqs;

import static dev.unread.seqs.ChunkEncoding.low;
import static dev.unread.seqs.ChunkStore.nodeKey;
import static dev.unread.seqs.UnreadChunks.CHUNK_BITS;

import java.util.Arrays;
import org.apache.flink.api.common.state.MapState;

/**
 * The index of a set's chunks as earlier builds wrote it, moved into {@link ChunkTree} on first
 * touch: the sorted chunk indices as one {@code long[]} in {@code unread-chunk-index}. The tree
 * looks for one only when it has none (neither a root nor level-1 node 0), so the lookup costs
 * nothing once a set has a tree, and the move is a one-time cost linear in the number of chunks.
 */
final class FlatIndexUpgrade {

    private final MapState<Long, long[]> flatIndex;
    private final ChunkStore store;
    private final ChunkBits bits;

    /** Over the flat index of earlier builds; null for a set no earlier build wrote. */
    FlatIndexUpgrade(MapState<Long, long[]> flatIndex, ChunkStore store, ChunkBits bits) {
        this.flatIndex = flatIndex;
        this.store = store;
        this.bits = bits;
    }

    /** Moves a set's flat index into the tree and removes it; true when there was one. */
    boolean moveIntoTree(long conversationId) throws Exception {
        if (flatIndex == null) {
            return false;
        }
        long[] indices = flatIndex.get(conversationId);
        if (indices == null) {
            return false;
        }
        store.touch((long) Long.BYTES * indices.length);
        flatIndex.remove(conversationId);
        if (indices.length == 0) {
            return false;
        }
        writeTree(conversationId, indices);
        return true;
    }

    /**
     * Writes the tree of a set that has none, over chunk indices in ascending order: short (level-1
     * node 0 alone) when they all are below 2^16.
     */
    private void writeTree(long conversationId, long[] indices) throws Exception {
        int levels = indices[indices.length - 1] >>> CHUNK_BITS == 0 ? 1 : ChunkTree.LEVELS;
        long[] ids = indices;
        for (int level = 1; level <= levels; level++) {
            long[] parents = new long[ids.length];
            int n = 0;
            for (int i = 0; i < ids.length; ) {
                long prefix = ids[i] >>> CHUNK_BITS;
                bits.empty();
                for (; i < ids.length && ids[i] >>> CHUNK_BITS == prefix; i++) {
                    bits.set(low(ids[i]));
                }
                store.putNode(nodeKey(conversationId, level, prefix), bits.encode());
                parents[n++] = prefix;
            }
            ids = Arrays.copyOf(parents, n);
        }
    }

    /** Forgets every set's flat index of the current key. */
    void clear() {
        if (flatIndex != null) {
            flatIndex.clear();
        }
    }
}
