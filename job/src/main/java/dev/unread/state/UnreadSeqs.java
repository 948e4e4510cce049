package dev.unread.state;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.roaringbitmap.longlong.LongIterator;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * A compressed set of message seqs (RoaringBitmap), so that a conversation with thousands of
 * unread messages, mostly consecutive seqs, stays a few bytes in state. Public for the savepoint
 * tools (dev.unread.ops), which read and write {@link ConversationState#unreadSeqs}.
 */
public final class UnreadSeqs {

    public static final byte[] EMPTY = toBytes(new Roaring64NavigableMap());

    private final Roaring64NavigableMap seqs;

    private UnreadSeqs(Roaring64NavigableMap seqs) {
        this.seqs = seqs;
    }

    public static UnreadSeqs of(byte[] bytes) {
        Roaring64NavigableMap seqs = new Roaring64NavigableMap();
        try {
            seqs.deserializePortable(new DataInputStream(new java.io.ByteArrayInputStream(bytes)));
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt unread seqs in state", e);
        }
        return new UnreadSeqs(seqs);
    }

    /** Adds a seq; false when it was already there. */
    public boolean add(long seq) {
        if (seqs.contains(seq)) {
            return false;
        }
        seqs.addLong(seq);
        return true;
    }

    /**
     * Removes every seq up to and including {@code cursor}. Walks only the removed seqs, which
     * were each paid for when added.
     */
    void removeUpTo(long cursor) {
        LongIterator it = seqs.getLongIterator();
        long[] covered = new long[16];
        int n = 0;
        while (it.hasNext()) {
            long seq = it.next();
            if (seq > cursor) {
                break;
            }
            if (n == covered.length) {
                covered = java.util.Arrays.copyOf(covered, n * 2);
            }
            covered[n++] = seq;
        }
        for (int i = 0; i < n; i++) {
            seqs.removeLong(covered[i]);
        }
    }

    public long count() {
        return seqs.getLongCardinality();
    }

    public byte[] toBytes() {
        seqs.runOptimize();
        return toBytes(seqs);
    }

    private static byte[] toBytes(Roaring64NavigableMap seqs) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            seqs.serializePortable(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
