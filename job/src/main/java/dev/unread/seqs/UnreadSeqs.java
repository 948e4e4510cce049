package dev.unread.seqs;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import org.roaringbitmap.longlong.LongIterator;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * The unread seqs of one conversation as runs of consecutive seqs, as earlier builds stored them
 * whole in a conversation record's {@code unreadSeqs}; this build reads this format only to upgrade
 * such a set ({@code ConversationSeqs#upgrade}). Its {@link #EMPTY} is what a record holds for a
 * set that is empty or in chunks. Public for the savepoint tools (dev.unread.ops).
 *
 * <p>The encoding is {@link #FORMAT}, then unsigned LEB128 varints: the number of seqs, the
 * greatest seq, then per run, ascending, its start minus the previous run's end (the first run's
 * start itself) and its length. The empty set is {@code FORMAT} alone. The header lets {@link
 * #count()} and appending past the greatest seq skip the runs; seqs are positive, so every varint
 * holds at least 1, and a canonical varint of at least 1 has no zero byte.
 *
 * <p>Earlier builds wrote {@code Roaring64NavigableMap.serializePortable}, which savepoints still
 * hold. Its first byte can be anything (it is the low byte of a little-endian 64-bit count of
 * 32-bit buckets, 0 empty, 1 for seqs below 2^32, 2 or more above), but the count is below 2^32, so
 * that format is at least 8 bytes long with byte 7 always 0, which the zero-free runs never are:
 * that, not the leading byte, tells the formats apart. The old format is read into runs; the next
 * write replaces it.
 *
 * <p>Edits splice the few varints they change into the bytes. Until the first edit the bytes are
 * the caller's array, never written; {@link #toBytes()} returns a new array after an edit and the
 * one read otherwise.
 */
public final class UnreadSeqs {

    /** Leads the runs encoding; names it should the encoding change again. */
    private static final byte FORMAT = 2;

    public static final byte[] EMPTY = {FORMAT};

    /** The number of seqs. */
    private long count;

    /** The greatest seq; 0 when empty. */
    private long max;

    /** The runs' varints are {@code body[from, to)}. */
    private byte[] body;

    private int from;
    private int to;

    /** Whether body is this object's own array, written in place, rather than the caller's. */
    private boolean owned;

    /** What {@link #toBytes()} returns until the next edit; null after one. */
    private byte[] encoded;

    /** Where the next {@link #read()} reads in body. */
    private int at;

    private UnreadSeqs(byte[] body, int from, int to) {
        this.body = body;
        this.from = from;
        this.to = to;
    }

    /** Reads either format; reads only the header, the runs are walked by the edits. */
    public static UnreadSeqs of(byte[] bytes) {
        if (bytes.length >= 8 && bytes[7] == 0) {
            return ofRoaring(bytes);
        }
        if (bytes.length == 0 || bytes[0] != FORMAT) {
            throw corrupt("neither format", null);
        }
        UnreadSeqs seqs = new UnreadSeqs(bytes, 1, bytes.length);
        if (bytes.length > 1) {
            seqs.at = 1;
            seqs.count = seqs.read();
            seqs.max = seqs.read();
            seqs.from = seqs.at;
            // The last byte must end a varint: high bit clear, and not zero.
            if (seqs.from == seqs.to || bytes[seqs.to - 1] <= 0 || seqs.max < seqs.count) {
                throw corrupt("header does not match the runs", null);
            }
        }
        seqs.encoded = bytes;
        return seqs;
    }

    private static UnreadSeqs ofRoaring(byte[] bytes) {
        Roaring64NavigableMap old = new Roaring64NavigableMap();
        try {
            old.deserializePortable(new DataInputStream(new ByteArrayInputStream(bytes)));
        } catch (IOException | RuntimeException e) {
            // The Roaring reader reports some malformed input as runtime exceptions.
            throw corrupt("roaring format", e);
        }
        UnreadSeqs seqs = new UnreadSeqs(EMPTY, 1, 1);
        // Ascending (unsigned order, and seqs are positive), so each add appends.
        for (LongIterator it = old.getLongIterator(); it.hasNext(); ) {
            long seq = it.next();
            if (seq < 1) {
                throw corrupt("seq " + seq + " in roaring format", null);
            }
            seqs.add(seq);
        }
        return seqs;
    }

    /**
     * Adds a seq; false when it was already there. Past the greatest seq it touches only the last
     * run; below it walks the runs up to the seq.
     *
     * @throws IllegalArgumentException when seq is not positive
     */
    public boolean add(long seq) {
        if (seq < 1) {
            throw new IllegalArgumentException("seqs are positive: " + seq);
        }
        if (seq <= max) {
            return insert(seq);
        }
        if (count > 0 && seq == max + 1) {
            int lengthAt = lastVarint();
            at = lengthAt;
            long length = read();
            replace(lengthAt, to, 1, length + 1, 0, 0);
        } else {
            replace(to, to, 2, seq - max, 1, 0);
        }
        max = seq;
        count++;
        return true;
    }

    /** Adds a seq below the greatest one, merging it into the runs either side it touches. */
    private boolean insert(long seq) {
        at = from;
        long end = 0;
        int lengthAt = -1;
        long length = 0;
        while (true) {
            int gapAt = at;
            long gap = read();
            int nextLengthAt = at;
            long nextLength = read();
            long start = checked(end, end + gap);
            if (seq < start) {
                boolean joinsPrevious = lengthAt >= 0 && seq == end + 1;
                boolean joinsNext = seq == start - 1;
                if (joinsPrevious && joinsNext) {
                    replace(lengthAt, at, 1, length + 1 + nextLength, 0, 0);
                } else if (joinsPrevious) {
                    replace(lengthAt, nextLengthAt, 2, length + 1, gap - 1, 0);
                } else if (joinsNext) {
                    replace(gapAt, at, 2, gap - 1, nextLength + 1, 0);
                } else {
                    replace(gapAt, nextLengthAt, 3, seq - end, 1, start - seq);
                }
                count++;
                return true;
            }
            end = checked(start - 1, start + nextLength - 1);
            if (seq <= end) {
                return false;
            }
            lengthAt = nextLengthAt;
            length = nextLength;
        }
    }

    public long count() {
        return count;
    }

    /** The runs, ascending, as their first and last seqs one after the other. */
    public long[] runs() {
        long[] runs = new long[0];
        int n = 0;
        at = from;
        long end = 0;
        while (at < to) {
            long start = checked(end, end + read());
            end = checked(start - 1, start + read() - 1);
            if (n == runs.length) {
                runs = Arrays.copyOf(runs, Math.max(8, 2 * n));
            }
            runs[n++] = start;
            runs[n++] = end;
        }
        return Arrays.copyOf(runs, n);
    }

    /** The encoding of these seqs; callers must not write into the array. */
    public byte[] toBytes() {
        if (encoded == null) {
            if (count == 0) {
                encoded = EMPTY;
            } else {
                int header = 1 + size(count) + size(max);
                byte[] bytes = new byte[header + to - from];
                bytes[0] = FORMAT;
                write(bytes, write(bytes, 1, count), max);
                System.arraycopy(body, from, bytes, header, to - from);
                encoded = bytes;
            }
        }
        return encoded;
    }

    /** Where the last varint of the runs starts: after the last byte without the high bit. */
    private int lastVarint() {
        int p = to - 1;
        while (p > from && body[p - 1] < 0) {
            p--;
        }
        return p;
    }

    /**
     * Replaces {@code body[a, b)} with the varints of the first {@code n} of v1, v2, v3, in place
     * when body is this object's and has room, else in a new array with room to grow, so a run of
     * appends to one object costs amortized O(1) each.
     */
    private void replace(int a, int b, int n, long v1, long v2, long v3) {
        int size = size(v1) + (n > 1 ? size(v2) : 0) + (n > 2 ? size(v3) : 0);
        int length = to - from - (b - a) + size;
        if (owned && from + length <= body.length) {
            System.arraycopy(body, b, body, a + size, to - b);
        } else {
            byte[] grown = new byte[length + (length >> 1) + 16];
            System.arraycopy(body, from, grown, 0, a - from);
            System.arraycopy(body, b, grown, a - from + size, to - b);
            a -= from;
            body = grown;
            from = 0;
            owned = true;
        }
        to = from + length;
        int p = write(body, a, v1);
        if (n > 1) {
            p = write(body, p, v2);
        }
        if (n > 2) {
            write(body, p, v3);
        }
        encoded = null;
    }

    /** Reads the varint at {@link #at}, checking it is canonical, positive and inside the runs. */
    private long read() {
        long value = 0;
        for (int shift = 0; shift < 63; shift += 7) {
            if (at == to) {
                throw corrupt("truncated", null);
            }
            byte b = body[at++];
            value |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                if (b == 0) {
                    throw corrupt("zero byte ending a varint", null);
                }
                return value;
            }
        }
        throw corrupt("varint longer than 63 bits", null);
    }

    /** A run bound computed from the one before: past it and not past the greatest seq. */
    private long checked(long before, long bound) {
        if (bound < before || bound > max) {
            throw corrupt("runs beyond the greatest seq", null);
        }
        return bound;
    }

    /** The bytes of a value's unsigned LEB128 varint; SmallSeqs writes the same varints. */
    static int size(long value) {
        return (70 - Long.numberOfLeadingZeros(value)) / 7;
    }

    /** Writes a value's unsigned LEB128 varint at {@code p}; returns where it ends. */
    static int write(byte[] bytes, int p, long value) {
        while ((value & ~0x7FL) != 0) {
            bytes[p++] = (byte) (value | 0x80);
            value >>>= 7;
        }
        bytes[p++] = (byte) value;
        return p;
    }

    private static UncheckedIOException corrupt(String why, Exception cause) {
        return new UncheckedIOException(
                "corrupt unread seqs in state", new IOException(why, cause));
    }
}
