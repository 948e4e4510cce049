package dev.unread.counter;

import dev.unread.state.ConversationState;
import dev.unread.state.ThreadState;

/**
 * What one thread shows its user: its unread replies, those that mention the user, and of these
 * those only channel-wide unless ignored, if the user follows it and has not left its conversation,
 * else nothing (docs/contract.md, "Threads").
 */
public final class ThreadView extends TrackView {

    public static final ThreadView NONE = new ThreadView(0, 0, 0);

    public ThreadView(long unread, long mentions, long channelMentions) {
        super(unread, mentions, channelMentions);
    }

    /**
     * {@code shown}: the user has not left the thread's conversation; {@code ignoreChannel}: the
     * user ignores channel-wide mentions in it.
     */
    public static ThreadView of(ThreadState thread, boolean shown, boolean ignoreChannel) {
        return shown
                ? new ThreadView(
                        thread.followedUnread(),
                        thread.followedMentions(ignoreChannel),
                        thread.followedChannelMentions(ignoreChannel))
                : NONE;
    }

    /** {@code conversation}: the record of the thread's conversation, null when none is kept. */
    public static ThreadView of(ThreadState thread, ConversationState conversation) {
        return conversation == null
                ? of(thread, true, false)
                : of(thread, conversation.membership >= 0, conversation.ignoresChannelMentions());
    }
}
