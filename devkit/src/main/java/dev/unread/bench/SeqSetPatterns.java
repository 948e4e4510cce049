package dev.unread.bench;

import dev.unread.state.ConversationState;
import dev.unread.state.UnreadChunks;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongUnaryOperator;
import java.util.function.ToIntFunction;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * How one conversation's unread seqs cost per message under the patterns of issue 17 (item 6), each
 * message added as UnreadCounter adds it, through {@link UnreadChunks} over maps in memory (so
 * without RocksDB's own cost). Prints, per pattern, ns per message, the bytes of state read and
 * written per message (the work, independent of the machine) and the set's bytes (chunks and index,
 * values only) next to a run-optimized Roaring bitmap of the same seqs. Run with {@code java -cp
 * devkit/target/classes:$(cat devkit/target/cli-classpath.txt) dev.unread.bench.SeqSetPatterns
 * [MESSAGES]} (default 80,000).
 */
public final class SeqSetPatterns {

    private static final long CONVERSATION = 1;

    private SeqSetPatterns() {}

    /** One pattern: the seq of the i-th message (from 0), and an optional seq sent first. */
    private record Pattern(String name, long first, LongUnaryOperator seq) {}

    public static void main(String[] args) throws Exception {
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 80_000;
        Pattern[] patterns = {
            new Pattern("consecutive, never read", 0, i -> i + 1),
            new Pattern("1:1 alternating, never read (odd seqs)", 0, i -> 2 * i + 1),
            new Pattern(
                    "one seq of Long.MAX_VALUE, then alternating", Long.MAX_VALUE, i -> 2 * i + 1),
        };
        System.out.println(
                "| pattern | messages | ns per message | bytes touched per message"
                        + " | set bytes | Roaring bytes | set / Roaring |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
        for (Pattern pattern : patterns) {
            // Once to warm the JIT, once measured.
            run(pattern, messages);
            System.out.println(run(pattern, messages));
        }
    }

    private static String run(Pattern pattern, int messages) throws Exception {
        Roaring64NavigableMap roaring = new Roaring64NavigableMap();
        CountingMapState<Tuple2<Long, Long>, byte[]> chunks = new CountingMapState<>(b -> b.length);
        CountingMapState<Tuple2<Long, Long>, byte[]> index = new CountingMapState<>(b -> b.length);
        UnreadChunks seqs =
                new UnreadChunks(
                        chunks, index, new CountingMapState<>(i -> Long.BYTES * i.length));
        ConversationState state = new ConversationState();
        if (pattern.first() > 0) {
            seqs.add(CONVERSATION, state, pattern.first());
            roaring.addLong(pattern.first());
        }
        long touchedBefore = chunks.touched + index.touched;
        long start = System.nanoTime();
        for (int i = 0; i < messages; i++) {
            seqs.add(CONVERSATION, state, pattern.seq().applyAsLong(i));
        }
        long elapsed = System.nanoTime() - start;
        long touched = chunks.touched + index.touched - touchedBefore;
        for (int i = 0; i < messages; i++) {
            roaring.addLong(pattern.seq().applyAsLong(i));
        }
        roaring.runOptimize();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        roaring.serializePortable(new DataOutputStream(out));
        long bytes = chunks.size() + index.size();
        return String.format(
                Locale.ROOT,
                "| %s | %,d | %,.0f | %,d | %,d | %,d | %.1f |",
                pattern.name(),
                messages,
                (double) elapsed / messages,
                touched / messages,
                bytes,
                out.size(),
                (double) bytes / out.size());
    }

    /**
     * A map in memory standing in for RocksDB's, so the figures are the structure's own: counts the
     * value bytes read and written through it, and sums the ones it holds.
     */
    private static final class CountingMapState<K, V> implements MapState<K, V> {

        private final Map<K, V> map = new HashMap<>();
        private final ToIntFunction<V> bytes;
        long touched;

        CountingMapState(ToIntFunction<V> bytes) {
            this.bytes = bytes;
        }

        long size() {
            return map.values().stream().mapToLong(bytes::applyAsInt).sum();
        }

        @Override
        public V get(K key) {
            V value = map.get(key);
            touched += value == null ? 0 : bytes.applyAsInt(value);
            return value;
        }

        @Override
        public void put(K key, V value) {
            touched += bytes.applyAsInt(value);
            map.put(key, value);
        }

        @Override
        public void putAll(Map<K, V> values) {
            values.forEach(this::put);
        }

        @Override
        public void remove(K key) {
            map.remove(key);
        }

        @Override
        public boolean contains(K key) {
            return map.containsKey(key);
        }

        @Override
        public Iterable<Map.Entry<K, V>> entries() {
            return map.entrySet();
        }

        @Override
        public Iterable<K> keys() {
            return map.keySet();
        }

        @Override
        public Iterable<V> values() {
            return map.values();
        }

        @Override
        public Iterator<Map.Entry<K, V>> iterator() {
            return map.entrySet().iterator();
        }

        @Override
        public boolean isEmpty() {
            return map.isEmpty();
        }

        @Override
        public void clear() {
            map.clear();
        }
    }
}
