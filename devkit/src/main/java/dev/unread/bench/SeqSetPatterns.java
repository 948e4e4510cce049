package dev.unread.bench;

import dev.unread.state.UnreadSeqs;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Locale;
import java.util.function.LongUnaryOperator;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * How one conversation's unread seqs cost per message under the patterns of issue 17 (item 6),
 * each message handled as UnreadCounter handles it: the stored bytes read, one seq added, the
 * bytes written back. Prints, per pattern, ns per message, the bytes read and written per message
 * (the work, independent of the machine) and the set's bytes next to a run-optimized Roaring
 * bitmap of the same seqs. Run with {@code java -cp job/target/unread-job-*.jar
 * dev.unread.bench.SeqSetPatterns [MESSAGES]} (default 80,000).
 */
public final class SeqSetPatterns {

    private SeqSetPatterns() {}

    /** One pattern: the seq of the i-th message (from 0), and an optional seq sent first. */
    private record Pattern(String name, long first, LongUnaryOperator seq) {}

    public static void main(String[] args) throws IOException {
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 80_000;
        Pattern[] patterns = {
            new Pattern("consecutive, never read", 0, i -> i + 1),
            new Pattern("1:1 alternating, never read (odd seqs)", 0, i -> 2 * i + 1),
            new Pattern("one seq of Long.MAX_VALUE, then alternating", Long.MAX_VALUE,
                    i -> 2 * i + 1),
        };
        System.out.println("| pattern | messages | ns per message | bytes touched per message"
                + " | set bytes | Roaring bytes | set / Roaring |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
        for (Pattern pattern : patterns) {
            // Once to warm the JIT, once measured.
            run(pattern, messages);
            System.out.println(run(pattern, messages));
        }
    }

    private static String run(Pattern pattern, int messages) throws IOException {
        Roaring64NavigableMap roaring = new Roaring64NavigableMap();
        byte[] bytes = UnreadSeqs.EMPTY;
        if (pattern.first() > 0) {
            bytes = add(bytes, pattern.first());
            roaring.addLong(pattern.first());
        }
        long touched = 0;
        long start = System.nanoTime();
        for (int i = 0; i < messages; i++) {
            long seq = pattern.seq().applyAsLong(i);
            touched += bytes.length;
            bytes = add(bytes, seq);
            touched += bytes.length;
        }
        long elapsed = System.nanoTime() - start;
        for (int i = 0; i < messages; i++) {
            roaring.addLong(pattern.seq().applyAsLong(i));
        }
        roaring.runOptimize();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        roaring.serializePortable(new DataOutputStream(out));
        return String.format(Locale.ROOT, "| %s | %,d | %,.0f | %,d | %,d | %,d | %.1f |",
                pattern.name(), messages, (double) elapsed / messages, touched / messages,
                bytes.length, out.size(), (double) bytes.length / out.size());
    }

    private static byte[] add(byte[] bytes, long seq) {
        UnreadSeqs seqs = UnreadSeqs.of(bytes);
        seqs.add(seq);
        return seqs.toBytes();
    }
}
