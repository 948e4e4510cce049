package dev.unread.counter;

/**
 * What a read track ({@link ReadTrack}) shows its user, a conversation's ({@link ConversationView})
 * or a thread's ({@link ThreadView}) alike: its unread messages, those that mention the user, and
 * of these those only channel-wide.
 */
public class TrackView {

    private final long unread;
    private final long mentions;
    private final long channelMentions;

    TrackView(long unread, long mentions, long channelMentions) {
        this.unread = unread;
        this.mentions = mentions;
        this.channelMentions = channelMentions;
    }

    public long unread() {
        return unread;
    }

    public long mentions() {
        return mentions;
    }

    public long channelMentions() {
        return channelMentions;
    }
}
