package dev.unread.bench;

import dev.unread.counter.ConversationSeqs;
import dev.unread.seqs.UnreadChunks;
import dev.unread.state.ConversationState;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.PrintStream;
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
 * message added as UnreadCounter adds it, through {@link ConversationSeqs} over maps in memory (so
 * without RocksDB's own cost). Prints, per pattern, ns per message (the fastest of three runs after
 * a warm-up) and its ratio to the consecutive pattern of the same run, the bytes of state read and
 * written per message on average and by the costliest message (the work, independent of the
 * machine), and the set's bytes (chunks, index nodes and what the record keeps; values only) next
 * to a run-optimized Roaring bitmap of the same seqs in its portable serialization. {@code
 * bin/unread bench seqs [--messages N]}.
 */
public final class SeqSetPatterns {

    /** Messages per pattern unless told: 80,000, as in issue 17's figures. */
    public static final int DEFAULT_MESSAGES = 80_000;

    private static final long CONVERSATION = 1;

    private static final int MEASURED_RUNS = 3;

    private SeqSetPatterns() {}

    /** One pattern: the seq of the i-th message (from 0), and an optional seq sent first. */
    private record Pattern(String name, long first, LongUnaryOperator seq) {}

    private static final Pattern[] PATTERNS = {
        new Pattern("consecutive, never read", 0, i -> i + 1),
        new Pattern("1:1 alternating, never read (odd seqs)", 0, i -> 2 * i + 1),
        new Pattern("one seq of Long.MAX_VALUE, then alternating", Long.MAX_VALUE, i -> 2 * i + 1),
        new Pattern("one seq per 2^16 (each message opens a chunk)", 0, i -> (i << 16) + 1),
        new Pattern("one seq per 2^17 (every other chunk)", 0, i -> (i << 17) + 1),
        new Pattern("one seq per 2^32 (each opens a level-1 node)", 0, i -> (i << 32) + 1),
    };

    /** What one pattern cost. */
    private record Result(
            double nsPerMessage,
            long bytesTouched,
            long mostTouched,
            long setBytes,
            long roaringBytes) {}

    /** Runs every pattern on {@code messages} messages and prints a markdown table to out. */
    public static void print(int messages, PrintStream out) throws Exception {
        out.println(
                "| pattern | messages | ns per message | × consecutive | bytes touched per message"
                        + " | most by one message | set bytes | Roaring bytes | set / Roaring |");
        out.println("| --- | --: | --: | --: | --: | --: | --: | --: | --: |");
        double baseline = 0;
        for (Pattern pattern : PATTERNS) {
            // Once to warm the JIT, then the fastest of three: on a shared machine the others
            // are slower by what other processes took, not by what the pattern costs.
            run(pattern, messages);
            Result r = run(pattern, messages);
            for (int i = 1; i < MEASURED_RUNS; i++) {
                Result again = run(pattern, messages);
                r = again.nsPerMessage() < r.nsPerMessage() ? again : r;
            }
            if (baseline == 0) {
                baseline = r.nsPerMessage();
            }
            out.println(
                    String.format(
                            Locale.ROOT,
                            "| %s | %,d | %,.0f | %.1f | %,d | %,d | %,d | %,d | %.2f |",
                            pattern.name(),
                            messages,
                            r.nsPerMessage(),
                            r.nsPerMessage() / baseline,
                            r.bytesTouched() / messages,
                            r.mostTouched(),
                            r.setBytes(),
                            r.roaringBytes(),
                            (double) r.setBytes() / r.roaringBytes()));
        }
    }

    private static Result run(Pattern pattern, int messages) throws Exception {
        Roaring64NavigableMap roaring = new Roaring64NavigableMap();
        CountingMapState<Tuple2<Long, Long>, byte[]> chunks = new CountingMapState<>(b -> b.length);
        CountingMapState<Tuple2<Long, Long>, byte[]> tree = new CountingMapState<>(b -> b.length);
        ConversationSeqs seqs =
                ConversationSeqs.unread(
                        new UnreadChunks(
                                chunks, tree, new CountingMapState<>(i -> Long.BYTES * i.length)));
        ConversationState state = new ConversationState();
        if (pattern.first() > 0) {
            seqs.add(CONVERSATION, state, pattern.first());
            roaring.addLong(pattern.first());
        }
        long touchedBefore = chunks.touched + tree.touched;
        long most = 0;
        long start = System.nanoTime();
        for (int i = 0; i < messages; i++) {
            long before = chunks.touched + tree.touched;
            seqs.add(CONVERSATION, state, pattern.seq().applyAsLong(i));
            most = Math.max(most, chunks.touched + tree.touched - before);
        }
        long elapsed = System.nanoTime() - start;
        long touched = chunks.touched + tree.touched - touchedBefore;
        for (int i = 0; i < messages; i++) {
            roaring.addLong(pattern.seq().applyAsLong(i));
        }
        roaring.runOptimize();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        roaring.serializePortable(new DataOutputStream(out));
        return new Result(
                (double) elapsed / messages,
                touched,
                most,
                chunks.size() + tree.size() + state.unreadSeqs.length,
                out.size());
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
