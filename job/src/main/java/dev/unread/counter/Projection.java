package dev.unread.counter;

import dev.unread.contract.Count;
import dev.unread.events.UnreadCount;
import org.apache.flink.util.Collector;

/**
 * The one diff from what a user saw to what the user sees: writes out every count that differs
 * between two views, and every count of them when {@code refresh} (a counter incarnation's first
 * write of them, see UnreadCounter), each with what it was before ({@link UnreadCount#before}), so
 * that the sink can leave out a refresh that changes nothing where it knows Redis holds what the
 * restored state shows. The counter calls it with the views before and after an event, expiry with
 * a view and nothing, the savepoint republish with nothing and a view; so what the user sees is
 * derived in {@link ConversationView}, {@link ThreadView} and {@link Share} alone.
 *
 * <p>The channel-wide mention counts are refreshed on their own ({@code refreshChannel}), only
 * where Redis may hold a stale value of them ({@link #refreshesChannel}), so that a message without
 * {@code mentionsAll} costs no command on their keys, restore or not. A record's {@code
 * refreshedIn} says which of its counts this incarnation wrote: {@link #stamp}.
 */
public final class Projection {

    private Projection() {}

    public static void senders(
            long user, long before, long after, boolean refresh, Collector<UnreadCount> out) {
        if (refresh || before != after) {
            out.collect(UnreadCount.senders(user, after).from(before));
        }
    }

    /**
     * {@link #conversation(long, long, ConversationView, ConversationView, boolean, boolean,
     * Collector)} refreshing all or none.
     */
    public static void conversation(
            long user,
            long conversationId,
            ConversationView before,
            ConversationView after,
            boolean refresh,
            Collector<UnreadCount> out) {
        conversation(user, conversationId, before, after, refresh, refresh, out);
    }

    public static void conversation(
            long user,
            long conversationId,
            ConversationView before,
            ConversationView after,
            boolean refresh,
            boolean refreshChannel,
            Collector<UnreadCount> out) {
        if (refresh || before.unread() != after.unread()) {
            out.collect(
                    UnreadCount.conversation(user, conversationId, after.unread())
                            .from(before.unread()));
        }
        if (refresh || before.mentions() != after.mentions()) {
            out.collect(
                    UnreadCount.mentions(user, conversationId, after.mentions())
                            .from(before.mentions()));
        }
        if (refreshChannel || before.channelMentions() != after.channelMentions()) {
            out.collect(
                    UnreadCount.conversation(
                                    user,
                                    Count.CHANNEL_MENTIONS,
                                    conversationId,
                                    after.channelMentions())
                            .from(before.channelMentions()));
        }
        if (refresh || before.marked() != after.marked()) {
            out.collect(
                    UnreadCount.marked(user, conversationId, after.marked())
                            .from(before.marked() ? 1 : 0));
        }
    }

    /**
     * {@link #thread(long, long, long, ThreadView, ThreadView, boolean, boolean, Collector)}
     * refreshing all or none.
     */
    public static void thread(
            long user,
            long conversationId,
            long root,
            ThreadView before,
            ThreadView after,
            boolean refresh,
            Collector<UnreadCount> out) {
        thread(user, conversationId, root, before, after, refresh, refresh, out);
    }

    public static void thread(
            long user,
            long conversationId,
            long root,
            ThreadView before,
            ThreadView after,
            boolean refresh,
            boolean refreshChannel,
            Collector<UnreadCount> out) {
        if (refresh || before.unread() != after.unread()) {
            out.collect(
                    UnreadCount.thread(user, Count.THREAD, conversationId, root, after.unread())
                            .from(before.unread()));
        }
        if (refresh || before.mentions() != after.mentions()) {
            out.collect(
                    UnreadCount.thread(
                                    user,
                                    Count.THREAD_MENTIONS,
                                    conversationId,
                                    root,
                                    after.mentions())
                            .from(before.mentions()));
        }
        if (refreshChannel || before.channelMentions() != after.channelMentions()) {
            out.collect(
                    UnreadCount.thread(
                                    user,
                                    Count.THREAD_CHANNEL_MENTIONS,
                                    conversationId,
                                    root,
                                    after.channelMentions())
                            .from(before.channelMentions()));
        }
    }

    /**
     * Whether this incarnation is yet to write a record's counts, given its {@code refreshedIn}:
     * all of them, the channel-wide mentions' aside.
     */
    static boolean refreshes(long refreshedIn, long incarnation) {
        return refreshedIn != incarnation && refreshedIn != ~incarnation;
    }

    /**
     * Whether this incarnation is yet to write a record's channel-wide mention count and writes it
     * now: {@code mayBeStale} says Redis may hold a value of it that the replay after a restore
     * would not write. A count 0 in the restored state rose in the rolled-back timeline only
     * through an event that carries {@code mentionsAll} (a message, a reply, an edit), or through
     * what the restored state kept: an unread channel-wide mention (shown again by a follow, a join
     * or heeding channel mentions) or an edit (which makes a message that comes one). So it is
     * written at the record's first touch when the record kept either, and at any touch by an event
     * with {@code mentionsAll}; else not before it changes. What this incarnation keeps it writes
     * when it changes, so only the first touch asks what was kept.
     */
    static boolean refreshesChannel(long refreshedIn, long incarnation, boolean mayBeStale) {
        return refreshedIn != incarnation && mayBeStale;
    }

    /**
     * A record's {@code refreshedIn} once its counts are written: {@code incarnation} when its
     * channel-wide mention count was written too in this incarnation, else its complement, which no
     * incarnation is (never 0 nor -1, see UnreadCounter).
     */
    static long stamp(long refreshedIn, long incarnation, boolean channelWritten) {
        return refreshedIn == incarnation || channelWritten ? incarnation : ~incarnation;
    }

    public static void totals(
            long user, Share before, Share after, boolean refresh, Collector<UnreadCount> out) {
        total(user, Count.TOTAL_MESSAGES, before.messages(), after.messages(), refresh, out);
        total(user, Count.TOTAL_MENTIONS, before.mentions(), after.mentions(), refresh, out);
        total(
                user,
                Count.TOTAL_CONVERSATIONS,
                before.conversations(),
                after.conversations(),
                refresh,
                out);
        total(user, Count.TOTAL_THREADS, before.threads(), after.threads(), refresh, out);
    }

    private static void total(
            long user,
            Count kind,
            long before,
            long after,
            boolean refresh,
            Collector<UnreadCount> out) {
        if (refresh || before != after) {
            out.collect(UnreadCount.total(user, kind, after).from(before));
        }
    }
}
