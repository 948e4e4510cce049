package dev.unread.api;

import dev.unread.contract.RedisEndpoint;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis subscriptions of {@link LiveStreams}, whichever Redis it is: on a single node {@link
 * NodeSubscription}'s one connection, on a Redis Cluster {@link ShardedSubscriptions}' connection
 * per primary. {@link LiveStreams} says what to subscribe and hears what arrives; how is here.
 *
 * <p>Every method but {@link #prepare()} and {@link #close()} expects the caller to hold the lock
 * given to the constructor.
 */
final class StreamSubscriptions implements AutoCloseable {

    /** What the subscriptions tell {@link LiveStreams}, never with the lock held. */
    interface Listener {
        /** A message on a subscribed channel, from a subscriber thread. */
        void message(String channel, String text);

        /** On a cluster: these users' streams may have missed messages. */
        void lost(Set<Long> userIds);

        /** On a single node: the connection ended, every stream may have missed messages. */
        void lostAll();
    }

    /** On a single node: the one subscription connection; null on a cluster. */
    private final NodeSubscription node;

    /** On a cluster: the subscriptions per primary; null on a single node. */
    private final ShardedSubscriptions sharded;

    StreamSubscriptions(ApiConfig config, Object lock, Listener listener) {
        RedisEndpoint endpoint = config.redisEndpoint();
        if (endpoint.isCluster()) {
            this.node = null;
            this.sharded =
                    new ShardedSubscriptions(
                            endpoint,
                            config.redisKeyPrefix,
                            config.timeoutMs,
                            lock,
                            new ShardedSubscriptions.Listener() {
                                @Override
                                public void message(String channel, String text) {
                                    listener.message(channel, text);
                                }

                                @Override
                                public void lost(Set<Long> userIds) {
                                    listener.lost(userIds);
                                }
                            });
        } else {
            this.sharded = null;
            this.node =
                    new NodeSubscription(
                            config,
                            lock,
                            new NodeSubscription.Listener() {
                                @Override
                                public void message(String channel, String text) {
                                    listener.message(channel, text);
                                }

                                @Override
                                public void lost() {
                                    listener.lostAll();
                                }
                            });
        }
    }

    /**
     * Before a subscription, without the lock: on a cluster, reads the slot map when it may be out
     * of date (a round trip).
     *
     * @throws RuntimeException when no node of the cluster answered
     */
    void prepare() {
        if (sharded != null) {
            sharded.refreshSlots();
        }
    }

    /**
     * Subscribes {@code channels} on behalf of {@code userId} (whose streams a cluster cuts off
     * when one of them is lost); completes when Redis confirmed them.
     */
    CompletableFuture<Void> subscribe(long userId, String... channels) {
        return sharded != null ? sharded.subscribe(userId, channels) : node.subscribe(channels);
    }

    void unsubscribe(String... channels) {
        if (sharded != null) {
            sharded.unsubscribe(channels);
        } else {
            node.unsubscribe(channels);
        }
    }

    void heartbeat() {
        if (sharded != null) {
            sharded.heartbeat();
        } else {
            node.heartbeat();
        }
    }

    /** The single node's connection is gone: what waits for it fails. Nothing on a cluster. */
    void reset() {
        if (node != null) {
            node.reset();
        }
    }

    @Override
    public void close() {
        if (sharded != null) {
            sharded.close();
        } else {
            node.close();
        }
    }
}
