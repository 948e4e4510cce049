package dev.unread.sinks;

import dev.unread.sinks.CountBuffer.Target;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The counts a writer holds for its next flush, the latest value of each, by user: the counts of
 * users without a live stream wait here up to the background interval (see {@link RedisCounts}).
 * Shared by the writer's two buffers, used by one thread at a time as they are.
 *
 * <p>Kept by user, so that the fast flush takes the live users' counts out whole, and an item
 * ordered after a user's counts (an erasure deleting the user's keys) can take out what is held of
 * that user before it is written.
 */
final class HeldCounts {
    private final Map<Long, Map<Target, Long>> byUser = new HashMap<>();
    private int size;

    /** Holds {@code count} for {@code target}, replacing an older value of it. */
    void put(Target target, long count) {
        if (byUser.computeIfAbsent(target.userId(), u -> new HashMap<>()).put(target, count)
                == null) {
            size++;
        }
    }

    /** Puts back what a flush took and did not write, unless a newer value came since. */
    void putBack(Map<Target, Long> taken) {
        taken.forEach(
                (target, count) -> {
                    if (byUser.computeIfAbsent(target.userId(), u -> new HashMap<>())
                                    .putIfAbsent(target, count)
                            == null) {
                        size++;
                    }
                });
    }

    /** Takes out everything held of {@code userId}; empty when nothing is. */
    Map<Target, Long> take(long userId) {
        Map<Target, Long> counts = byUser.remove(userId);
        if (counts == null) {
            return Map.of();
        }
        size -= counts.size();
        return counts;
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
        byUser.values().forEach(counts -> counts.forEach(action));
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
