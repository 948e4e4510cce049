package dev.unread.state;

import java.util.List;

/** {@link ConversationState} in keyed state; see {@link CompactStateSerializer}. */
public final class ConversationStateSerializer extends CompactStateSerializer<ConversationState> {

    public static final ConversationStateSerializer INSTANCE = new ConversationStateSerializer();

    private ConversationStateSerializer() {
        super(
                ConversationState::new,
                List.of(
                        number(s -> s.lastReadSeq, (s, v) -> s.lastReadSeq = v),
                        seqs(s -> s.unreadSeqs, (s, v) -> s.unreadSeqs = v),
                        number(s -> s.unreadCount, (s, v) -> s.unreadCount = v),
                        number(s -> s.refreshedIn, (s, v) -> s.refreshedIn = v),
                        number(s -> s.membership, (s, v) -> s.membership = v),
                        number(s -> s.mentionCount, (s, v) -> s.mentionCount = v),
                        number(s -> s.preference, (s, v) -> s.preference = v),
                        number(s -> s.preferenceSetAt, (s, v) -> s.preferenceSetAt = v),
                        number(s -> s.lastReadAt, (s, v) -> s.lastReadAt = v),
                        number(s -> s.markedAt, (s, v) -> s.markedAt = v),
                        number(s -> s.deletedCount, (s, v) -> s.deletedCount = v),
                        number(s -> s.followedUnreadThreads, (s, v) -> s.followedUnreadThreads = v),
                        number(
                                s -> s.followedMentionThreads,
                                (s, v) -> s.followedMentionThreads = v),
                        number(
                                s -> s.followedThreadMentions,
                                (s, v) -> s.followedThreadMentions = v),
                        seqs(s -> s.mentionSeqs, (s, v) -> s.mentionSeqs = v),
                        seqs(s -> s.involvedSeqs, (s, v) -> s.involvedSeqs = v),
                        number(s -> s.involvedCount, (s, v) -> s.involvedCount = v),
                        number(s -> s.threadsIndexed, (s, v) -> s.threadsIndexed = v),
                        number(s -> s.unreadThreadCount, (s, v) -> s.unreadThreadCount = v),
                        seqs(s -> s.unreadThreadSeqs, (s, v) -> s.unreadThreadSeqs = v),
                        number(s -> s.bareThreadCount, (s, v) -> s.bareThreadCount = v),
                        seqs(s -> s.bareThreadSeqs, (s, v) -> s.bareThreadSeqs = v),
                        number(s -> s.channelMentionCount, (s, v) -> s.channelMentionCount = v),
                        seqs(s -> s.channelMentionSeqs, (s, v) -> s.channelMentionSeqs = v),
                        number(s -> s.ignoreChannelMentions, (s, v) -> s.ignoreChannelMentions = v),
                        number(
                                s -> s.ignoreChannelMentionsSetAt,
                                (s, v) -> s.ignoreChannelMentionsSetAt = v),
                        number(s -> s.editCount, (s, v) -> s.editCount = v),
                        number(s -> s.sentAtKept, (s, v) -> s.sentAtKept = v),
                        seqs(s -> s.sentAts, (s, v) -> s.sentAts = v),
                        number(s -> s.bareTouchHead, (s, v) -> s.bareTouchHead = v),
                        number(s -> s.bareTouchTail, (s, v) -> s.bareTouchTail = v)));
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
