package dev.unread.state;

import dev.unread.seqs.UnreadSeqs;
import java.util.Arrays;

/** {@link ConversationState} in keyed state; see {@link CompactStateSerializer}. */
public final class ConversationStateSerializer extends CompactStateSerializer<ConversationState> {

    public static final ConversationStateSerializer INSTANCE = new ConversationStateSerializer();

    private static final int UNREAD_SEQS = 1;
    private static final int MENTION_SEQS = 14;
    private static final int INVOLVED_SEQS = 15;
    private static final int UNREAD_THREAD_SEQS = 19;
    private static final int BARE_THREAD_SEQS = 21;

    private ConversationStateSerializer() {
        super(22);
    }

    @Override
    long[] values(ConversationState s) {
        return new long[] {
            s.lastReadSeq,
            0,
            s.unreadCount,
            s.refreshedIn,
            s.membership,
            s.mentionCount,
            s.preference,
            s.preferenceSetAt,
            s.lastReadAt,
            s.markedAt,
            s.deletedCount,
            s.followedUnreadThreads,
            s.followedMentionThreads,
            s.followedThreadMentions,
            0,
            0,
            s.involvedCount,
            s.threadsIndexed,
            s.unreadThreadCount,
            0,
            s.bareThreadCount,
            0
        };
    }

    @Override
    ConversationState of(long[] v, byte[][] bytes) {
        ConversationState s = new ConversationState();
        s.lastReadSeq = v[0];
        s.unreadSeqs = orEmpty(bytes[UNREAD_SEQS]);
        s.unreadCount = v[2];
        s.refreshedIn = v[3];
        s.membership = v[4];
        s.mentionCount = v[5];
        s.preference = v[6];
        s.preferenceSetAt = v[7];
        s.lastReadAt = v[8];
        s.markedAt = v[9];
        s.deletedCount = v[10];
        s.followedUnreadThreads = v[11];
        s.followedMentionThreads = v[12];
        s.followedThreadMentions = v[13];
        s.mentionSeqs = orEmpty(bytes[MENTION_SEQS]);
        s.involvedSeqs = orEmpty(bytes[INVOLVED_SEQS]);
        s.involvedCount = v[16];
        s.threadsIndexed = v[17];
        s.unreadThreadCount = v[18];
        s.unreadThreadSeqs = orEmpty(bytes[UNREAD_THREAD_SEQS]);
        s.bareThreadCount = v[20];
        s.bareThreadSeqs = orEmpty(bytes[BARE_THREAD_SEQS]);
        return s;
    }

    private static byte[] orEmpty(byte[] seqs) {
        return seqs == null ? UnreadSeqs.EMPTY : seqs;
    }

    /** The seq sets kept in the record while small; see ConversationSeqs. */
    @Override
    boolean isBytes(int field) {
        return field == UNREAD_SEQS
                || field == MENTION_SEQS
                || field == INVOLVED_SEQS
                || field == UNREAD_THREAD_SEQS
                || field == BARE_THREAD_SEQS;
    }

    @Override
    byte[] bytes(ConversationState s, int field) {
        switch (field) {
            case UNREAD_SEQS:
                return s.unreadSeqs;
            case MENTION_SEQS:
                return s.mentionSeqs;
            case INVOLVED_SEQS:
                return s.involvedSeqs;
            case UNREAD_THREAD_SEQS:
                return s.unreadThreadSeqs;
            case BARE_THREAD_SEQS:
                return s.bareThreadSeqs;
            default:
                return null;
        }
    }

    @Override
    boolean isDefault(byte[] seqs) {
        return seqs == null || Arrays.equals(seqs, UnreadSeqs.EMPTY);
    }

    @Override
    public Snapshot snapshotConfiguration() {
        return new Snapshot();
    }

    public static final class Snapshot extends CompactStateSerializer.Snapshot<ConversationState> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
