package dev.unread.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live streams of docs/contract.md ("Live push"): every client of this API instance gets a
 * snapshot of its user's counts, then the counts as they change ({@link CountPush}, the one
 * producer of a stream's counts) and the READ_RECEIPTS messages of its user, through ONE Redis
 * connection subscribed to the channels of the users this instance serves right now and to the
 * CHANNEL_CHANGED of their channels ({@link ChannelWatch}): subscribed when a user's first stream
 * opens, unsubscribed when the last one closes. On a Redis Cluster the channels are shard channels,
 * each SSUBSCRIBEd on the primary owning its slot through one connection per such primary ({@link
 * ShardedSubscriptions}).
 *
 * <p>Nothing is lost between snapshot and subscription: a stream is registered and its user's
 * channels subscribed (Redis confirmed it) before the snapshot is read; a notice that arrives
 * meanwhile is kept by the stream's {@link StreamCounts} and makes a read once the snapshot is
 * queued if the snapshot may not hold it, and a receipt is kept until the snapshot is queued.
 *
 * <p>When the subscription connection fails, every stream is told to reconnect and closed (it may
 * have missed a message, and a reconnect gets a fresh snapshot); the connection is made again in
 * the background. On a cluster that is every stream whose user has a channel on the failed
 * primary's connection, or on a channel whose slot left its node; the next subscription goes to the
 * channel's owner in a freshly read slot map.
 *
 * <p>This class registers and ends the streams and hands them their messages; the streams by user
 * are {@link StreamUsers}, the Redis subscriptions {@link StreamSubscriptions}, and keeping the
 * users live for the job {@link LiveUsers}.
 */
