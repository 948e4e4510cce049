package dev.unread.counter;

import dev.unread.seqs.SentAtFrontier;
import dev.unread.seqs.UnreadSeqs;
import dev.unread.state.StateSchema;
import java.util.Arrays;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * The {@code sentAt} of a user's unread messages, for ALL_READ ({@link AllRead}): per conversation
 * and per thread, a {@link SentAtFrontier} of the messages from others past the cursor, deleted or
 * not. A message adds to it when it arrives past the cursor, and a read that moves the cursor cuts
 * it; so it holds no more than the messages a cursor has not passed, and is gone once they are
 * read.
 *
 * <p>Kept in the conversation's or thread's record ({@code sentAts}) while it takes at most {@link
 * #MAX_IN_RECORD} bytes, so that a message costs nothing beyond the record it reads and writes
 * anyway; past that in {@link StateSchema#SENT_AT} under (conversation, thread seq or 0), the
 * record holding {@link #IN_STATE}, so that the record stays small whatever the frontier's size. It
 * goes back to the record's default once cut to nothing.
 *
 * <p>A record restored from a build that kept no {@code sentAt} gets one pair on its first touch:
 * its largest unread seq at time 0, sent before any ALL_READ, which then reads them all.
 */
final class SentAts {

    /** The most bytes of a frontier its record keeps: about 30 unread messages. */
    static final int MAX_IN_RECORD = 96;

    /** In a record: its frontier is in {@link StateSchema#SENT_AT}. No frontier starts with 0. */
    private static final byte[] IN_STATE = {0};

    private final MapState<Tuple2<Long, Long>, byte[]> frontiers;

    SentAts(RuntimeContext context) {
        frontiers = context.getMapState(StateSchema.SENT_AT);
    }

    /**
     * Keeps a message's {@code sentAt} in the frontier a record holds as {@code inRecord} ({@code
     * threadSeq} 0 for a conversation's); returns what the record holds after, the same array when
     * nothing changed.
     */
    byte[] add(long conversationId, long threadSeq, byte[] inRecord, long seq, long sentAt)
            throws Exception {
        boolean inState = inState(inRecord);
        Tuple2<Long, Long> key = Tuple2.of(conversationId, threadSeq);
        byte[] before = inState ? frontiers.get(key) : bytes(inRecord);
        byte[] encoded = SentAtFrontier.appended(before, seq, sentAt);
        if (encoded == null) {
            SentAtFrontier f = SentAtFrontier.decode(before);
            if (!f.add(seq, sentAt)) {
                return inRecord;
            }
            encoded = f.encode();
        }
        if (inState || encoded.length > MAX_IN_RECORD) {
            frontiers.put(key, encoded);
            return IN_STATE;
        }
        return encoded;
    }

    /** Forgets the messages up to a cursor that moved to {@code cursor}; as {@link #add}. */
    byte[] cut(long conversationId, long threadSeq, byte[] inRecord, long cursor) throws Exception {
        if (isEmpty(inRecord)) {
            return inRecord;
        }
        boolean inState = inState(inRecord);
        Tuple2<Long, Long> key = Tuple2.of(conversationId, threadSeq);
        SentAtFrontier f = SentAtFrontier.decode(inState ? frontiers.get(key) : inRecord);
        if (!f.cut(cursor)) {
            return inRecord;
        }
        if (f.size() == 0) {
            if (inState) {
                frontiers.remove(key);
            }
            return UnreadSeqs.EMPTY;
        }
        if (inState) {
            frontiers.put(key, f.encode());
            return IN_STATE;
        }
        return f.encode();
    }

    /** The largest seq of a kept message sent at or before {@code time}; 0 when none. */
    long sentBy(long conversationId, long threadSeq, byte[] inRecord, long time) throws Exception {
        if (isEmpty(inRecord)) {
            return 0;
        }
        byte[] bytes =
                inState(inRecord) ? frontiers.get(Tuple2.of(conversationId, threadSeq)) : inRecord;
        return SentAtFrontier.decode(bytes).largestSentBy(time);
    }

    /** Whether a record holds no frontier. */
    static boolean isEmpty(byte[] inRecord) {
        return inRecord == null
                || inRecord.length == 0
                || Arrays.equals(inRecord, UnreadSeqs.EMPTY);
    }

    void clear() {
        frontiers.clear();
    }

    /** Whether a record's frontier is in {@link StateSchema#SENT_AT}: reading it reads an entry. */
    static boolean inState(byte[] inRecord) {
        return Arrays.equals(inRecord, IN_STATE);
    }

    private static byte[] bytes(byte[] inRecord) {
        return isEmpty(inRecord) ? SentAtFrontier.EMPTY : inRecord;
    }
}
