package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.contract.Count;
import dev.unread.events.UnreadCount;
import dev.unread.testing.TcpProxy;
import dev.unread.testing.TestRedis;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.metrics.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Redis going away under a writer: retries with backoff ride out a short outage without losing a
 * write; a long one fails the flush (and so the task) rather than dropping writes.
 */
class RedisOutageTest {
    private static final long INTERVAL_MS = 200;
    private static final long USER = 10086;

    /** The sleeps between {@link RedisConnection#MAX_ATTEMPTS} attempts: 100 + 200 + 400 + 800. */
    private static final long TOTAL_BACKOFF_MS = 1500;

    private String prefix;
    private Jedis redis;
    private TcpProxy proxy;
    private SinkWriter<UnreadCount> writer;
    private TestWriterContext context;

    @BeforeEach
    void start() throws IOException {
        prefix = TestRedis.uniquePrefix();
        redis = TestRedis.connect(0);
        proxy = new TcpProxy(TestRedis.HOST, TestRedis.PORT);
    }

    @AfterEach
    void stop() throws Exception {
        if (writer != null) {
            writer.close();
        }
        proxy.close();
        TestRedis.deleteKeys(0, prefix);
        redis.close();
    }

    private void openWriter(String url) {
        context = new TestWriterContext();
        writer = new RedisCounts(TestRedis.config(url, prefix, INTERVAL_MS)).createWriter(context);
    }

    private String badge(long userId) {
        return redis.get(Count.SENDERS.key(prefix, userId));
    }

    @Test
    void aRedisThatNeverAnswersFailsTheFlushAfterBackingOff() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        openWriter("redis://127.0.0.1:" + closedPort + "/0");
        writer.write(UnreadCount.senders(USER, 1), null);

        long started = System.nanoTime();
        assertThatThrownBy(() -> writer.flush(false))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("failed 5 times in a row")
                // The badge's SET and the read of who is live; what is pushed waits for its answer.
                .hasMessageContaining("2 commands not written");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
                .isGreaterThanOrEqualTo(TOTAL_BACKOFF_MS);
        // Counted before the task fails with it: the last attempt is not retried.
        assertThat(context.counter(RedisCounts.RETRIES_METRIC))
                .isEqualTo(RedisConnection.MAX_ATTEMPTS - 1);
    }

    @Test
    void aRedisBackWithinTheRetriesLosesNothing() throws Exception {
        openWriter("redis://" + proxy.address() + "/0");
        writer.write(UnreadCount.senders(USER, 1), null);
        writer.flush(false);
        assertThat(badge(USER)).isEqualTo("1");

        proxy.down();
        writer.write(UnreadCount.senders(USER, 2), null);
        writer.write(UnreadCount.conversation(USER, 80001, 3), null);
        CompletableFuture<Void> flush =
                CompletableFuture.runAsync(
                        () -> {
                            try {
                                writer.flush(false);
                            } catch (Exception e) {
                                throw new RuntimeException(e);
                            }
                        });
        // Two refused reconnects: the writer is inside its retries, with attempts to spare.
        assertThat(proxy.awaitRefused(2, 10_000)).as("reconnects refused while down").isTrue();
        proxy.up();

        flush.get(10, TimeUnit.SECONDS);
        assertThat(badge(USER)).isEqualTo("2");
        assertThat(redis.hgetAll(Count.CONVERSATION.key(prefix, USER)))
                .containsExactly(Map.entry("80001", "3"));
        // What the alert on a failing Redis reads (monitoring/): the attempts that failed, and the
        // second flush's time, which spans its backoffs.
        assertThat(context.counter(RedisCounts.RETRIES_METRIC)).isGreaterThanOrEqualTo(2);
        Histogram flushMillis = context.histogram(RedisCounts.FLUSH_MILLIS_METRIC);
        assertThat(flushMillis.getCount()).isEqualTo(2);
        assertThat(flushMillis.getStatistics().getMax())
                .isGreaterThanOrEqualTo(RedisConnection.FIRST_BACKOFF_MS);
    }

    @Test
    void aFailedFlushKeepsItsUpdatesForTheNextFlush() throws Exception {
        openWriter("redis://" + proxy.address() + "/0");
        proxy.down();
        writer.write(UnreadCount.senders(USER, 4), null);
        assertThatThrownBy(() -> writer.flush(false)).isInstanceOf(IOException.class);
        assertThat(badge(USER)).isNull();

        proxy.up();
        writer.flush(false);
        assertThat(badge(USER)).isEqualTo("4");
    }
}