final class LiveStreams implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LiveStreams.class);

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
    private final ObjectMapper json;
    private final ApiMetrics metrics;
    private final String changedPrefix;
    private final String receiptsPrefix;

    private final ExecutorService senders;
    private final ScheduledExecutorService timer;

    private final StreamSubscriptions subscriptions;

    /** The channels followed for the users streamed to; guarded by {@link #lock}. */
    private final ChannelWatch channels;

    private final CountPush push;

    /** Guards {@link #users} and every command sent on the subscriptions. */
    private final Object lock = new Object();

    private final StreamUsers users;
    private final LiveUsers live;
    private volatile boolean closed;

    LiveStreams(
            ApiConfig config,
            RedisUnread redis,
            RedisWrites writes,
            ObjectMapper json,
            ApiMetrics metrics) {
        this.config = config;
        this.redis = redis;
        this.json = json;
        this.metrics = metrics;
        this.users = new StreamUsers(config.streamMaxPerUser, config.streamMaxTotal);
        this.changedPrefix = config.redisKeyPrefix + RedisNames.UNREAD_CHANGED;
        this.receiptsPrefix = config.redisKeyPrefix + RedisNames.READ_RECEIPTS;
        AtomicInteger threads = new AtomicInteger();
        this.senders =
                Executors.newFixedThreadPool(
                        config.streamSenderThreads,
                        r -> daemon(r, "unread-stream-sender-" + threads.incrementAndGet()));
        this.timer =
                Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "unread-stream-timer"));
        this.live = new LiveUsers(lock, users, writes, timer);
        long tick = Math.min(1000, config.streamHeartbeatMs);
        timer.scheduleAtFixedRate(this::watch, tick, tick, TimeUnit.MILLISECONDS);
        timer.scheduleAtFixedRate(
                live::refresh,
                RedisNames.LIVE_USER_REFRESH_MS,
                RedisNames.LIVE_USER_REFRESH_MS,
                TimeUnit.MILLISECONDS);
        timer.scheduleAtFixedRate(
                this::heartbeat,
                config.streamHeartbeatMs,
                config.streamHeartbeatMs,
                TimeUnit.MILLISECONDS);
        this.subscriptions =
                new StreamSubscriptions(
                        config,
                        lock,
                        new StreamSubscriptions.Listener() {
                            @Override
                            public void message(String channel, String text) {
                                dispatch(channel, text);
                            }

                            @Override
                            public void lost(Set<Long> userIds) {
                                cutOff(userIds);
                            }

                            @Override
                            public void lostAll() {
                                LiveStreams.this.lost();
                            }
                        });
        this.channels = new ChannelWatch(subscriptions, config.redisKeyPrefix);
        this.push = new CountPush(config, redis, json, lock, users, channels, timer);
    }

    /**
     * 429 when {@code userId} has as many streams as a user may, or the instance as many as it
     * serves: each holds a connection, a queue and a subscription, and a user token alone could
     * otherwise open any number. Checked before a WebSocket upgrade, and again when registering.
     */
    void requireRoom(long userId) {
        synchronized (lock) {
            users.requireRoom(userId);
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
        try {
            subscriptions.prepare();
        } catch (RuntimeException e) {
            client.close(true);
            throw new DependencyException(DependencyException.REDIS, e);
        }
        CompletableFuture<Void> subscribed;
        synchronized (lock) {
            subscribed =
                    users.add(client, userId -> subscriptions.subscribe(userId, channels(userId)));
            metrics.streamsHeld(users.streams());
        }
        client.onClosed(() -> leave(client));
        try {
            subscribed.get(config.timeoutMs, TimeUnit.MILLISECONDS);
            // Live before the snapshot is read: a flush that found the user not live wrote its
            // counts before, so the snapshot holds them; every later flush publishes them.
            live.register(client.userId);
            push.start(client);
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
        long until;
        synchronized (lock) {
            OptionalLong last = users.remove(client);
            metrics.streamsHeld(users.streams());
            if (last.isEmpty()) {
                return;
            }
            until = last.getAsLong();
            subscriptions.unsubscribe(channels(client.userId));
            channels.remove(client.userId);
        }
        if (until != 0) {
            live.notLive(client.userId, until);
        }
    }

    private String[] channels(long userId) {
        return new String[] {
            RedisNames.unreadChangedChannel(config.redisKeyPrefix, userId),
            RedisNames.readReceiptsChannel(config.redisKeyPrefix, userId)
        };
    }

    /**
     * From a subscriber thread: a receipt goes to the streams of its user as it is; a count notice
     * (the job's UNREAD_CHANGED, a TRACK_CHANGED, a CHANNEL_CHANGED) makes the streams it concerns
     * read their counts again, or merge the job's changes of a user with no channel ({@link
     * CountPush#jobChanged}), and the job's ERASED ends the user's streams.
     */
    private void dispatch(String channel, String text) {
        long channelId = channels.channelOf(channel);
        boolean change = channel.startsWith(changedPrefix);
        if (channelId == 0 && !change) {
            if (channel.startsWith(receiptsPrefix)) {
                long userId = Long.parseLong(channel.substring(receiptsPrefix.length()));
                StreamClient.Message receipt = new StreamClient.Message(false, 0, text);
                List<StreamClient> targets;
                synchronized (lock) {
                    targets = users.of(userId);
                }
                targets.forEach(client -> client.deliver(receipt));
            }
            return;
        }
        JsonNode message;
        try {
            message = json.readTree(text);
        } catch (IOException e) {
            LOG.warn("dropped a message on {} that is not JSON", channel);
            return;
        }
        long version = message.path("version").asLong(0);
        if (channelId != 0) {
            push.channelChanged(channelId, version);
            return;
        }
        long userId = Long.parseLong(channel.substring(changedPrefix.length()));
        String type = message.path("type").asText();
        if (MessageTypes.ERASED.equals(type)) {
            erased(userId, text);
        } else if (MessageTypes.TRACK_CHANGED.equals(type)) {
            push.trackChanged(userId, message.path("conversationId").asLong(0));
        } else {
            push.jobChanged(userId, message);
        }
    }

    /**
     * The job erased the user: its streams here end with {@code notice}, and the user is forgotten
     * at once, so that no refresh registers it as live again; a registration written here since the
     * job took the user off is taken off too. A stream the user opens later starts afresh.
     */
    private void erased(long userId, String notice) {
        StreamUsers.Removed removed;
        synchronized (lock) {
            removed = users.removeUser(userId);
            if (removed == null) {
                return;
            }
            subscriptions.unsubscribe(channels(userId));
            channels.remove(userId);
            metrics.streamsHeld(users.streams());
        }
        for (StreamClient client : removed.streams()) {
            client.end(notice);
        }
        if (removed.liveUntil() != 0) {
            live.notLive(userId, removed.liveUntil());
        }
    }

    private void heartbeat() {
        for (StreamClient client : clients()) {
            client.heartbeatDue();
        }
        synchronized (lock) {
            subscriptions.heartbeat();
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
            return users.all();
        }
    }

    /** On a cluster: these users' streams may have missed messages, so each must reconnect. */
    private void cutOff(Set<Long> userIds) {
        List<StreamClient> cut = new ArrayList<>();
        synchronized (lock) {
            for (long userId : channels.owners(userIds)) {
                StreamUsers.Removed removed = users.removeUser(userId);
                if (removed != null) {
                    cut.addAll(removed.streams());
                    // Its other channels may be on primaries still subscribed.
                    subscriptions.unsubscribe(channels(userId));
                    channels.remove(userId);
                }
            }
            metrics.streamsHeld(users.streams());
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
            subscriptions.reset();
            all = users.removeAll();
            channels.clear();
            metrics.streamsHeld(users.streams());
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
        subscriptions.close();
        lost();
        push.close();
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
}
