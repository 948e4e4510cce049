package dev.unread.api;

import dev.unread.contract.RedisEndpoint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisShardedPubSub;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The subscriptions of {@link LiveStreams} on a Redis Cluster, where the per-user channels are
 * shard channels (the job SPUBLISHes them): a shard channel's messages reach only the primary
 * owning the channel's slot (and its replicas), so each channel is SSUBSCRIBEd there. One
 * connection per primary that owns a channel of a user this instance serves, opened when first
 * needed and shared by all of them; a user's two channels usually live on two primaries.
 *
 * <p>A connection subscribes first to a channel of its own that hashes to a slot of its primary:
 * SSUBSCRIBE needs a channel, the connection so lives while no user needs it, and subscribing it
 * again is the heartbeat (Redis answers every SSUBSCRIBE; the sharded Pub/Sub of Jedis has no
 * PING). A heartbeat unanswered by the next one closes the connection.
 *
 * <p>What a user may have missed cuts off the user's streams ({@link Listener#lost}): a failed
 * connection (its primary died, or refused an SSUBSCRIBE: MOVED after a slot left it) those of
 * every user with a channel there; a SUNSUBSCRIBE this class did not ask for (Redis sends one when
 * the channel's slot leaves the node: a migration, or a failover that demoted it) those of the
 * channel's user. The slot map is then read again before the next subscription, so a reconnecting
 * client's channels go to their new owners.
 *
 * <p>Every method but {@link #refreshSlots()} and {@link #close()} expects the caller to hold the
 * lock given to the constructor, which also guards the nodes' commands and callbacks.
 */
final class ShardedSubscriptions implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ShardedSubscriptions.class);

    /** What the subscriptions tell {@link LiveStreams}, never with the lock held. */
    interface Listener {
        /** A message on a subscribed channel, from the thread of its node. */
        void message(String channel, String text);

        /** These users' streams may have missed messages: they must reconnect. */
        void lost(Set<Long> userIds);
    }

    private final Object lock;
    private final Listener listener;
    private final RedisEndpoint endpoint;
    private final JedisClientConfig clientConfig;
    private final int timeoutMs;
    private final String ownChannel;

    /** Set when the slot map may be out of date: read again before the next subscription. */
    private final AtomicBoolean stale = new AtomicBoolean();

    private volatile ClusterConnectionProvider slots;

    private final Map<HostAndPort, Node> nodes = new HashMap<>();

    /** Every channel subscribed or being subscribed, and the node it was sent to. */
    private final Map<String, Node> nodeOf = new HashMap<>();

    private boolean closed;

    ShardedSubscriptions(
            RedisEndpoint endpoint,
            String keyPrefix,
            int timeoutMs,
            Object lock,
            Listener listener) {
        this.lock = lock;
        this.listener = listener;
        this.endpoint = endpoint;
        this.timeoutMs = timeoutMs;
        this.ownChannel = LiveStreams.ownChannel(keyPrefix) + ":";
        this.clientConfig =
                endpoint.clientConfigBuilder(LiveStreams.CLIENT_NAME, timeoutMs)
                        // JedisShardedPubSub reads RESP2 pushes; say so rather than negotiate.
                        .protocol(RedisProtocol.RESP2)
                        .build();
    }

    /**
     * Reads the slot map when there is none yet or it may be out of date. Called without the lock:
     * it is a round trip to the cluster.
     *
     * @throws RuntimeException when no node of the cluster answered
     */
    synchronized void refreshSlots() {
        if (slots == null) {
            slots =
                    new ClusterConnectionProvider(
                            endpoint.clusterNodes(),
                            endpoint.clientConfig("unread-api-slots", timeoutMs));
            stale.set(false);
        } else if (stale.compareAndSet(true, false)) {
            try {
                slots.renewSlotCache();
            } catch (RuntimeException e) {
                stale.set(true);
                throw e;
            }
        }
    }

    /**
     * Sends SSUBSCRIBE for {@code channels} of {@code userId}, each to the primary owning its slot;
     * completes when Redis confirmed all of them.
     */
    CompletableFuture<Void> subscribe(long userId, String... channels) {
        List<CompletableFuture<Void>> confirmed = new ArrayList<>();
        for (String channel : channels) {
            CompletableFuture<Void> ack = new CompletableFuture<>();
            confirmed.add(ack);
            int slot = JedisClusterCRC16.getSlot(channel);
            HostAndPort owner = slots == null ? null : slots.getNode(slot);
            if (closed || owner == null) {
                ack.completeExceptionally(new IOException("no primary known for slot " + slot));
                continue;
            }
            Node node = nodes.computeIfAbsent(owner, address -> new Node(address, slot));
            nodeOf.put(channel, node);
            node.users.put(channel, userId);
            node.acks.expect(channel, ack);
            if (node.connected) {
                try {
                    node.ssubscribe(channel);
                } catch (RuntimeException e) {
                    // The connection is failing; its thread cuts off the node's users.
                    ack.completeExceptionally(e);
                }
            } else {
                node.pending.add(channel);
            }
        }
        return CompletableFuture.allOf(confirmed.toArray(CompletableFuture[]::new));
    }

    /** Sends SUNSUBSCRIBE for those of {@code channels} still subscribed. */
    void unsubscribe(String... channels) {
        for (String channel : channels) {
            Node node = nodeOf.remove(channel);
            if (node == null) {
                continue;
            }
            node.users.remove(channel);
            if (node.pending.remove(channel) || !node.connected) {
                continue;
            }
            try {
                node.leaving.merge(channel, 1, Integer::sum);
                node.sunsubscribe(channel);
            } catch (RuntimeException e) {
                // The connection is failing; its thread cuts off the node's users.
                LOG.debug("SUNSUBSCRIBE failed", e);
            }
        }
    }

    /** Subscribes each connection's own channel again; closes one that did not answer the last. */
    void heartbeat() {
        for (Node node : nodes.values()) {
            if (!node.connected) {
                continue;
            }
            if (node.heartbeatPending) {
                LOG.warn("Redis node {} did not answer a heartbeat, reconnecting", node.address);
                node.disconnect();
                continue;
            }
            try {
                node.heartbeatPending = true;
                node.ssubscribe(node.own);
            } catch (RuntimeException e) {
                LOG.debug("heartbeat SSUBSCRIBE failed", e);
            }
        }
    }

    @Override
    public void close() {
        List<Node> all;
        synchronized (lock) {
            closed = true;
            all = new ArrayList<>(nodes.values());
            all.forEach(Node::disconnect);
        }
        for (Node node : all) {
            try {
                node.thread.join(timeoutMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (slots != null) {
            slots.close();
        }
    }

    /** A channel of this instance alone that hashes to {@code slot}. */
    private String ownChannel(int slot) {
        for (int i = 0; ; i++) {
            String channel = ownChannel + i;
            if (JedisClusterCRC16.getSlot(channel) == slot) {
                return channel;
            }
        }
    }

    /** The subscription connection to one primary, read by a thread of its own. */
    private final class Node extends JedisShardedPubSub {
        final HostAndPort address;
        final String own;
        final Thread thread;

        /** Channel → the user it belongs to, for every channel subscribed or pending here. */
        final Map<String, Long> users = new HashMap<>();

        /** The SSUBSCRIBEs sent here and not yet confirmed. */
        final Confirmations acks = new Confirmations();

        /** Per channel, the SUNSUBSCRIBEs this class sent and Redis did not confirm yet. */
        final Map<String, Integer> leaving = new HashMap<>();

        /** Channels to subscribe once the connection is up. */
        final List<String> pending = new ArrayList<>();

        Connection connection;
        boolean connected;
        boolean heartbeatPending;
        boolean dead;

        Node(HostAndPort address, int slot) {
            this.address = address;
            this.own = ownChannel(slot);
            this.thread = new Thread(this::run, "unread-stream-subscriber-" + address);
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            try (Connection opened = new Connection(address, clientConfig)) {
                synchronized (lock) {
                    if (dead) {
                        return;
                    }
                    connection = opened;
                }
                proceed(opened, own);
            } catch (RuntimeException e) {
                if (!dead) {
                    LOG.warn(
                            "Redis subscription of the live streams on {} failed: {}",
                            address,
                            e.toString());
                }
            } finally {
                lost();
            }
        }

        /** Called with the lock held; the node's thread ends and calls {@link #lost()}. */
        void disconnect() {
            dead = true;
            if (connection != null) {
                connection.disconnect();
            }
        }

        /** The connection ended: every user with a channel here may have missed messages. */
        private void lost() {
            Set<Long> users;
            synchronized (lock) {
                dead = true;
                nodes.remove(address, this);
                this.users.keySet().forEach(channel -> nodeOf.remove(channel, this));
                acks.failAll(new IOException("Redis subscription on " + address + " lost"));
                users = Set.copyOf(this.users.values());
                this.users.clear();
                stale.set(true);
            }
            listener.lost(users);
        }

        @Override
        public void onSSubscribe(String channel, int subscribedChannels) {
            synchronized (lock) {
                if (channel.equals(own)) {
                    heartbeatPending = false;
                    if (!connected && !dead) {
                        connected = true;
                        // One SSUBSCRIBE each: Redis refuses channels of several slots in one.
                        pending.forEach(this::ssubscribe);
                        pending.clear();
                    }
                    return;
                }
                acks.confirm(channel);
            }
        }

        @Override
        public void onSUnsubscribe(String channel, int subscribedChannels) {
            Long user;
            synchronized (lock) {
                Integer asked = leaving.get(channel);
                if (asked != null) {
                    if (asked == 1) {
                        leaving.remove(channel);
                    } else {
                        leaving.put(channel, asked - 1);
                    }
                    return;
                }
                stale.set(true);
                if (channel.equals(own)) {
                    // The own channel's slot left this node: it may no longer own any channel here.
                    disconnect();
                    return;
                }
                user = users.remove(channel);
                nodeOf.remove(channel, this);
                acks.fail(channel, new IOException(channel + " left " + address));
            }
            if (user != null) {
                listener.lost(Set.of(user));
            }
        }

        @Override
        public void onSMessage(String channel, String message) {
            listener.message(channel, message);
        }
    }
}
