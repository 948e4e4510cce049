package dev.unread.api;

import dev.unread.contract.RedisNames;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;

/**
 * The streams {@link LiveStreams} serves, by user, with what it knows of each user: the
 * confirmation of the user's channels and the live time it wrote for the user last. Not
 * thread-safe: {@link LiveStreams} calls it holding its lock.
 */
final class StreamUsers {

    /** The streams of one user and the confirmation of the user's channels. */
    private static final class User {
        final Set<StreamClient> clients = new LinkedHashSet<>();
        final CompletableFuture<Void> subscribed;

        /**
         * The live time this instance wrote for the user last; its removal is conditional on it.
         */
        long liveUntil;

        User(CompletableFuture<Void> subscribed) {
            this.subscribed = subscribed;
        }
    }

    private final int maxPerUser;
    private final int maxTotal;
    private final Map<Long, User> users = new HashMap<>();

    /** The streams registered, of every user. */
    private int streams;

    /** The last live time written, so that each is later than the one before (see liveUntil). */
    private long lastLiveUntil;

    StreamUsers(int maxPerUser, int maxTotal) {
        this.maxPerUser = maxPerUser;
        this.maxTotal = maxTotal;
    }

    /**
     * 429 when {@code userId} has as many streams as a user may, or the instance as many as it
     * serves: each holds a connection, a queue and a subscription, and a user token alone could
     * otherwise open any number.
     */
    void requireRoom(long userId) {
        requireRoom(users.get(userId));
    }

    private void requireRoom(User user) {
        if (user != null && user.clients.size() >= maxPerUser) {
            throw new ApiError(429, "too many streams for this user");
        }
        if (streams >= maxTotal) {
            throw new ApiError(429, "too many streams");
        }
    }

    /**
     * Registers {@code client} if there is room, with {@code subscribe} asked for its user's
     * channels when it is the user's first stream.
     *
     * @return the confirmation of the user's channels
     */
    CompletableFuture<Void> add(
            StreamClient client, LongFunction<CompletableFuture<Void>> subscribe) {
        User user = users.get(client.userId);
        requireRoom(user);
        if (user == null) {
            user = new User(subscribe.apply(client.userId));
            users.put(client.userId, user);
        }
        user.clients.add(client);
        streams++;
        return user.subscribed;
    }

    /**
     * Unregisters {@code client}.
     *
     * @return when it was its user's last stream here, which forgets the user: the live time
     *     written for the user last (0: none); empty otherwise, or when it was not registered
     */
    OptionalLong remove(StreamClient client) {
        User user = users.get(client.userId);
        if (user == null || !user.clients.remove(client)) {
            return OptionalLong.empty();
        }
        streams--;
        if (!user.clients.isEmpty()) {
            return OptionalLong.empty();
        }
        users.remove(client.userId);
        return OptionalLong.of(user.liveUntil);
    }

    /** A user forgotten by {@link #removeUser}: its streams, and the live time written last. */
    record Removed(List<StreamClient> streams, long liveUntil) {}

    /**
     * Forgets {@code userId} and frees its streams' slots now: once forgotten, a stream's own
     * {@link #remove} finds nothing to free, so the slots would otherwise stay taken for good.
     *
     * @return its streams and last live time (0: none), or null when it had no stream
     */
    Removed removeUser(long userId) {
        User user = users.remove(userId);
        if (user == null) {
            return null;
        }
        streams -= user.clients.size();
        return new Removed(List.copyOf(user.clients), user.liveUntil);
    }

    /** Forgets every user and frees every slot, as {@link #removeUser} does; their streams. */
    List<StreamClient> removeAll() {
        List<StreamClient> all = all();
        users.clear();
        streams = 0;
        return all;
    }

    List<StreamClient> of(long userId) {
        User user = users.get(userId);
        return user == null ? List.of() : new ArrayList<>(user.clients);
    }

    List<StreamClient> all() {
        List<StreamClient> all = new ArrayList<>();
        users.values().forEach(user -> all.addAll(user.clients));
        return all;
    }

    /** The streams registered, of every user: what the instance's cap is checked against. */
    int streams() {
        return streams;
    }

    List<Long> userIds() {
        return new ArrayList<>(users.keySet());
    }

    boolean has(long userId) {
        return users.containsKey(userId);
    }

    /**
     * The time until which {@code userIds} count as live, from {@code now}: always later than the
     * last one written, so that a removal conditional on an earlier one never takes away a newer
     * stream's registration. Noted for each user that still has a stream.
     */
    long liveUntil(long now, Collection<Long> userIds) {
        lastLiveUntil = Math.max(now + RedisNames.LIVE_USER_TTL_MS, lastLiveUntil + 1);
        for (long userId : userIds) {
            User user = users.get(userId);
            if (user != null) {
                user.liveUntil = lastLiveUntil;
            }
        }
        return lastLiveUntil;
    }
}
