package dev.unread.seqs;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * Where {@link UnreadChunks} keeps a set: its chunks in one MapState keyed by (set id, chunk
 * index), the nodes of its tree in another keyed by (set id, {@link #nodeKey}), and a count of the
 * bytes read and written, which tests bound per message. Stored savepoints hold these keys, so they
 * never change. Callers build a key once and pass it to both the read and the write of an entry, so
 * that a message allocates one key per entry it touches.
 */
final class ChunkStore {

    private final MapState<Tuple2<Long, Long>, byte[]> chunks;
    private final MapState<Tuple2<Long, Long>, byte[]> tree;

    private long bytesTouched;

    ChunkStore(
            MapState<Tuple2<Long, Long>, byte[]> chunks,
            MapState<Tuple2<Long, Long>, byte[]> tree) {
        this.chunks = chunks;
        this.tree = tree;
    }

    static Tuple2<Long, Long> chunkKey(long setId, long chunk) {
        return Tuple2.of(setId, chunk);
    }

    /**
     * The key of a set's tree node: its level (1 to 3, the root) in the top byte, then the bits of
     * the chunk indices below it above the level's 16 ({@code c >>> 16 * level}).
     */
    static Tuple2<Long, Long> nodeKey(long setId, int level, long prefix) {
        return Tuple2.of(setId, (long) level << 56 | prefix);
    }

    byte[] chunk(Tuple2<Long, Long> key) throws Exception {
        return get(chunks, key);
    }

    void putChunk(Tuple2<Long, Long> key, byte[] bytes) throws Exception {
        put(chunks, key, bytes);
    }

    void removeChunk(Tuple2<Long, Long> key) throws Exception {
        chunks.remove(key);
    }

    byte[] node(Tuple2<Long, Long> key) throws Exception {
        return get(tree, key);
    }

    void putNode(Tuple2<Long, Long> key, byte[] bytes) throws Exception {
        put(tree, key, bytes);
    }

    void removeNode(Tuple2<Long, Long> key) throws Exception {
        tree.remove(key);
    }

    /** Counts bytes read or written outside the chunks and nodes. */
    void touch(long bytes) {
        bytesTouched += bytes;
    }

    long bytesTouched() {
        return bytesTouched;
    }

    /** Forgets every set of the current key. */
    void clear() {
        chunks.clear();
        tree.clear();
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
}
