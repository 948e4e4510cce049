package dev.unread.seqs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The stored form of a chunk or tree node of {@link UnreadChunks}: its 16-bit values as the
 * smallest of three encodings, as a Roaring bitmap's container does: a type byte, then a sorted
 * array of 16-bit values (2 bytes per value), or a bitmap (8,192 bytes), or runs (4 bytes per run:
 * first and last), all little-endian. So an entry is at most {@link UnreadChunks#MAX_CHUNK_BYTES},
 * and never larger than Roaring's container for the same values plus one byte. Stored savepoints
 * hold this format, so it never changes.
 *
 * <p>Reads work on the bytes without decoding them, and adding a value edits them in place while
 * they keep their form, so that the common message costs one small copy; {@link ChunkBits} takes
 * over when the form changes.
 */
final class ChunkEncoding {

    static final int WORDS = (1 << UnreadChunks.CHUNK_BITS) / Long.SIZE;

    /** A bitmap's size without its type byte: the bound the two other forms must stay below. */
    static final int BITMAP_BYTES = WORDS * Long.BYTES;

    static final byte ARRAY = 0;
    static final byte BITMAP = 1;
    static final byte RUNS = 2;

    private ChunkEncoding() {}

    /** The value a seq or chunk index takes in its chunk or node: its low 16 bits. */
    static int low(long seq) {
        return (int) seq & (1 << UnreadChunks.CHUNK_BITS) - 1;
    }

    /** Whether an encoded set holds the value. */
    static boolean contains(byte[] bytes, int value) {
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
    static int max(byte[] bytes) {
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
    static int[] values(byte[] bytes) {
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

    static long cardinality(byte[] bytes) {
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

    /**
     * Adds low to an encoded set while it keeps its form: the same array when low is there already,
     * a new one, or null when the set must change form.
     */
    static byte[] addInPlace(byte[] bytes, int low) {
        return bytes[0] == RUNS
                ? addToRuns(bytes, low)
                : bytes[0] == ARRAY ? addToArray(bytes, low) : addToBitmap(bytes, low);
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
        if (!(4 * runs <= 2 * count && 4 * runs < BITMAP_BYTES)) {
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
        if (4 * runs <= 2 * count && 4 * runs < BITMAP_BYTES || 2 * count >= BITMAP_BYTES) {
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
        if (bytes.length != UnreadChunks.MAX_CHUNK_BYTES) {
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
        if (4 * runs <= 2 * count && 4 * runs < BITMAP_BYTES || 2 * count < BITMAP_BYTES) {
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

    static UncheckedIOException corrupt(String why) {
        return new UncheckedIOException("corrupt unread seqs in state", new IOException(why));
    }
}
