package dev.unread.seqs;

import static dev.unread.seqs.ChunkEncoding.ARRAY;
import static dev.unread.seqs.ChunkEncoding.BITMAP;
import static dev.unread.seqs.ChunkEncoding.BITMAP_BYTES;
import static dev.unread.seqs.ChunkEncoding.RUNS;
import static dev.unread.seqs.ChunkEncoding.WORDS;
import static dev.unread.seqs.ChunkEncoding.corrupt;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A chunk or tree node decoded to one bit per value, to edit when {@link ChunkEncoding} cannot edit
 * the bytes in place, and encoded back in the smallest form. One per {@link UnreadChunks}, reused
 * for every edit, so that an edit allocates only the bytes it writes; its users therefore finish
 * one chunk or node (decode, edit, encode) before they start the next.
 */
final class ChunkBits {

    private final long[] words = new long[WORDS];

    /**
     * The set with low added, editing the encoded set while it stays the smallest encoding and
     * going through the bits when it changes form: the same array when low is there already.
     */
    byte[] with(byte[] bytes, int low) {
        if (bytes == null) {
            return new byte[] {ARRAY, (byte) low, (byte) (low >>> 8)};
        }
        byte[] edited = ChunkEncoding.addInPlace(bytes, low);
        if (edited != null) {
            return edited;
        }
        decode(bytes);
        if ((words[low >>> 6] & 1L << low) != 0) {
            return bytes;
        }
        words[low >>> 6] |= 1L << low;
        return encode();
    }

    void empty() {
        Arrays.fill(words, 0);
    }

    void set(int value) {
        words[value >>> 6] |= 1L << value;
    }

    void unset(int value) {
        words[value >>> 6] &= ~(1L << value);
    }

    /** Sets the bits from a to b, both included. */
    void setRange(int a, int b) {
        int first = a >>> 6;
        int last = b >>> 6;
        long tail = -1L >>> (63 - (b & 63));
        if (first == last) {
            words[first] |= -1L << a & tail;
            return;
        }
        words[first] |= -1L << a;
        Arrays.fill(words, first + 1, last, -1L);
        words[last] |= tail;
    }

    /** Clears the bits from 0 to b included; returns how many were set. */
    long clearUpTo(int b) {
        long cleared = 0;
        int last = b >>> 6;
        for (int w = 0; w < last; w++) {
            cleared += Long.bitCount(words[w]);
            words[w] = 0;
        }
        long mask = -1L >>> (63 - (b & 63));
        cleared += Long.bitCount(words[last] & mask);
        words[last] &= ~mask;
        return cleared;
    }

    void decode(byte[] bytes) {
        Arrays.fill(words, 0);
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        byte type = in.get();
        if (type == BITMAP && bytes.length == UnreadChunks.MAX_CHUNK_BYTES) {
            in.asLongBuffer().get(words);
        } else if (type == ARRAY && bytes.length % 2 == 1 && bytes.length > 1) {
            while (in.hasRemaining()) {
                int v = in.getChar();
                words[v >>> 6] |= 1L << v;
            }
        } else if (type == RUNS && bytes.length % 4 == 1 && bytes.length > 1) {
            while (in.hasRemaining()) {
                int first = in.getChar();
                int last = in.getChar();
                if (last < first) {
                    throw corrupt("run ends before it starts");
                }
                setRange(first, last);
            }
        } else {
            throw corrupt("chunk of type " + type + " and " + bytes.length + " bytes");
        }
    }

    /** The smallest encoding of the bits; null when none is set. */
    byte[] encode() {
        int count = 0;
        int runs = 0;
        long carry = 0;
        for (long w : words) {
            count += Long.bitCount(w);
            // A run starts at each set bit whose lower neighbour is clear.
            runs += Long.bitCount(w & ~(w << 1 | carry));
            carry = w >>> 63;
        }
        if (count == 0) {
            return null;
        }
        ByteBuffer out;
        if (4 * runs <= 2 * count && 4 * runs < BITMAP_BYTES) {
            out = ByteBuffer.allocate(1 + 4 * runs).order(ByteOrder.LITTLE_ENDIAN).put(RUNS);
            for (int first = nextSet(0); first >= 0; ) {
                int end = nextClear(first);
                out.putChar((char) first).putChar((char) (end - 1));
                first = nextSet(end);
            }
        } else if (2 * count < BITMAP_BYTES) {
            out = ByteBuffer.allocate(1 + 2 * count).order(ByteOrder.LITTLE_ENDIAN).put(ARRAY);
            for (int w = 0; w < WORDS; w++) {
                for (long bits = words[w]; bits != 0; bits &= bits - 1) {
                    out.putChar((char) (w << 6 | Long.numberOfTrailingZeros(bits)));
                }
            }
        } else {
            out =
                    ByteBuffer.allocate(UnreadChunks.MAX_CHUNK_BYTES)
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .put(BITMAP);
            out.asLongBuffer().put(words);
        }
        return out.array();
    }

    /** The first set bit at or after from; -1 when none. */
    private int nextSet(int from) {
        if (from >= WORDS * 64) {
            return -1;
        }
        int w = from >>> 6;
        long bits = words[w] & -1L << from;
        while (bits == 0) {
            if (++w == WORDS) {
                return -1;
            }
            bits = words[w];
        }
        return w << 6 | Long.numberOfTrailingZeros(bits);
    }

    /** The first clear bit at or after from; the chunk's size when none. */
    private int nextClear(int from) {
        if (from >= WORDS * 64) {
            return WORDS * 64;
        }
        int w = from >>> 6;
        long bits = ~words[w] & -1L << from;
        while (bits == 0) {
            if (++w == WORDS) {
                return WORDS * 64;
            }
            bits = ~words[w];
        }
        return w << 6 | Long.numberOfTrailingZeros(bits);
    }
}
