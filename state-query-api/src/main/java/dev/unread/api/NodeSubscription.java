package dev.unread.api;

import dev.unread.contract.RedisEndpoint;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisProtocol;

/**
 * The subscription of {@link LiveStreams} on a single Redis node: ONE connection, subscribed to a
 * channel of its own for its whole life (SUBSCRIBE needs one) and to the channels of the users the
 * instance serves. When it fails, the listener hears that every stream may have missed messages,
 * and the connection is made again in the background.
 *
 * <p>Every method but {@link #close()} expects the caller to hold the lock given to the
 * constructor, which also guards the connection's commands and callbacks.
 */
final class NodeSubscription implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NodeSubscription.class);

    private static final long RECONNECT_BACKOFF_MS = 1000;

    /** What the subscription tells {@link LiveStreams}. */
    interface Listener {
        /** A message on a subscribed channel, from the subscription's thread. */
        void message(String channel, String text);

        /** The connection ended: every stream may have missed messages. Without the lock. */
        void lost();
    }

    private final ApiConfig config;
    private final Object lock;
    private final Listener listener;

    /** Subscribed for the connection's lifetime: SUBSCRIBE needs at least one channel. */
    private final String ownChannel;

    private final JedisPubSub pubSub = new PubSub();

    /** The SUBSCRIBEs sent and not yet confirmed. */
    private final Confirmations acks = new Confirmations();

    private final Thread subscriber;
    private CompletableFuture<Void> connected = new CompletableFuture<>();
    private volatile boolean closed;

    NodeSubscription(ApiConfig config, Object lock, Listener listener) {
        this.config = config;
        this.lock = lock;
        this.listener = listener;
        this.ownChannel = LiveStreams.ownChannel(config.redisKeyPrefix);
        this.subscriber = new Thread(this::subscribeLoop, "unread-stream-subscriber");
        subscriber.setDaemon(true);
        subscriber.start();
    }

    /** Sends SUBSCRIBE for {@code channels}; completes when Redis confirmed the last one. */
    CompletableFuture<Void> subscribe(String... channels) {
        CompletableFuture<Void> subscribed = new CompletableFuture<>();
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

    void unsubscribe(String... channels) {
        if (!pubSub.isSubscribed()) {
            return;
        }
        try {
            pubSub.unsubscribe(channels);
        } catch (RuntimeException e) {
            // The connection is failing; its loop cuts every stream and starts over.
            LOG.debug("UNSUBSCRIBE failed", e);
        }
    }

    /** Keeps the subscription's reads inside their timeout while no one publishes. */
    void heartbeat() {
        if (!pubSub.isSubscribed()) {
            return;
        }
        try {
            pubSub.ping();
        } catch (RuntimeException e) {
            LOG.debug("PING on the subscription failed", e);
        }
    }

    /**
     * The connection is gone: what was sent and not confirmed fails, and a subscription waits for
     * the next connection.
     */
    void reset() {
        connected = new CompletableFuture<>();
        acks.failAll(new IOException("Redis subscription lost"));
    }

    private void subscribeLoop() {
        while (!closed) {
            RedisEndpoint endpoint = config.redisEndpoint();
            try (Jedis jedis =
                    new Jedis(
                            endpoint.node(),
                            endpoint.clientConfigBuilder(LiveStreams.CLIENT_NAME, config.timeoutMs)
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
            listener.lost();
            if (!closed) {
                try {
                    Thread.sleep(RECONNECT_BACKOFF_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
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
            listener.message(channel, message);
        }
    }
}
