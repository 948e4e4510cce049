package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.RedisEndpoint;
import dev.unread.testing.TestRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The task's thread closes the writer (its task cancelled, the job restoring) while the sender
 * thread is in the first round trip of a flush of three: the two threads meet where the test sets
 * it, by latches. The round trip on the wire completes; the flush's later round trips are never
 * sent, so none can land after the restored job's writes.
 */
class RedisWriterCloseTest {
    private static final long WAIT_SECONDS = 30;

    private final String prefix = TestRedis.uniquePrefix();
    private final TestWriterContext context = new TestWriterContext();

    /** Reached by the sender inside the first round trip, where it waits for the close. */
    private final CountDownLatch inFirstRoundTrip = new CountDownLatch(1);

    private final CountDownLatch closed = new CountDownLatch(1);

    @AfterEach
    void deleteKeys() {
        TestRedis.deleteKeys(0, prefix);
    }

    /** One record fills it: the writer hands it to the sender at once, without waiting for it. */
    private final class FullFlush implements RedisWriter.Buffer<String> {
        private boolean full;

        @Override
        public boolean add(String record) {
            full = true;
            return false;
        }

        @Override
        public int size() {
            return full ? RedisWriter.MAX_BUFFERED : 0;
        }

        @Override
        public List<RedisConnection.Command> commands() {
            List<RedisConnection.Command> commands = new ArrayList<>();
            for (int i = 0; i < 2 * RedisConnection.BATCH_SIZE + 1; i++) {
                String key = prefix + i;
                if (i == 10) {
                    commands.add(
                            p -> {
                                inFirstRoundTrip.countDown();
                                awaitClose();
                                return p.set(key, "x");
                            });
                } else {
                    commands.add(p -> p.set(key, "x"));
                }
            }
            return commands;
        }

        @Override
        public void clear() {
            full = false;
        }
    }

    /** Waits on the sender thread until the close interrupts it, and keeps the interrupt. */
    private void awaitClose() {
        try {
            closed.await(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aWriterClosedMidFlushSendsNoRoundTripAfterTheOneOnTheWire() throws Exception {
        RedisWriter<String> writer =
                new RedisWriter<>(
                        FullFlush::new,
                        new RedisConnection(RedisEndpoint.of("redis://127.0.0.1:6379/0", "", "")),
                        context,
                        100_000,
                        100_000,
                        FlushSender.newSender(),
                        WrittenAfter.none());
        writer.write("a full buffer", null);
        assertThat(inFirstRoundTrip.await(WAIT_SECONDS, TimeUnit.SECONDS))
                .as("the sender in its first round trip")
                .isTrue();

        // Interrupts the sender, which goes on from the latch, and returns once it stopped.
        writer.close();
        closed.countDown();

        try (Jedis redis = TestRedis.connect(0)) {
            assertThat(redis.keys(prefix + "*")).hasSize(RedisConnection.BATCH_SIZE);
        }
    }
}
