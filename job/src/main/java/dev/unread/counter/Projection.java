package dev.unread.counter;

import dev.unread.contract.Count;
import dev.unread.events.UnreadCount;
import org.apache.flink.util.Collector;

/**
 * The one diff from what a user saw to what the user sees: writes out every count that differs
 * between two views, and every count of them that the {@link Refresh} names (a counter
 * incarnation's first write of them, see UnreadCounter), each with what it was before ({@link
 * UnreadCount#before}), so that the sink can leave out a refresh that changes nothing where it
 * knows Redis holds what the restored state shows. The counter calls it with the views before and
 * after an event, expiry with a view and nothing, the savepoint republish with nothing and a view;
 * so what the user sees is derived in {@link ConversationView}, {@link ThreadView} and {@link
 * Share} alone.
 */
public final class Projection {

    private Projection() {}

    public static void senders(
            long user, long before, long after, boolean refresh, Collector<UnreadCount> out) {
        if (refresh || before != after) {
            out.collect(UnreadCount.senders(user, after).from(before));
        }
    }

    public static void conversation(
            long user,
            long conversationId,
            ConversationView before,
            ConversationView after,
            Refresh refresh,
            Collector<UnreadCount> out) {
        if (refresh.all() || before.unread() != after.unread()) {
            out.collect(
                    UnreadCount.conversation(user, conversationId, after.unread())
                            .from(before.unread()));
        }
        if (refresh.all() || before.mentions() != after.mentions()) {
            out.collect(
                    UnreadCount.mentions(user, conversationId, after.mentions())
                            .from(before.mentions()));
        }
        if (refresh.channel() || before.channelMentions() != after.channelMentions()) {
            out.collect(
                    UnreadCount.conversation(
                                    user,
                                    Count.CHANNEL_MENTIONS,
                                    conversationId,
                                    after.channelMentions())
                            .from(before.channelMentions()));
        }
        if (refresh.all() || before.marked() != after.marked()) {
            out.collect(
                    UnreadCount.marked(user, conversationId, after.marked())
                            .from(before.marked() ? 1 : 0));
        }
    }

    public static void thread(
            long user,
            long conversationId,
            long root,
            ThreadView before,
            ThreadView after,
            Refresh refresh,
            Collector<UnreadCount> out) {
        if (refresh.all() || before.unread() != after.unread()) {
            out.collect(
                    UnreadCount.thread(user, Count.THREAD, conversationId, root, after.unread())
                            .from(before.unread()));
        }
        if (refresh.all() || before.mentions() != after.mentions()) {
            out.collect(
                    UnreadCount.thread(
                                    user,
                                    Count.THREAD_MENTIONS,
                                    conversationId,
                                    root,
                                    after.mentions())
                            .from(before.mentions()));
        }
        if (refresh.channel() || before.channelMentions() != after.channelMentions()) {
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
