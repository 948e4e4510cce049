package dev.unread.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.contract.RedisEndpoint;
import dev.unread.contract.RedisNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisProtocol;

/**
 * The live streams of docs/contract.md ("Live push"): every client of this API instance gets a
 * snapshot of its user's counts, then the UNREAD_CHANGED and READ_RECEIPTS messages of its user's
 * channels, through ONE Redis connection subscribed to the channels of the users this instance
 * serves right now: subscribed when a user's first stream opens, unsubscribed when the last one
 * closes. On a Redis Cluster the channels are shard channels, each SSUBSCRIBEd on the primary
 * owning its slot through one connection per such primary ({@link ShardedSubscriptions}).
 *
 * <p>Nothing is lost between snapshot and subscription: a stream is registered and its user's
 * channels subscribed (Redis confirmed it) before the snapshot is read, and what arrives meanwhile
 * is kept by the stream until the snapshot is queued, then dropped if not newer than it.
 *
 * <p>When the subscription connection fails, every stream is told to reconnect and closed (it may
 * have missed a message, and a reconnect gets a fresh snapshot); the connection is made again in
 * the background. On a cluster that is every stream whose user has a channel on the failed
 * primary's connection, or on a channel whose slot left its node; the next subscription goes to the
 * channel's owner in a freshly read slot map.
 */
