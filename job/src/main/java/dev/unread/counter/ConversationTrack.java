package dev.unread.counter;

import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import java.util.function.LongConsumer;
import org.apache.flink.util.Collector;

/**
 * A conversation's own read track (root 0), in the conversation's record: its cursor {@code
 * lastReadSeq}, the unread, mention and channel-wide mention seqs as {@link ConversationSeqs}, the
 * deleted seqs in {@link Deletions}. What it shows is the whole {@link ConversationView}, mark and
 * share included.
 */
final class ConversationTrack extends ReadTrack {

    private final ConversationSeqs unread;
    private final ConversationSeqs mentions;
    private final ConversationSeqs channelMentions;
    private final Deletions deletions;

    /** What the conversation showed when {@link #begin} read it. */
    ConversationView before;

    /** What it shows since the last {@link #writeOut}. */
    ConversationView after;

    ConversationTrack(UserStates states) {
        super(states.edits, states.sentAts, states.incarnation);
        unread = states.unreadSeqs;
        mentions = states.mentionSeqs;
        channelMentions = states.channelMentionSeqs;
        deletions = states.deletions;
    }

    /** Points the track at the conversation's record for an event, noting what it shows. */
    void begin(long id, ConversationState state) throws Exception {
        start(id, 0, state);
        // A set an earlier build kept is stored upgraded even if the event changes nothing else.
        stored = unread.upgrade(id, state);
        touch();
        before = ConversationView.of(state);
    }

    @Override
    long get(Field field) {
        return switch (field) {
            case CURSOR -> conversation.lastReadSeq;
            case REFRESHED_IN -> conversation.refreshedIn;
            case SENT_AT_KEPT -> conversation.sentAtKept;
        };
    }

    @Override
    byte[] sentAts() {
        return conversation.sentAts;
    }

    @Override
    void set(Field field, long value) {
        switch (field) {
            case SENT_AT_KEPT -> conversation.sentAtKept = value;
            case CURSOR -> conversation.lastReadSeq = value;
            case REFRESHED_IN -> conversation.refreshedIn = value;
        }
    }

    @Override
    long count(Seqs seqs) {
        return seqs == Seqs.DELETED ? conversation.deletedCount : set(seqs).size(conversation);
    }

    @Override
    void sentAts(byte[] kept) {
        conversation.sentAts = kept;
    }

    @Override
    boolean add(Seqs seqs, long seq) throws Exception {
        return seqs == Seqs.DELETED
                ? deletions.add(conversationId, conversation, seq)
                : set(seqs).add(conversationId, conversation, seq);
    }

    @Override
    boolean remove(Seqs seqs, long seq) throws Exception {
        return set(seqs).remove(conversationId, conversation, seq);
    }

    @Override
    boolean holds(Seqs seqs, long seq) throws Exception {
        if (seqs == Seqs.DELETED) {
            return deletions.isDeleted(conversationId, conversation, seq);
        }
        return set(seqs).contains(conversationId, conversation, seq);
    }

    @Override
    void removeUpTo(Seqs seqs, long cursor) throws Exception {
        if (seqs == Seqs.DELETED) {
            deletions.cut(conversationId, conversation, cursor);
        } else {
            set(seqs).removeUpTo(conversationId, conversation, cursor);
        }
    }

    @Override
    void forEachUnread(LongConsumer visit) throws Exception {
        unread.forEach(conversationId, conversation, visit);
    }

    /** The conversation's deletions are the track's own. */
    @Override
    boolean deletedInConversation(long seq) {
        return false;
    }

    @Override
    boolean project(long user, Refresh refresh, Collector<UnreadCount> out) {
        after = ConversationView.of(conversation);
        Projection.conversation(user, conversationId, before, after, refresh, out);
        return before.channelMentions() != after.channelMentions();
    }

    /** A deleted seq is kept until the cursor passes it: see {@link Deletions}. */
    private ConversationSeqs set(Seqs seqs) {
        return switch (seqs) {
            case UNREAD -> unread;
            case MENTIONS -> mentions;
            case CHANNEL_MENTIONS -> channelMentions;
            case DELETED -> throw new IllegalArgumentException("deletions are kept in Deletions");
        };
    }
}
