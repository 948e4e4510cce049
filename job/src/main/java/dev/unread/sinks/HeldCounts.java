package dev.unread.sinks;

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
     * One user's held counts, and since when the user has had any held; {@code due}: written by the
     * next flush, whatever the time then.
     */
    private static final class Held {
        final Map<Target, Long> counts = new HashMap<>();
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
     * Holds {@code count} for {@code target}, replacing an older value of it; a user with nothing
     * held starts being held {@code now}.
     */
    void put(Target target, long count, long now) {
        if (held(target.userId(), now, false).counts.put(target, count) == null) {
            size++;
        }
    }

    /**
     * Puts back what a flush took and did not write, unless a newer value came since; due at the
     * next flush, as it was when taken.
     */
    void putBack(Map<Target, Long> taken) {
        taken.forEach(
                (target, count) -> {
                    if (held(target.userId(), 0, true).counts.putIfAbsent(target, count) == null) {
                        size++;
                    }
                });
    }

    private Held held(long userId, long now, boolean due) {
        return byUser.computeIfAbsent(userId, u -> new Held(now, due));
    }

    /** Takes out everything held of {@code userId}; empty when nothing is. */
    Map<Target, Long> take(long userId) {
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
    Map<Target, Long> takeHeldFor(long holdMillis, long now) {
        Map<Target, Long> due = new HashMap<>();
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

    void forEach(BiConsumer<Target, Long> action) {
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
