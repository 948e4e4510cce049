package dev.unread.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;

/**
 * Classic Pub/Sub subscribers (PSUBSCRIBE) under a prefix on every node of a Redis Cluster, to
 * prove that nothing under it went out as a classic PUBLISH, which a cluster copies to every node:
 * shard channels (SPUBLISH) reach none of them.
 */
public final class BroadcastWitness implements AutoCloseable {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final String marker;
    private final List<Listener> listeners = new ArrayList<>();

    /** Subscribes on every node of {@code ports}; returns once each confirmed. */
    public BroadcastWitness(List<Integer> ports, String prefix) throws InterruptedException {
        this.marker = prefix + "broadcast-witness";
        for (int port : ports) {
            listeners.add(new Listener(port, prefix + "*"));
        }
        for (Listener listener : listeners) {
            if (!listener.subscribed.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new AssertionError("no PSUBSCRIBE confirmation from " + listener.port);
            }
        }
    }

    /**
     * What the subscribers heard besides markers, as {@code port channel message}: each node
     * publishes a marker (a classic PUBLISH delivers to the node's own subscribers at once), and
     * once every subscriber heard its own node's marker, whatever a node had published before has
     * been heard too.
     */
    public List<String> heard() throws Exception {
        for (Listener listener : listeners) {
            try (Jedis jedis = new Jedis("127.0.0.1", listener.port)) {
                jedis.publish(marker, String.valueOf(listener.port));
            }
        }
        Poll.until(
                "every node's subscriber heard its node's marker",
                WAIT,
                () -> listeners.stream().allMatch(Listener::heardOwnMarker) ? true : null);
        List<String> heard = new ArrayList<>();
        for (Listener listener : listeners) {
            listener.messages.stream()
                    .filter(m -> !m.startsWith(marker + " "))
                    .forEach(m -> heard.add(listener.port + " " + m));
        }
        return heard;
    }

    @Override
    public void close() throws InterruptedException {
        for (Listener listener : listeners) {
            listener.close();
        }
    }

    private final class Listener extends JedisPubSub {
        final int port;
        final CountDownLatch subscribed = new CountDownLatch(1);
        final List<String> messages = new CopyOnWriteArrayList<>();
        final Thread thread;

        Listener(int port, String pattern) {
            this.port = port;
            this.thread =
                    new Thread(
                            () -> {
                                try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                                    jedis.psubscribe(this, pattern);
                                } catch (RuntimeException e) {
                                    // The node was killed, or the test closed the witness.
                                }
                            },
                            "broadcast-witness-" + port);
            thread.setDaemon(true);
            thread.start();
        }

        boolean heardOwnMarker() {
            return messages.contains(marker + " " + port);
        }

        @Override
        public void onPSubscribe(String pattern, int subscribedChannels) {
            subscribed.countDown();
        }

        @Override
        public void onPMessage(String pattern, String channel, String message) {
            messages.add(channel + " " + message);
        }

        void close() throws InterruptedException {
            if (isSubscribed()) {
                try {
                    punsubscribe();
                } catch (RuntimeException e) {
                    // Its node is gone; the thread has ended or ends with the connection.
                }
            }
            thread.join(WAIT.toMillis());
        }
    }
}
