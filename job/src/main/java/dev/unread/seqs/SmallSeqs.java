package dev.unread.seqs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * The form in which a conversation's record keeps a small seq set ({@code ConversationSeqs}): the
 * byte {@link #FORMAT}, then the seqs ascending as unsigned LEB128 varints, the first itself and
 * each later one as its distance from the one before. The record keeps the count, so nothing else
 * is written: a seq costs a byte while it is within 127 of the one before, where {@link
 * UnreadSeqs}' runs cost two for the scattered seqs of a conversation with others in it. Sets are
 * at most {@code ConversationSeqs#SMALL} seqs, so every edit decodes and encodes the whole set.
 */
public final class SmallSeqs {

    /** Leads the seqs; neither {@link UnreadSeqs}' format nor what the record holds for chunks. */
    public static final byte FORMAT = 3;

    private SmallSeqs() {}

    /** The set of {@code count} seqs, ascending, in an array with room for one more. */
    public static long[] decode(byte[] bytes, int count) {
        long[] seqs = new long[count + 1];
        if (count == 0) {
            return seqs;
        }
        if (bytes[0] != FORMAT) {
            throw corrupt("not the small-set format");
        }
        int at = 1;
        long seq = 0;
        for (int i = 0; i < count; i++) {
            long delta = 0;
            for (int shift = 0; ; shift += 7) {
                if (at == bytes.length || shift > 56) {
                    throw corrupt("fewer seqs than the record's count");
                }
                byte b = bytes[at++];
                delta |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    break;
                }
            }
            if (delta < 1 || seq + delta < seq) {
                throw corrupt("seqs not ascending");
            }
            seq += delta;
            seqs[i] = seq;
        }
        if (at != bytes.length) {
            throw corrupt("more seqs than the record's count");
        }
        return seqs;
    }

    /** {@code seqs[from, to)}, ascending, in this form; {@link UnreadSeqs#EMPTY} when none. */
    public static byte[] encode(long[] seqs, int from, int to) {
        if (from == to) {
            return UnreadSeqs.EMPTY;
        }
        int size = 1;
        long before = 0;
        for (int i = from; i < to; i++) {
            size += UnreadSeqs.size(seqs[i] - before);
            before = seqs[i];
        }
        byte[] bytes = new byte[size];
        bytes[0] = FORMAT;
        int at = 1;
        before = 0;
        for (int i = from; i < to; i++) {
            at = UnreadSeqs.write(bytes, at, seqs[i] - before);
            before = seqs[i];
        }
        return bytes;
    }

    /** The first {@code n} seqs as runs (first and last seq of each, one after the other). */
    public static long[] runs(long[] seqs, int n) {
        long[] runs = new long[2 * n];
        int r = 0;
        for (int i = 0; i < n; i++) {
            if (r > 0 && runs[r - 1] + 1 == seqs[i]) {
                runs[r - 1] = seqs[i];
            } else {
                runs[r++] = seqs[i];
                runs[r++] = seqs[i];
            }
        }
        return Arrays.copyOf(runs, r);
    }

    private static UncheckedIOException corrupt(String why) {
        return new UncheckedIOException(
                "corrupt seq set in a conversation's state", new IOException(why));
    }
}
