package dev.unread.api;

import dev.unread.contract.RedisNames;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The channels whose CHANNEL_CHANGED this API instance follows for the users it streams to
 * (docs/contract.md, "Live push"): each subscribed once, however many users here are its members,
 * and unsubscribed when the last of them has no stream left. Not thread-safe: {@link LiveStreams}
 * calls it holding its lock, the lock of the subscriptions.
 *
 * <p>Bounded by the users streamed to (the streams' limits) times each one's channels, whose number
 * is the job's to bound (its tracks); a channel shared by many users costs one subscription.
 */
final class ChannelWatch {

    private final StreamSubscriptions subscriptions;
    private final String keyPrefix;
    private final String prefix;

    /** Per channel followed: the users here who are its members, and Redis' confirmation. */
    private final Map<Long, Watched> channels = new HashMap<>();

    /** Per user streamed to: the channels followed for it. */
    private final Map<Long, Set<Long>> byUser = new HashMap<>();

    private record Watched(Set<Long> users, CompletableFuture<Void> subscribed) {}

    ChannelWatch(StreamSubscriptions subscriptions, String keyPrefix) {
        this.subscriptions = subscriptions;
        this.keyPrefix = keyPrefix;
        this.prefix = keyPrefix + RedisNames.CHANNEL_CHANGED;
    }

    /**
     * Follows {@code channelIds} for {@code userId}, subscribing those no one here followed yet.
     *
     * @return Redis' confirmation of every one of them
     */
    CompletableFuture<Void> add(long userId, Collection<Long> channelIds) {
        List<CompletableFuture<Void>> confirmed = new ArrayList<>();
        Set<Long> mine = byUser.computeIfAbsent(userId, id -> new HashSet<>());
        for (long channelId : channelIds) {
            Watched watched = channels.get(channelId);
            if (watched == null || watched.subscribed.isCompletedExceptionally()) {
                Set<Long> users = watched == null ? new HashSet<>() : watched.users;
                // A lost subscription cuts off the channel's users: its owner is minus the
                // channel's id (see owners).
                watched = new Watched(users, subscriptions.subscribe(-channelId, name(channelId)));
                channels.put(channelId, watched);
            }
            watched.users.add(userId);
            mine.add(channelId);
            confirmed.add(watched.subscribed);
        }
        return CompletableFuture.allOf(confirmed.toArray(CompletableFuture[]::new));
    }

    /** Whether {@code channelId} is followed for {@code userId}. */
    boolean follows(long userId, long channelId) {
        Set<Long> mine = byUser.get(userId);
        return mine != null && mine.contains(channelId);
    }

    /** Stops following every channel for {@code userId}; unsubscribes those no one else needs. */
    void remove(long userId) {
        Set<Long> mine = byUser.remove(userId);
        if (mine == null) {
            return;
        }
        for (long channelId : mine) {
            Watched watched = channels.get(channelId);
            watched.users.remove(userId);
            if (watched.users.isEmpty()) {
                channels.remove(channelId);
                subscriptions.unsubscribe(name(channelId));
            }
        }
    }

    /** Forgets every channel: the subscription connection is gone with every subscription. */
    void clear() {
        channels.clear();
        byUser.clear();
    }

    /** The users here followed {@code channelId} for. */
    Set<Long> users(long channelId) {
        Watched watched = channels.get(channelId);
        return watched == null ? Set.of() : Set.copyOf(watched.users);
    }

    /** The channel's id of a CHANNEL_CHANGED Pub/Sub channel, or 0 when it is not one. */
    long channelOf(String name) {
        if (!name.startsWith(prefix)
                || name.length() < prefix.length() + 3
                || name.charAt(prefix.length()) != '{'
                || name.charAt(name.length() - 1) != '}') {
            return 0;
        }
        try {
            return Long.parseLong(name.substring(prefix.length() + 1, name.length() - 1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * The users of the subscriptions' owners {@code owners}: a user's id stands for itself, minus a
     * channel's id for the channel's users.
     */
    Set<Long> owners(Set<Long> owners) {
        Set<Long> users = new HashSet<>();
        for (long owner : owners) {
            if (owner < 0) {
                users.addAll(users(-owner));
            } else {
                users.add(owner);
            }
        }
        return users;
    }

    private String name(long channelId) {
        return RedisNames.channelChangedChannel(keyPrefix, channelId);
    }
}
