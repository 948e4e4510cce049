package dev.unread.sinks;

import dev.unread.events.UnreadCount;
import dev.unread.sinks.CountBuffer.Target;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The counts a writer holds for its next flush, the latest value of each, by user: the counts of
 * users without a live stream wait here up to the background interval (see {@link RedisCounts}).
 * Shared by the writer's two buffers, and the writer's sender thread's alone: only the making and
 * sending of a flush's commands touch it, never a record the task adds (see {@link RedisWriter}).
 *
 * <p>Kept by user, so that the fast flush takes the live users' counts out whole, an item ordered
 * after a user's counts (an erasure deleting the user's keys) can take out what is held of that
 * user before it is written, and each user's counts are written once they have been held for the
 * background interval, user by user, rather than everyone's at once.
 */
final class HeldCounts {

    /**
     * A count's latest value, and what Redis held before the first of the updates it stands for
     * ({@link dev.unread.events.UnreadCount#before} of that update): equal, and the write changes
     * nothing.
     */
    static final class Update {
        long count;
        long before;

        Update(long count, long before) {
            this.count = count;
            this.before = before;
        }

        /** Whether writing it changes nothing, given Redis holds what the counter showed. */
        boolean unchanged() {
            return count == before;
        }

        /** A later update of the same count: its value replaces this one's, its before does not. */
        void replaceWith(Update later) {
            count = later.count;
        }
    }

    /**
     * One user's held counts, and since when the user has had any held; {@code due}: written by the
     * next flush, whatever the time then.
     */
    private static final class Held {
        final Map<Target, Update> counts = new HashMap<>();
        final long since;
        final boolean due;

        Held(long since, boolean due) {
            this.since = since;
            this.due = due;
        }
    }

    private final Map<Long, Held> byUser = new HashMap<>();
    private int size;

    /**
     * Holds {@code update} for {@code target}, replacing the value of an older one; a user with
     * nothing held starts being held {@code now}.
     */
    void put(Target target, Update update, long now) {
        Update older = held(target.userId(), now, false).counts.putIfAbsent(target, update);
        if (older == null) {
            size++;
        } else {
            older.replaceWith(update);
        }
    }

    /**
     * Puts back what a flush took and may not have written, unless a newer value came since: then
     * what Redis holds is not known, the taken value or the one before it, and the newer value is
     * written whatever it is. Due at the next flush, as it was when taken.
     */
    void putBack(Map<Target, Update> taken) {
        taken.forEach(
                (target, update) -> {
                    Update newer =
                            held(target.userId(), 0, true).counts.putIfAbsent(target, update);
                    if (newer == null) {
                        size++;
                    } else {
                        newer.before = UnreadCount.UNKNOWN;
                    }
                });
    }

    private Held held(long userId, long now, boolean due) {
        return byUser.computeIfAbsent(userId, u -> new Held(now, due));
    }

    /** Takes out everything held of {@code userId}; empty when nothing is. */
    Map<Target, Update> take(long userId) {
        Held held = byUser.remove(userId);
        if (held == null) {
            return Map.of();
        }
        size -= held.counts.size();
        return held.counts;
    }

    /**
     * Takes out the counts of every user held for {@code holdMillis} at {@code now}, and of those
     * put back.
     */
    Map<Target, Update> takeHeldFor(long holdMillis, long now) {
        Map<Target, Update> due = new HashMap<>();
        for (Iterator<Held> users = byUser.values().iterator(); users.hasNext(); ) {
            Held held = users.next();
            if (held.due || now - held.since >= holdMillis) {
                due.putAll(held.counts);
                size -= held.counts.size();
                users.remove();
            }
        }
        return due;
    }

    long[] users() {
        long[] users = new long[byUser.size()];
        int i = 0;
        for (long user : byUser.keySet()) {
            users[i++] = user;
        }
        return users;
    }

    void forEach(BiConsumer<Target, Update> action) {
        byUser.values().forEach(held -> held.counts.forEach(action));
    }

    /** Counts held, over all users. */
    int size() {
        return size;
    }

    void clear() {
        byUser.clear();
        size = 0;
    }
}
