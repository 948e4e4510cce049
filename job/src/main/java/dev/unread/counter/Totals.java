package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.state.ConversationState;

/**
 * One conversation's share of the app-icon totals (docs/contract.md, "App-icon totals"), from its
 * visible counts, its preference and its mark. The counter keeps each total as the sum of the
 * shares by adding the difference a change makes to one conversation's share, so an event costs
 * O(1) whatever the number of conversations; the savepoint tools sum the shares afresh. Public for
 * them (dev.unread.ops).
 */
public final class Totals {

    private Totals() {}

    /** The mentions a conversation's state shows: 0 while the user has left it. */
    public static long visibleMentions(ConversationState state) {
        return state.membership < 0 ? 0 : state.mentionCount;
    }

    /** markedUnread(U,C): the newest mark is newer than the newest read. */
    public static boolean marked(ConversationState state) {
        return state.markedAt > state.lastReadAt;
    }

    /** Share of {@code messages}: the unread count, in conversations counted in full. */
    public static long messages(long unread, long preference) {
        return preference == ChatEvent.ALL ? unread : 0;
    }

    /** Share of {@code mentions}: the mention count, unless the conversation is muted. */
    public static long mentions(long mentions, long preference) {
        return preference == ChatEvent.NONE ? 0 : mentions;
    }

    /**
     * Share of {@code threads}: the followed threads that show as unread under the preference
     * (mentions are a subset of the unread replies, so ALL counts those with any); none while the
     * user has left the conversation.
     */
    public static long threads(ConversationState state) {
        if (state.membership < 0) {
            return 0;
        }
        return state.preference == ChatEvent.ALL
                ? state.followedUnreadThreads
                : state.preference == ChatEvent.MENTIONS ? state.followedMentionThreads : 0;
    }

    /** Share of {@code mentions} from followed threads: none if muted or left. */
    public static long threadMentions(ConversationState state) {
        return state.membership < 0 || state.preference == ChatEvent.NONE
                ? 0
                : state.followedThreadMentions;
    }

    /** Share of {@code conversations}: 1 when the conversation shows as unread in the totals. */
    public static long conversations(long unread, long mentions, long preference, boolean marked) {
        return (preference == ChatEvent.ALL && unread > 0)
                        || (preference == ChatEvent.MENTIONS && mentions > 0)
                        || marked
                ? 1
                : 0;
    }
}
