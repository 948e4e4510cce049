package dev.unread.api;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the users with a stream here live for the job (docs/contract.md, "Live push"): the job
 * writes versions and publishes changes only for live users, so a user is registered before its
 * snapshot is read, kept registered while it has a stream, and taken off after its last.
 */
final class LiveUsers {

    private static final Logger LOG = LoggerFactory.getLogger(LiveUsers.class);

    private final Object lock;
    private final StreamUsers users;
    private final RedisWrites writes;
    private final Executor timer;

    /**
     * @param lock the lock of {@link LiveStreams}, which guards {@code users}
     * @param timer where a user is taken off, off the thread that ended its last stream
     */
    LiveUsers(Object lock, StreamUsers users, RedisWrites writes, Executor timer) {
        this.lock = lock;
        this.users = users;
        this.writes = writes;
        this.timer = timer;
    }

    /**
     * A stream of {@code userId} is registered: the user is live from now, unless the user was
     * forgotten meanwhile (its streams ended, or it was erased), whose removal may have come first.
     */
    void register(long userId) {
        long now = System.currentTimeMillis();
        long until;
        synchronized (lock) {
            until = users.liveUntil(now, List.of(userId));
        }
        writes.markLive(List.of(userId), until, now);
        boolean gone;
        synchronized (lock) {
            gone = !users.has(userId);
        }
        if (gone) {
            notLive(userId, until);
        }
    }

    /**
     * Keeps the users with a stream here live: a user whose time ran out would get no more changes.
     * A failed refresh is tried again at the next; before the time runs out unless Redis stays away
     * for a minute, which cuts the streams anyway.
     */
    void refresh() {
        List<Long> live;
        synchronized (lock) {
            live = users.userIds();
        }
        if (live.isEmpty()) {
            return;
        }
        long now = System.currentTimeMillis();
        long until;
        synchronized (lock) {
            until = users.liveUntil(now, live);
        }
        try {
            writes.markLive(live, until, now);
        } catch (RuntimeException e) {
            LOG.warn("could not refresh the {} live users: {}", live.size(), String.valueOf(e));
            return;
        }
        // A user whose last stream ended during the write was taken off before it: again.
        List<Long> gone;
        synchronized (lock) {
            gone = live.stream().filter(userId -> !users.has(userId)).toList();
        }
        gone.forEach(userId -> notLive(userId, until));
    }

    /**
     * The user's last stream here ended: it stops counting as live at once (the job stops writing
     * its versions and publishing its changes), unless another instance or a newer stream wrote a
     * later time since. Off the caller's thread, which may be Jetty's or the Redis reader's.
     */
    void notLive(long userId, long until) {
        try {
            timer.execute(
                    () -> {
                        try {
                            writes.unmarkLive(userId, until);
                        } catch (RuntimeException e) {
                            // Its time runs out within LIVE_USER_TTL_MS anyway.
                            LOG.warn("could not take user {} off the live users: {}", userId, e);
                        }
                    });
        } catch (RejectedExecutionException closing) {
            // Closing: the registrations run out on their own.
        }
    }
}
