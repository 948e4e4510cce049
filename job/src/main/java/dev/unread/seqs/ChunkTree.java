package dev.unread.seqs;

import static dev.unread.seqs.ChunkEncoding.cardinality;
import static dev.unread.seqs.ChunkEncoding.contains;
import static dev.unread.seqs.ChunkEncoding.low;
import static dev.unread.seqs.ChunkEncoding.max;
import static dev.unread.seqs.ChunkEncoding.values;
import static dev.unread.seqs.ChunkStore.chunkKey;
import static dev.unread.seqs.ChunkStore.nodeKey;
import static dev.unread.seqs.UnreadChunks.CHUNK_BITS;

import java.util.function.LongConsumer;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * The radix tree of a set's chunk indices, so that a read finds the chunks at or below its cursor
 * without probing the empty index range between them (a seq of {@code Long.MAX_VALUE} is chunk 2^47
 * - 1). A chunk index c (47 bits) is split into 16-bit parts, each a node in the chunks' own {@link
 * ChunkEncoding}: the level-1 node keyed by {@code c >>> 16} holds {@code c & 0xFFFF} of each of
 * its chunks, the level-2 node keyed by {@code c >>> 32} holds {@code (c >>> 16) & 0xFFFF} of each
 * of its level-1 nodes, and one root per set holds {@code c >>> 32} of each level-2 node. Every
 * node is thus at most {@link UnreadChunks#MAX_CHUNK_BYTES} and no larger than a Roaring container
 * of its values plus one byte.
 *
 * <p>A set whose chunks all are below 2^16 (its seqs below 2^32, the common case) has a short tree:
 * level-1 node 0 alone, no level-2 node and no root, so one stored entry indexes it as one flat
 * index did. The root marks a tall tree; the first chunk at or above 2^16 promotes a short tree,
 * giving node 0 its level-2 node and the root (3 bytes each). Reads remove seqs from the lowest up,
 * so a tall tree keeps a chunk at or above 2^16 until it empties: the form is always the one its
 * chunks call for. A new chunk adds to its level-1 node, and goes up only while the node is new: at
 * most one stored entry is read and rewritten (and node 0 read when a tree has no root), and new
 * ones are 3 bytes. A read walks the path from the top (the root, or node 0) to the chunk of its
 * cursor and deletes whole subtrees below it, which costs what creating them cost.
 *
 * <p>Where there is no tree, a flat index of an earlier build may stand in for it: the tree has
 * {@link FlatIndexUpgrade} move it in before it links, unlinks or reads.
 */
final class ChunkTree {

    /** The tree's levels above the chunks: 3 × 16 bits hold the 47 bits of a chunk's index. */
    static final int LEVELS = 3;

    private final ChunkStore store;
    private final ChunkBits bits;
    private final FlatIndexUpgrade flatIndex;

    ChunkTree(ChunkStore store, ChunkBits bits, FlatIndexUpgrade flatIndex) {
        this.store = store;
        this.bits = bits;
        this.flatIndex = flatIndex;
    }

    /**
     * Adds a new chunk to the tree: to its level-1 node, and to the level above only when that node
     * is new. A tree with no root is short (level-1 node 0 alone) or none: then a chunk below 2^16
     * goes into node 0 only; a chunk above it first promotes a short tree, giving node 0 its path
     * (level-2 node 0 and the root, 3 bytes each); and when there is no tree, a flat index of an
     * earlier build is moved into one first. Reads the nodes from the chunk up to the first that
     * exists (node 0 too when there is no root) and rewrites only that one.
     */
    void link(long conversationId, long chunk) throws Exception {
        // nodes[level]: the node above the chunk at that level, read up to the first that exists.
        byte[][] nodes = new byte[LEVELS + 1][];
        int top = 1;
        for (; top <= LEVELS; top++) {
            nodes[top] = store.node(nodeKey(conversationId, top, chunk >>> top * CHUNK_BITS));
            if (nodes[top] != null) {
                break;
            }
        }
        if (top > LEVELS) {
            boolean fitsShort = chunk >>> CHUNK_BITS == 0;
            byte[] shortTree = fitsShort ? null : store.node(shortTreeKey(conversationId));
            if (shortTree == null && flatIndex.moveIntoTree(conversationId)) {
                link(conversationId, chunk);
                return;
            }
            if (fitsShort) {
                store.putNode(shortTreeKey(conversationId), bits.with(null, slot(1, chunk)));
                return;
            }
            if (shortTree != null) {
                store.putNode(nodeKey(conversationId, 2, 0), bits.with(null, 0));
                store.putNode(nodeKey(conversationId, LEVELS, 0), bits.with(null, 0));
                link(conversationId, chunk);
                return;
            }
            top = LEVELS;
        }
        for (int level = 1; level <= top; level++) {
            store.putNode(
                    nodeKey(conversationId, level, chunk >>> level * CHUNK_BITS),
                    bits.with(nodes[level], slot(level, chunk)));
        }
    }

    /**
     * Takes an emptied chunk out of the tree: out of its level-1 node, and out of the node above
     * only when that one emptied too. A chunk with no level-1 node is in a flat index of an earlier
     * build, which is moved into the tree first.
     */
    void unlink(long conversationId, long chunk) throws Exception {
        for (int level = 1; level <= LEVELS; level++) {
            Tuple2<Long, Long> key = nodeKey(conversationId, level, chunk >>> level * CHUNK_BITS);
            byte[] node = store.node(key);
            if (node == null) {
                if (level == 1 && flatIndex.moveIntoTree(conversationId)) {
                    unlink(conversationId, chunk);
                }
                // Above a short tree's only node there is nothing.
                return;
            }
            bits.decode(node);
            bits.unset(slot(level, chunk));
            byte[] rest = bits.encode();
            if (rest != null) {
                store.putNode(key, rest);
                return;
            }
            store.removeNode(key);
        }
    }

    /**
     * Removes every seq up to and including {@code cursor} from the set of {@code count} seqs whose
     * count the caller keeps; returns how many. Reads the path of nodes from the top of the tree
     * (the root, or level-1 node 0 of a short tree) to the chunk the cursor falls in, rewrites
     * those and the chunk, and deletes the subtrees wholly below it (reading their chunks only to
     * count them when some seqs stay beyond the cursor's chunk).
     */
    long removeUpTo(long conversationId, long count, long cursor) throws Exception {
        long last = cursor >>> CHUNK_BITS;
        // The top of the tree: the root, or level-1 node 0 of a short tree.
        int top = LEVELS;
        byte[] topNode = store.node(nodeKey(conversationId, LEVELS, 0));
        if (topNode == null) {
            top = 1;
            topNode = store.node(shortTreeKey(conversationId));
            if (topNode == null) {
                return flatIndex.moveIntoTree(conversationId)
                        ? removeUpTo(conversationId, count, cursor)
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
                                ? store.chunk(chunkKey(conversationId, last))
                                : store.node(
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
            Tuple2<Long, Long> key = chunkKey(conversationId, last);
            bits.decode(path[0]);
            long here = bits.clearUpTo(low(cursor));
            removed += here;
            kept = cardinality(path[0]) - here;
            if (kept == 0) {
                store.removeChunk(key);
            } else {
                childGone = false;
                if (here > 0) {
                    store.putChunk(key, bits.encode());
                }
            }
        }
        for (int level = 1; level <= top; level++) {
            if (path[level] == null) {
                continue;
            }
            // The values below the path's, and the path's own when its child emptied.
            int upTo = slot(level, last) - (childGone ? 0 : 1);
            bits.decode(path[level]);
            if (upTo >= 0 && bits.clearUpTo(upTo) > 0) {
                Tuple2<Long, Long> key =
                        nodeKey(conversationId, level, last >>> level * CHUNK_BITS);
                byte[] rest = bits.encode();
                if (rest == null) {
                    store.removeNode(key);
                    childGone = true;
                    continue;
                }
                store.putNode(key, rest);
            }
            childGone = false;
        }
        return beyond ? removed : count - kept;
    }

    /** Calls {@code visit} with every seq of the set, ascending: reads every node and chunk. */
    void forEachSeq(long conversationId, LongConsumer visit) throws Exception {
        if (store.node(nodeKey(conversationId, LEVELS, 0)) != null) {
            visit(conversationId, LEVELS, 0, visit);
        } else if (store.node(shortTreeKey(conversationId)) != null) {
            visit(conversationId, 1, 0, visit);
        }
    }

    private void visit(long conversationId, int level, long prefix, LongConsumer visit)
            throws Exception {
        if (level == 0) {
            for (int value : values(store.chunk(chunkKey(conversationId, prefix)))) {
                visit.accept(prefix << CHUNK_BITS | value);
            }
            return;
        }
        for (int value : values(store.node(nodeKey(conversationId, level, prefix)))) {
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
            Tuple2<Long, Long> key = chunkKey(conversationId, prefix);
            long n = counting ? cardinality(store.chunk(key)) : 0;
            store.removeChunk(key);
            return n;
        }
        Tuple2<Long, Long> key = nodeKey(conversationId, level, prefix);
        long n = 0;
        for (int value : values(store.node(key))) {
            n += deleteSubtree(conversationId, level - 1, prefix << CHUNK_BITS | value, counting);
        }
        store.removeNode(key);
        return n;
    }

    /** The key of level-1 node 0: the whole tree when it is short, so when it has no root. */
    private static Tuple2<Long, Long> shortTreeKey(long conversationId) {
        return nodeKey(conversationId, 1, 0);
    }

    /** The value a node of the level holds for a chunk: its index's 16 bits of that level. */
    private static int slot(int level, long chunk) {
        return low(chunk >>> (level - 1) * CHUNK_BITS);
    }
}
