package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;

/**
 * One conversation's share of the app-icon totals (docs/contract.md, "App-icon totals"), or the
 * totals themselves, which are the sum of every conversation's share. The counter keeps the totals
 * by adding the difference one event makes to one conversation's share, so an event costs O(1)
 * whatever the number of conversations; each share, hence each total, is a function of the set of
 * events.
 */
public final class Share {

    public static final Share NONE = new Share(0, 0, 0, 0);

    private final long messages;
    private final long mentions;
    private final long conversations;
    private final long threads;

    public Share(long messages, long mentions, long conversations, long threads) {
        this.messages = messages;
        this.mentions = mentions;
        this.conversations = conversations;
        this.threads = threads;
    }

    public long messages() {
        return messages;
    }

    public long mentions() {
        return mentions;
    }

    public long conversations() {
        return conversations;
    }

    public long threads() {
        return threads;
    }

    /**
     * The share of a conversation showing {@code unread}, {@code mentions} and {@code marked} (see
     * {@link ConversationView}) under its preference, with its followed threads' share.
     */
    static Share of(ConversationState state, long unread, long mentions, boolean marked) {
        long preference = state.preference;
        boolean shown = state.membership >= 0;
        boolean muted = preference == ChatEvent.NONE;
        long messages = preference == ChatEvent.ALL ? unread : 0;
        long mentionShare =
                (muted ? 0 : mentions) + (shown && !muted ? state.followedThreadMentions : 0);
        boolean counted =
                (preference == ChatEvent.ALL && unread > 0)
                        || (preference == ChatEvent.MENTIONS && mentions > 0)
                        || marked;
        // Mentions are a subset of the unread replies, so ALL counts the threads with any.
        long threads =
                !shown
                        ? 0
                        : preference == ChatEvent.ALL
                                ? state.followedUnreadThreads
                                : preference == ChatEvent.MENTIONS
                                        ? state.followedMentionThreads
                                        : 0;
        return new Share(messages, mentionShare, counted ? 1 : 0, threads);
    }

    /** The totals a user's inbox state keeps. */
    public static Share of(InboxState inbox) {
        return new Share(
                inbox.totalMessages,
                inbox.totalMentions,
                inbox.totalConversations,
                inbox.totalThreads);
    }

    /** Keeps these as the user's totals. */
    void storeIn(InboxState inbox) {
        inbox.totalMessages = messages;
        inbox.totalMentions = mentions;
        inbox.totalConversations = conversations;
        inbox.totalThreads = threads;
    }

    /** Whether every part is 0. */
    boolean isNone() {
        return messages == 0 && mentions == 0 && conversations == 0 && threads == 0;
    }

    public Share plus(Share other) {
        return new Share(
                messages + other.messages,
                mentions + other.mentions,
                conversations + other.conversations,
                threads + other.threads);
    }

    public Share minus(Share other) {
        return new Share(
                messages - other.messages,
                mentions - other.mentions,
                conversations - other.conversations,
                threads - other.threads);
    }
}
