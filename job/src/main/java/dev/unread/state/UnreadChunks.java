package dev.unread.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * The unread seqs of a user's conversations, split into chunks of 2^16 consecutive seqs, so that a
 * message reads and writes one chunk whatever the pattern of seqs: the set is never copied whole.
 * Public for the savepoint tools (dev.unread.ops), which read the counts and write sets.
 *
 * <p>A chunk is one entry of {@link UnreadCounter#UNREAD_CHUNKS}, keyed by (conversation, seq
 * {@code >>> 16}), holding the low 16 bits of its seqs as the smallest of three encodings, as a
 * Roaring bitmap's container does: a type byte, then a sorted array of 16-bit values (2 bytes per
 * seq), or a bitmap (8,192 bytes), or runs (4 bytes per run: first and last). So a chunk is at most
 * {@link #MAX_CHUNK_BYTES}, and never larger than Roaring's container for the same seqs plus one
 * byte. Empty chunks are not stored.
 *
 * <p>{@link UnreadCounter#UNREAD_CHUNK_INDEX} keeps per conversation the sorted indices of its
 * chunks, so that a read finds the chunks at or below its cursor without probing the empty index
 * range between them (a seq of {@code Long.MAX_VALUE} is chunk 2^47 - 1). The index is read and
 * written only when a chunk appears or empties, and by a read that advances the cursor; it is
 * linear in the number of non-empty chunks, 8 bytes each. That is the remaining worst case: seqs
 * spread one per 2^16 make each message that opens a chunk rewrite an index as long as the number
 * of chunks (still at most 8 bytes per unread seq, and the chunk itself stays one entry).
 *
 * <p>The count of a conversation's seqs is {@link ConversationState#unreadCount}. States written by
 * earlier builds hold the whole set in {@link ConversationState#unreadSeqs} ({@link UnreadSeqs},
 * either format); {@link #migrate} moves such a set into chunks on its first touch.
 */
public final class UnreadChunks {

    /** A chunk holds the seqs whose bits above these are its index. */
    private static final int CHUNK_BITS = 16;

    private static final int WORDS = (1 << CHUNK_BITS) / Long.SIZE;

    private static final byte ARRAY = 0;
    private static final byte BITMAP = 1;
    private static final byte RUNS = 2;

    /** The largest chunk: the type byte and a bitmap. */
    public static final int MAX_CHUNK_BYTES = 1 + WORDS * Long.BYTES;

    private final MapState<Tuple2<Long, Long>, byte[]> chunks;
    private final MapState<Long, long[]> index;

    /** The chunk being edited, one bit per seq. */
    private final long[] words = new long[WORDS];

    private long bytesTouched;

    public UnreadChunks(MapState<Tuple2<Long, Long>, byte[]> chunks, MapState<Long, long[]> index) {
        this.chunks = chunks;
        this.index = index;
    }

    /** The number of unread seqs in a conversation's state, chunked or not yet. */
    public static long count(ConversationState state) {
        return isChunked(state) ? state.unreadCount : UnreadSeqs.of(state.unreadSeqs).count();
    }

    /**
     * The count a conversation's state shows: its unread seqs, or 0 while the user has left the
     * conversation (newest membership event MEMBER_LEFT). The counter emits only this, and
     * republishing from a savepoint must write the same.
     */
    public static long visibleCount(ConversationState state) {
        return state.membership < 0 ? 0 : count(state);
    }

    private static boolean isChunked(ConversationState state) {
        return state.unreadSeqs == null || Arrays.equals(state.unreadSeqs, UnreadSeqs.EMPTY);
    }

    /**
     * Moves a set written by an earlier build from {@code state.unreadSeqs} into chunks and its
     * count into {@code state.unreadCount}; true when it did, and the caller must then store the
     * state. A one-time cost linear in the old set.
     */
    public boolean migrate(long conversationId, ConversationState state) throws Exception {
        if (isChunked(state)) {
            return false;
        }
        UnreadSeqs old = UnreadSeqs.of(state.unreadSeqs);
        bytesTouched += state.unreadSeqs.length;
        long[] runs = old.runs();
        long[] indices = new long[0];
        int n = 0;
        long chunk = -1;
        for (int r = 0; r < runs.length; r += 2) {
            long first = runs[r];
            long last = runs[r + 1];
            while (true) {
                long c = first >>> CHUNK_BITS;
                long end = Math.min(last, c << CHUNK_BITS | (1 << CHUNK_BITS) - 1);
                if (c != chunk) {
                    if (chunk >= 0) {
                        put(conversationId, chunk, encode());
                    }
                    Arrays.fill(words, 0);
                    chunk = c;
                    if (n == indices.length) {
                        indices = Arrays.copyOf(indices, Math.max(4, 2 * n));
                    }
                    indices[n++] = c;
                }
                setRange(low(first), low(end));
                if (end == last) {
                    break;
                }
                first = end + 1;
            }
        }
        if (chunk >= 0) {
            put(conversationId, chunk, encode());
            putIndex(conversationId, Arrays.copyOf(indices, n));
        }
        state.unreadCount = old.count();
        state.unreadSeqs = UnreadSeqs.EMPTY;
        return true;
    }

    /**
     * Adds a seq to a conversation whose set is in chunks; false when it was already there. Reads
     * and writes one chunk, and the index when the chunk is new.
     *
     * @throws IllegalArgumentException when seq is not positive
     */
    public boolean add(long conversationId, ConversationState state, long seq) throws Exception {
        requireChunked(state);
        if (addSeq(conversationId, seq)) {
            state.unreadCount++;
            return true;
        }
        return false;
    }

    /**
     * Adds a seq to the set whose count the caller keeps (the mentions' set, see {@link
     * UnreadCounter#MENTION_CHUNKS}); false when it was already there.
     *
     * @throws IllegalArgumentException when seq is not positive
     */
    public boolean addSeq(long conversationId, long seq) throws Exception {
        if (seq < 1) {
            throw new IllegalArgumentException("seqs are positive: " + seq);
        }
        long chunk = seq >>> CHUNK_BITS;
        byte[] bytes = chunks.get(Tuple2.of(conversationId, chunk));
        int low = low(seq);
        byte[] edited;
        if (bytes == null) {
            edited = new byte[] {ARRAY, (byte) low, (byte) (low >>> 8)};
        } else {
            bytesTouched += bytes.length;
            edited =
                    bytes[0] == RUNS
                            ? addToRuns(bytes, low)
                            : bytes[0] == ARRAY ? addToArray(bytes, low) : addToBitmap(bytes, low);
            if (edited == bytes) {
                return false;
            }
            if (edited == null) {
                // An encoding that stops being the smallest: through the words.
                decode(bytes);
                if ((words[low >>> 6] & 1L << low) != 0) {
                    return false;
                }
                words[low >>> 6] |= 1L << low;
                edited = encode();
            }
        }
        put(conversationId, chunk, edited);
        if (bytes == null) {
            long[] old = getIndex(conversationId);
            int at = -Arrays.binarySearch(old, chunk) - 1;
            long[] grown = new long[old.length + 1];
            System.arraycopy(old, 0, grown, 0, at);
            grown[at] = chunk;
            System.arraycopy(old, at, grown, at + 1, old.length - at);
            putIndex(conversationId, grown);
        }
        return true;
    }

    /**
     * Removes every seq up to and including {@code cursor} from a conversation whose set is in
     * chunks; returns how many. Reads the index, deletes the chunks wholly below the cursor
     * (reading them only to count them when some seqs stay) and rewrites the one it falls in.
     */
    public long removeUpTo(long conversationId, ConversationState state, long cursor)
            throws Exception {
        requireChunked(state);
        long removed = removeSeqsUpTo(conversationId, state.unreadCount, cursor);
        state.unreadCount -= removed;
        return removed;
    }

    /**
     * Removes every seq up to and including {@code cursor} from the set of {@code count} seqs whose
     * count the caller keeps; returns how many.
     */
    public long removeSeqsUpTo(long conversationId, long count, long cursor) throws Exception {
        if (count == 0) {
            return 0;
        }
        long[] indices = getIndex(conversationId);
        long last = cursor >>> CHUNK_BITS;
        boolean all = indices.length == 0 || indices[indices.length - 1] < last;
        long removed = 0;
        int kept = 0;
        while (kept < indices.length && indices[kept] < last) {
            Tuple2<Long, Long> key = Tuple2.of(conversationId, indices[kept]);
            if (!all) {
                byte[] bytes = chunks.get(key);
                bytesTouched += bytes.length;
                removed += cardinality(bytes);
            }
            chunks.remove(key);
            kept++;
        }
        if (all) {
            removed = count;
        } else if (indices[kept] == last) {
            Tuple2<Long, Long> key = Tuple2.of(conversationId, last);
            byte[] bytes = chunks.get(key);
            bytesTouched += bytes.length;
            decode(bytes);
            long here = clearUpTo(low(cursor));
            if (here > 0) {
                removed += here;
                byte[] rest = encode();
                if (rest == null) {
                    chunks.remove(key);
                    kept++;
                } else {
                    put(conversationId, last, rest);
                }
            }
        }
        if (kept == indices.length) {
            index.remove(conversationId);
        } else if (kept > 0) {
            putIndex(conversationId, Arrays.copyOfRange(indices, kept, indices.length));
        }
        return removed;
    }

    /** Forgets every conversation's seqs of the current user. */
    void clear() {
        chunks.clear();
        index.clear();
    }

    /** Bytes of chunks, indices and old sets read and written so far: the work, for tests. */
    long bytesTouched() {
        return bytesTouched;
    }

    private static void requireChunked(ConversationState state) {
        if (!isChunked(state)) {
            throw new IllegalStateException("unread seqs not migrated to chunks yet");
        }
    }

    private static int low(long seq) {
        return (int) seq & (1 << CHUNK_BITS) - 1;
    }

    private void put(long conversationId, long chunk, byte[] bytes) throws Exception {
        bytesTouched += bytes.length;
        chunks.put(Tuple2.of(conversationId, chunk), bytes);
    }

    private long[] getIndex(long conversationId) throws Exception {
        long[] indices = index.get(conversationId);
        if (indices == null) {
            return new long[0];
        }
        bytesTouched += (long) Long.BYTES * indices.length;
        return indices;
    }

    private void putIndex(long conversationId, long[] indices) throws Exception {
        bytesTouched += (long) Long.BYTES * indices.length;
        index.put(conversationId, indices);
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
        if (!(4 * runs <= 2 * count && 4 * runs < WORDS * Long.BYTES)) {
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
        if (4 * runs <= 2 * count && 4 * runs < WORDS * Long.BYTES
                || 2 * count >= WORDS * Long.BYTES) {
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
        if (bytes.length != MAX_CHUNK_BYTES) {
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
        int bitmap = WORDS * Long.BYTES;
        if (4 * runs <= 2 * count && 4 * runs < bitmap || 2 * count < bitmap) {
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

    /** Sets the bits from a to b, both included. */
    private void setRange(int a, int b) {
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
    private long clearUpTo(int b) {
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

    private void decode(byte[] bytes) {
        Arrays.fill(words, 0);
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        byte type = in.get();
        if (type == BITMAP && bytes.length == MAX_CHUNK_BYTES) {
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

    private static long cardinality(byte[] bytes) {
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

    /** The smallest encoding of {@link #words}; null when empty. */
    private byte[] encode() {
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
        int bitmap = WORDS * Long.BYTES;
        ByteBuffer out;
        if (4 * runs <= 2 * count && 4 * runs < bitmap) {
            out = ByteBuffer.allocate(1 + 4 * runs).order(ByteOrder.LITTLE_ENDIAN).put(RUNS);
            for (int first = nextSet(0); first >= 0; ) {
                int end = nextClear(first);
                out.putChar((char) first).putChar((char) (end - 1));
                first = nextSet(end);
            }
        } else if (2 * count < bitmap) {
            out = ByteBuffer.allocate(1 + 2 * count).order(ByteOrder.LITTLE_ENDIAN).put(ARRAY);
            for (int w = 0; w < WORDS; w++) {
                for (long bits = words[w]; bits != 0; bits &= bits - 1) {
                    out.putChar((char) (w << 6 | Long.numberOfTrailingZeros(bits)));
                }
            }
        } else {
            out = ByteBuffer.allocate(MAX_CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN).put(BITMAP);
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

    private static UncheckedIOException corrupt(String why) {
        return new UncheckedIOException("corrupt unread seqs in state", new IOException(why));
    }
}