final class LiveStreams implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LiveStreams.class);

    private static final long RECONNECT_BACKOFF_MS = 1000;

    /** The client name of the subscription connections, as Redis' CLIENT LIST shows them. */
    static final String CLIENT_NAME = "unread-api-streams";

    /**
     * A channel of this API instance alone, under the deployment's key prefix: nothing is published
     * on it, but a subscription connection needs a channel for its whole life.
     */
    static String ownChannel(String keyPrefix) {
        return keyPrefix + "unread-api:" + UUID.randomUUID();
    }

    private final ApiConfig config;
    private final RedisUnread redis;
    private final RedisWrites writes;
    private final ObjectMapper json;
    private final ApiMetrics metrics;
    private final String changedPrefix;
    private final String receiptsPrefix;

    /** Subscribed for the connection's lifetime: SUBSCRIBE needs at least one channel. */
    private final String ownChannel;

    private final ExecutorService senders;
    private final ScheduledExecutorService timer;

    /** On a single node: the thread of the one subscription connection; null on a cluster. */
    private final Thread subscriber;

    /** On a cluster: the subscriptions per primary; null on a single node. */
    private final ShardedSubscriptions sharded;

    private final JedisPubSub pubSub = new PubSub();

    /** Guards {@link #users}, {@link #acks} and every command sent on the subscription. */
    private final Object lock = new Object();

    private final Map<Long, User> users = new HashMap<>();

    /** The streams registered, of every user. */
    private int streams;

    /** The SUBSCRIBEs sent and not yet confirmed. */
    private final Confirmations acks = new Confirmations();

    private CompletableFuture<Void> connected = new CompletableFuture<>();
    private volatile boolean closed;

    /** The last live time written, so that each is later than the one before (see liveUntil). */
    private long lastLiveUntil;

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

    LiveStreams(
            ApiConfig config,
            RedisUnread redis,
            RedisWrites writes,
            ObjectMapper json,
            ApiMetrics metrics) {
        this.config = config;
        this.redis = redis;
        this.writes = writes;
        this.json = json;
        this.metrics = metrics;
        this.changedPrefix = config.redisKeyPrefix + RedisNames.UNREAD_CHANGED;
        this.receiptsPrefix = config.redisKeyPrefix + RedisNames.READ_RECEIPTS;
        this.ownChannel = ownChannel(config.redisKeyPrefix);
        AtomicInteger threads = new AtomicInteger();
        this.senders =
                Executors.newFixedThreadPool(
                        config.streamSenderThreads,
                        r -> daemon(r, "unread-stream-sender-" + threads.incrementAndGet()));
        this.timer =
                Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "unread-stream-timer"));
        long tick = Math.min(1000, config.streamHeartbeatMs);
        timer.scheduleAtFixedRate(this::watch, tick, tick, TimeUnit.MILLISECONDS);
        timer.scheduleAtFixedRate(
                this::refreshLiveUsers,
                RedisNames.LIVE_USER_REFRESH_MS,
                RedisNames.LIVE_USER_REFRESH_MS,
                TimeUnit.MILLISECONDS);
        timer.scheduleAtFixedRate(
                this::heartbeat,
                config.streamHeartbeatMs,
                config.streamHeartbeatMs,
                TimeUnit.MILLISECONDS);
        RedisEndpoint endpoint = config.redisEndpoint();
        if (endpoint.isCluster()) {
            this.sharded =
                    new ShardedSubscriptions(
                            endpoint,
                            config.redisKeyPrefix,
                            config.timeoutMs,
                            lock,
                            new ShardedSubscriptions.Listener() {
                                @Override
                                public void message(String channel, String text) {
                                    dispatch(channel, text);
                                }

                                @Override
                                public void lost(Set<Long> userIds) {
                                    cutOff(userIds);
                                }
                            });
            this.subscriber = null;
        } else {
            this.sharded = null;
            this.subscriber = daemon(this::subscribeLoop, "unread-stream-subscriber");
            subscriber.start();
        }
    }

    /**
     * 429 when {@code userId} has as many streams as a user may, or the instance as many as it
     * serves: each holds a connection, a queue and a subscription, and a user token alone could
     * otherwise open any number. Checked before a WebSocket upgrade, and again when registering.
     */
    void requireRoom(long userId) {
        synchronized (lock) {
            requireRoom(users.get(userId));
        }
    }

    private void requireRoom(User user) {
        if (user != null && user.clients.size() >= config.streamMaxPerUser) {
            throw new ApiError(429, "too many streams for this user");
        }
        if (streams >= config.streamMaxTotal) {
            throw new ApiError(429, "too many streams");
        }
    }

    /** The executor of the streams' writes. */
    ExecutorService senders() {
        return senders;
    }

    /**
     * Registers {@code client}, subscribes its user's channels if it is the user's first stream,
     * and queues the snapshot once Redis confirmed the subscription.
     *
     * @throws DependencyException when Redis did not confirm or answer within the timeout; the
     *     client is then unregistered
     */
    void open(StreamClient client) {
        if (sharded != null) {
            try {
                sharded.refreshSlots();
            } catch (RuntimeException e) {
                client.close(true);
                throw new DependencyException(DependencyException.REDIS, e);
            }
        }
        CompletableFuture<Void> subscribed;
        synchronized (lock) {
            User user = users.get(client.userId);
            requireRoom(user);
            if (user == null) {
                user =
                        new User(
                                sharded != null
                                        ? sharded.subscribe(client.userId, channels(client.userId))
                                        : subscribe(client.userId));
                users.put(client.userId, user);
            }
            user.clients.add(client);
            streams++;
            subscribed = user.subscribed;
        }
        metrics.streamOpened();
        client.onClosed(() -> leave(client));
        try {
            subscribed.get(config.timeoutMs, TimeUnit.MILLISECONDS);
            // Live before the snapshot is read: a flush that found the user not live wrote its
            // counts before, so the snapshot holds them; every later flush publishes them.
            long now = System.currentTimeMillis();
            long until = liveUntil(now, List.of(client.userId));
            writes.markLive(List.of(client.userId), until, now);
            CountAnswers.Snapshot snapshot = redis.snapshot(client.userId);
            client.start(snapshot.message(json), snapshot.version());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.close(true);
            throw new DependencyException(DependencyException.REDIS, e);
        } catch (ExecutionException | TimeoutException e) {
            client.close(true);
            throw new DependencyException(DependencyException.REDIS, e);
        } catch (RuntimeException e) {
            client.close(true);
            throw e;
        }
    }

    private void leave(StreamClient client) {
        metrics.streamClosed();
        long until;
        synchronized (lock) {
            User user = users.get(client.userId);
            if (user == null || !user.clients.remove(client)) {
                return;
            }
            streams--;
            if (!user.clients.isEmpty()) {
                return;
            }
            users.remove(client.userId);
            until = user.liveUntil;
            if (sharded != null) {
                sharded.unsubscribe(channels(client.userId));
            } else if (pubSub.isSubscribed()) {
                try {
                    pubSub.unsubscribe(channels(client.userId));
                } catch (RuntimeException e) {
                    // The connection is failing; its loop cuts every stream and starts over.
                    LOG.debug("UNSUBSCRIBE failed", e);
                }
            }
        }
        if (until != 0) {
            notLive(client.userId, until);
        }
    }

    /**
     * The time until which {@code userIds} count as live, from {@code now}: always later than the
     * last one written, so that a removal conditional on an earlier one never takes away a newer
     * stream's registration. Noted for each user that still has a stream.
     */
    private long liveUntil(long now, Collection<Long> userIds) {
        synchronized (lock) {
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

    /**
     * The user's last stream here ended: it stops counting as live at once (the job stops writing
     * its versions and publishing its changes), unless another instance or a newer stream wrote a
     * later time since. Off the caller's thread, which may be Jetty's or the Redis reader's.
     */
    private void notLive(long userId, long until) {
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

    /** Sends SUBSCRIBE for the user's channels; completes when Redis confirmed the last one. */
    private CompletableFuture<Void> subscribe(long userId) {
        CompletableFuture<Void> subscribed = new CompletableFuture<>();
        String[] channels = channels(userId);
        if (!connected.isDone() || !pubSub.isSubscribed()) {
            subscribed.completeExceptionally(new IOException("Redis subscription not connected"));
            return subscribed;
        }
        try {
            pubSub.subscribe(channels);
            acks.expect(channels[channels.length - 1], subscribed);
        } catch (RuntimeException e) {
            subscribed.completeExceptionally(e);
        }
        return subscribed;
    }

    private String[] channels(long userId) {
        return new String[] {
            RedisNames.unreadChangedChannel(config.redisKeyPrefix, userId),
            RedisNames.readReceiptsChannel(config.redisKeyPrefix, userId)
        };
    }

    /** From the subscriber thread: hands a message to the streams of the channel's user. */
    private void dispatch(String channel, String text) {
        boolean change = channel.startsWith(changedPrefix);
        String id =
                change
                        ? channel.substring(changedPrefix.length())
                        : channel.startsWith(receiptsPrefix)
                                ? channel.substring(receiptsPrefix.length())
                                : null;
        if (id == null) {
            return;
        }
        long version = 0;
        if (change) {
            try {
                JsonNode message = json.readTree(text);
                version = message.path("version").asLong(0);
            } catch (IOException e) {
                LOG.warn("dropped a message on {} that is not JSON", channel);
                return;
            }
        }
        List<StreamClient> targets;
        synchronized (lock) {
            User user = users.get(Long.parseLong(id));
            targets = user == null ? List.of() : new ArrayList<>(user.clients);
        }
        StreamClient.Message message = new StreamClient.Message(change, version, text);
        for (StreamClient client : targets) {
            client.deliver(message);
        }
    }

    /**
     * Keeps the users with a stream here live for the job: a user whose time ran out would get no
     * more changes. A failed refresh is tried again at the next; before the time runs out unless
     * Redis stays away for a minute, which cuts the streams anyway.
     */
    private void refreshLiveUsers() {
        List<Long> live;
        synchronized (lock) {
            live = new ArrayList<>(users.keySet());
        }
        if (live.isEmpty()) {
            return;
        }
        long now = System.currentTimeMillis();
        long until = liveUntil(now, live);
        try {
            writes.markLive(live, until, now);
        } catch (RuntimeException e) {
            LOG.warn("could not refresh the {} live users: {}", live.size(), String.valueOf(e));
            return;
        }
        // A user whose last stream ended during the write was taken off before it: again.
        List<Long> gone;
        synchronized (lock) {
            gone = live.stream().filter(userId -> !users.containsKey(userId)).toList();
        }
        gone.forEach(userId -> notLive(userId, until));
    }

    private void heartbeat() {
        for (StreamClient client : clients()) {
            client.heartbeatDue();
        }
        synchronized (lock) {
            if (sharded != null) {
                sharded.heartbeat();
            } else if (pubSub.isSubscribed()) {
                try {
                    // Keeps the subscription's reads inside their timeout while no one publishes.
                    pubSub.ping();
                } catch (RuntimeException e) {
                    LOG.debug("PING on the subscription failed", e);
                }
            }
        }
    }

    /** Cuts off the streams whose write has been stuck for longer than the write timeout. */
    private void watch() {
        long now = System.nanoTime();
        long nowMs = System.currentTimeMillis();
        long timeout = TimeUnit.MILLISECONDS.toNanos(config.streamWriteTimeoutMs);
        for (StreamClient client : clients()) {
            if (client.stuck(now, timeout)) {
                metrics.streamCutOff(ApiMetrics.CUT_OFF_SLOW);
                client.close(true);
            } else if (client.expired(nowMs)) {
                // The same token now gets 401 everywhere: the client reconnects with a new one.
                metrics.streamCutOff(ApiMetrics.CUT_OFF_TOKEN_EXPIRED);
                client.expiresAt(0);
                client.cutOff();
            }
        }
    }

    private List<StreamClient> clients() {
        synchronized (lock) {
            List<StreamClient> all = new ArrayList<>();
            users.values().forEach(user -> all.addAll(user.clients));
            return all;
        }
    }

    private void subscribeLoop() {
        while (!closed) {
            RedisEndpoint endpoint = config.redisEndpoint();
            try (Jedis jedis =
                    new Jedis(
                            endpoint.node(),
                            endpoint.clientConfigBuilder(CLIENT_NAME, config.timeoutMs)
                                    // Heartbeats PING it, so a read waits at most about one
                                    // interval.
                                    .socketTimeoutMillis(
                                            3 * config.streamHeartbeatMs + config.timeoutMs)
                                    // JedisPubSub reads RESP2 pushes; say so rather than negotiate.
                                    .protocol(RedisProtocol.RESP2)
                                    .build())) {
                jedis.subscribe(pubSub, ownChannel);
            } catch (RuntimeException e) {
                if (!closed) {
                    LOG.warn(
                            "Redis subscription of the live streams failed, reconnecting: {}",
                            e.toString());
                }
            }
            lost();
            if (!closed) {
                try {
                    Thread.sleep(RECONNECT_BACKOFF_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** On a cluster: these users' streams may have missed messages, so each must reconnect. */
    private void cutOff(Set<Long> userIds) {
        List<StreamClient> cut = new ArrayList<>();
        synchronized (lock) {
            for (long userId : userIds) {
                User user = users.remove(userId);
                if (user != null) {
                    cut.addAll(user.clients);
                    // Its other channel may be on a primary still subscribed.
                    sharded.unsubscribe(channels(userId));
                }
            }
        }
        for (StreamClient client : cut) {
            if (!closed) {
                metrics.streamCutOff(ApiMetrics.CUT_OFF_REDIS);
            }
            client.cutOff();
        }
    }

    /** The subscription ended: every stream may have missed messages, so each must reconnect. */
    private void lost() {
        List<StreamClient> all;
        synchronized (lock) {
            connected = new CompletableFuture<>();
            acks.failAll(new IOException("Redis subscription lost"));
            all = new ArrayList<>();
            users.values().forEach(user -> all.addAll(user.clients));
            users.clear();
        }
        for (StreamClient client : all) {
            if (!closed) {
                metrics.streamCutOff(ApiMetrics.CUT_OFF_REDIS);
            }
            client.cutOff();
        }
    }

    @Override
    public void close() {
        closed = true;
        if (sharded != null) {
            sharded.close();
        } else {
            synchronized (lock) {
                if (pubSub.isSubscribed()) {
                    try {
                        pubSub.unsubscribe();
                    } catch (RuntimeException e) {
                        LOG.debug("UNSUBSCRIBE at close failed", e);
                    }
                }
            }
            subscriber.interrupt();
            try {
                subscriber.join(config.timeoutMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        lost();
        timer.shutdownNow();
        senders.shutdown();
        try {
            senders.awaitTermination(config.timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        senders.shutdownNow();
    }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    private final class PubSub extends JedisPubSub {
        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            synchronized (lock) {
                if (channel.equals(ownChannel)) {
                    connected.complete(null);
                    return;
                }
                acks.confirm(channel);
            }
        }

        @Override
        public void onMessage(String channel, String message) {
            dispatch(channel, message);
        }
    }
}
