package dev.unread.seqs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * What an ALL_READ needs of a conversation's or a thread's unread messages: for any time A, the
 * largest seq among them sent at or before A. Only the messages no other beats for every A are
 * kept: (seq, sentAt) goes when another has a seq at least as large and a sentAt no later, since
 * that one answers every A the first would. So the kept messages, by seq ascending, have strictly
 * ascending sentAts; in the usual traffic, where later seqs are sent later, that is every unread
 * message, and a resend of a seq keeps its earliest sentAt.
 *
 * <p>Form: the pairs by seq ascending, each as two unsigned LEB128 varints, the seq and the sentAt
 * as their distance from the pair before (the first from 0). A message sent within 16 s of the one
 * before with a seq within 127 costs 3 bytes; the first about 7. Every edit decodes and encodes the
 * whole frontier, which a cursor cuts as it cuts the unread seqs.
 */
public final class SentAtFrontier {

    /** No pair. */
    public static final byte[] EMPTY = new byte[0];

    private final long[] seqs;
    private final long[] sentAts;
    private int n;

    private SentAtFrontier(int capacity) {
        seqs = new long[capacity];
        sentAts = new long[capacity];
    }

    /** The frontier in {@code bytes}, with room for one more pair. */
    public static SentAtFrontier decode(byte[] bytes) {
        int pairs = 0;
        for (byte b : bytes) {
            if (b >= 0) {
                pairs++;
            }
        }
        if (pairs % 2 != 0) {
            throw corrupt("a seq without its sentAt");
        }
        SentAtFrontier f = new SentAtFrontier(pairs / 2 + 1);
        Varints in = new Varints(bytes);
        long seq = 0;
        long sentAt = 0;
        while (in.hasNext()) {
            long seqStep = in.next();
            long sentAtStep = in.next();
            if (f.n > 0 && (seqStep < 1 || sentAtStep < 1)) {
                throw corrupt("pairs not ascending");
            }
            seq += seqStep;
            sentAt += sentAtStep;
            f.seqs[f.n] = seq;
            f.sentAts[f.n] = sentAt;
            f.n++;
        }
        return f;
    }

    /**
     * The form of {@code bytes}'s frontier with (seq, sentAt) kept, when it goes after every kept
     * pair (a larger seq sent later: how messages usually arrive), found without decoding the pairs
     * into arrays; null when it does not, and {@link #add} must place it. Every message past the
     * cursor adds to its frontier, which grows with the unread messages, so the walk is the whole
     * cost of most adds.
     */
    public static byte[] appended(byte[] bytes, long seq, long sentAt) {
        long lastSeq = 0;
        long lastSentAt = 0;
        int varints = 0;
        Varints in = new Varints(bytes);
        while (in.hasNext()) {
            long value = in.next();
            if (varints >= 2 && value < 1) {
                throw corrupt("pairs not ascending");
            }
            if (varints % 2 == 0) {
                lastSeq += value;
            } else {
                lastSentAt += value;
            }
            varints++;
        }
        if (varints % 2 != 0) {
            throw corrupt("a seq without its sentAt");
        }
        if (varints == 0 || seq <= lastSeq || sentAt <= lastSentAt) {
            return null;
        }
        return withPair(bytes, seq - lastSeq, sentAt - lastSentAt);
    }

    /** {@code bytes} with one more pair, given as its steps from the last. */
    private static byte[] withPair(byte[] bytes, long seqStep, long sentAtStep) {
        byte[] appended =
                Arrays.copyOf(
                        bytes,
                        bytes.length + UnreadSeqs.size(seqStep) + UnreadSeqs.size(sentAtStep));
        UnreadSeqs.write(appended, UnreadSeqs.write(appended, bytes.length, seqStep), sentAtStep);
        return appended;
    }

    /**
     * The form of {@code bytes}'s frontier with (seq, sentAt) kept, when the caller knows its last
     * pair ({@code lastSeq}, {@code lastSentAt}; ignored for {@link #EMPTY}) and (seq, sentAt) goes
     * after it or beats it alone (a larger seq sent no earlier): found from the last pair's bytes
     * alone, without walking the others. Null when it does not, and {@link #add} must place it. A
     * channel knows its largest seq and when it was sent, so its every message in order costs the
     * same whatever the frontier holds.
     */
    public static byte[] appendedAfter(
            byte[] bytes, long lastSeq, long lastSentAt, long seq, long sentAt) {
        if (bytes.length == 0) {
            byte[] first = new byte[varintSize(seq) + varintSize(sentAt)];
            UnreadSeqs.write(first, UnreadSeqs.write(first, 0, seq), sentAt);
            return first;
        }
        if (seq <= lastSeq || sentAt < lastSentAt) {
            return null;
        }
        if (sentAt > lastSentAt) {
            return withPair(bytes, seq - lastSeq, sentAt - lastSentAt);
        }
        // Sent with the last pair: it beats that one alone (the kept sentAts rise strictly), so
        // it takes the last pair's place, its steps from the pair before grown by the seqs between.
        int sentAtFrom = varintStart(bytes, bytes.length - 1);
        int seqFrom = varintStart(bytes, sentAtFrom - 1);
        Varints last = new Varints(bytes);
        last.at = seqFrom;
        long seqStep = last.next() + (seq - lastSeq);
        long sentAtStep = last.next();
        byte[] replaced =
                Arrays.copyOf(bytes, seqFrom + varintSize(seqStep) + varintSize(sentAtStep));
        UnreadSeqs.write(replaced, UnreadSeqs.write(replaced, seqFrom, seqStep), sentAtStep);
        return replaced;
    }

