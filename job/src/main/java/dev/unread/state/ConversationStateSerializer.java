package dev.unread.state;

import java.util.Arrays;

/** {@link ConversationState} in keyed state; see {@link CompactStateSerializer}. */
public final class ConversationStateSerializer extends CompactStateSerializer<ConversationState> {

    public static final ConversationStateSerializer INSTANCE = new ConversationStateSerializer();

    private ConversationStateSerializer() {
        super(14);
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
            s.followedThreadMentions
        };
    }

    @Override
    ConversationState of(long[] v, byte[] unreadSeqs) {
        ConversationState s = new ConversationState();
        s.lastReadSeq = v[0];
        s.unreadSeqs = unreadSeqs == null ? UnreadSeqs.EMPTY : unreadSeqs;
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
        return s;
    }

    /** The unread seqs of states written by earlier builds, which move into chunks. */
    @Override
    int bytesField() {
        return 1;
    }

    @Override
    byte[] bytes(ConversationState s) {
        return s.unreadSeqs;
    }

    @Override
    boolean isDefault(byte[] unreadSeqs) {
        return Arrays.equals(unreadSeqs, UnreadSeqs.EMPTY);
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
