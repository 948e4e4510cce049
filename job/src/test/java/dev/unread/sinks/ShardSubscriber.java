package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.JedisShardedPubSub;
import redis.clients.jedis.RedisClusterClient;

/**
 * SSUBSCRIBE to one shard channel of the Redis Cluster of {@code config} through a cluster client,
 * on a thread of its own, until closed.
 */
final class ShardSubscriber extends JedisShardedPubSub implements AutoCloseable {
    private static final long WAIT_SECONDS = 30;

    private final BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    private final CountDownLatch subscribed = new CountDownLatch(1);
    private final RedisClusterClient client;
    private final Thread thread;

    ShardSubscriber(UnreadConfig config, String channel) throws InterruptedException {
        client =
                config.redisEndpoint()
                        .clusterClient("test-subscriber", 5000, new ConnectionPoolConfig());
        thread = new Thread(() -> client.ssubscribe(this, channel));
        thread.setDaemon(true);
        thread.start();
        assertThat(subscribed.await(10, TimeUnit.SECONDS)).isTrue();
    }

    /** The next message, or null when none comes within 30 seconds. */
    String next() throws InterruptedException {
        return heard.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @Override
    public void onSSubscribe(String channel, int subscribedChannels) {
        subscribed.countDown();
    }

    @Override
    public void onSMessage(String channel, String message) {
        heard.add(message);
    }

    @Override
    public void close() throws InterruptedException {
        sunsubscribe();
        thread.join(10_000);
        client.close();
    }
}