    /** Where the varint that ends at {@code end} starts: after the varint before it ends. */
    private static int varintStart(byte[] bytes, int end) {
        if (end < 0 || bytes[end] < 0) {
            throw corrupt("a varint cut short");
        }
        int from = end;
        while (from > 0 && bytes[from - 1] < 0) {
            from--;
        }
        return from;
    }

    /** The varints of a frontier's bytes, one after the other. */
    private static final class Varints {
        private final byte[] bytes;
        private int at;

        Varints(byte[] bytes) {
            this.bytes = bytes;
        }

        boolean hasNext() {
            return at < bytes.length;
        }

        long next() {
            long value = 0;
            for (int shift = 0; ; shift += 7) {
                if (at == bytes.length || shift > 63) {
                    throw corrupt("a varint cut short");
                }
                byte b = bytes[at++];
                value |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    return value;
                }
            }
        }
    }

    /** This frontier's form; {@link #EMPTY} when it holds no pair. */
    public byte[] encode() {
        int size = 0;
        long seq = 0;
        long sentAt = 0;
        for (int i = 0; i < n; i++) {
            size += varintSize(seqs[i] - seq) + varintSize(sentAts[i] - sentAt);
            seq = seqs[i];
            sentAt = sentAts[i];
        }
        byte[] bytes = new byte[size];
        int at = 0;
        seq = 0;
        sentAt = 0;
        for (int i = 0; i < n; i++) {
            at = UnreadSeqs.write(bytes, at, seqs[i] - seq);
            at = UnreadSeqs.write(bytes, at, sentAts[i] - sentAt);
            seq = seqs[i];
            sentAt = sentAts[i];
        }
        return bytes;
    }

    public int size() {
        return n;
    }

    /**
     * Keeps a message sent at {@code sentAt} ({@code >= 0}) with seq {@code seq}; false when a kept
     * one beats it, and nothing changed.
     */
    public boolean add(long seq, long sentAt) {
        int next = 0;
        while (next < n && seqs[next] < seq) {
            next++;
        }
        if (next < n && sentAts[next] <= sentAt) {
            return false;
        }
        // Those it beats: a seq no larger and a sentAt no earlier, just below it by the ordering.
        int from = next;
        while (from > 0 && sentAts[from - 1] >= sentAt) {
            from--;
        }
        int to = next < n && seqs[next] == seq ? next + 1 : next;
        int removed = to - from;
        long[] tailSeqs = java.util.Arrays.copyOfRange(seqs, to, n);
        long[] tailSentAts = java.util.Arrays.copyOfRange(sentAts, to, n);
        seqs[from] = seq;
        sentAts[from] = sentAt;
        System.arraycopy(tailSeqs, 0, seqs, from + 1, tailSeqs.length);
        System.arraycopy(tailSentAts, 0, sentAts, from + 1, tailSentAts.length);
        n = n - removed + 1;
        return true;
    }

    /** The largest kept seq sent at or before {@code time}; 0 when none. */
    public long largestSentBy(long time) {
        long largest = 0;
        for (int i = 0; i < n && sentAts[i] <= time; i++) {
            largest = seqs[i];
        }
        return largest;
    }

    /** Forgets the pairs with a seq up to {@code cursor}; false when there were none. */
    public boolean cut(long cursor) {
        int kept = 0;
        while (kept < n && seqs[kept] <= cursor) {
            kept++;
        }
        if (kept == 0) {
            return false;
        }
        System.arraycopy(seqs, kept, seqs, 0, n - kept);
        System.arraycopy(sentAts, kept, sentAts, 0, n - kept);
        n -= kept;
        return true;
    }

    /** A restored message's sentAt is 0, which takes a byte too. */
    private static int varintSize(long value) {
        return value == 0 ? 1 : UnreadSeqs.size(value);
    }

    private static UncheckedIOException corrupt(String why) {
        return new UncheckedIOException(
                "corrupt sentAt frontier in a user's state", new IOException(why));
    }
}
