package dev.unread.counter;

import dev.unread.state.ConversationState;

/**
 * What one conversation shows its user (docs/contract.md): the unread and mention counts, 0 while
 * the user has left it, and of the mentions those only channel-wide, 0 too while the user ignores
 * them; whether it is marked unread; and its share of the app-icon totals. The one projection from
 * a conversation's state to what the user sees: the counter writes out the difference between the
 * views before and after each event, expiry the difference to {@link #NONE}, the savepoint
 * republish the difference from it ({@link Projection}).
 */
public final class ConversationView extends TrackView {

    /** A conversation that shows nothing: none kept, or forgotten. */
    public static final ConversationView NONE = new ConversationView(0, 0, 0, false, Share.NONE);

    private final boolean marked;
    private final Share share;

    public ConversationView(
            long unread, long mentions, long channelMentions, boolean marked, Share share) {
        super(unread, mentions, channelMentions);
        this.marked = marked;
        this.share = share;
    }

    public boolean marked() {
        return marked;
    }

    public Share share() {
        return share;
    }

    public static ConversationView of(ConversationState state) {
        long unread = ConversationSeqs.visibleCount(state);
        long mentions = state.membership < 0 ? 0 : state.mentions();
        // The seqs mentioning the user by id are not among these: such a mention is no mark's.
        long channelMentions =
                state.membership < 0 || state.ignoresChannelMentions()
                        ? 0
                        : state.channelMentionCount;
        // markedUnread(U,C): the newest mark is newer than the newest read.
        boolean marked = state.markedAt > state.lastReadAt;
        return new ConversationView(
                unread,
                mentions,
                channelMentions,
                marked,
                Share.of(state, unread, mentions, marked));
    }
}
