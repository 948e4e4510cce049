package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.contract.RedisEndpoint;
import dev.unread.testing.TestRedis;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A writer closed while its sender is in a round trip ({@link FlushSender#close} interrupts the
 * sender): the round trip on the wire completes, and nothing after it is sent. The restored job may
 * already be writing the same keys; a later round trip of the closed one would land after those
 * writes, and a {@code ZADD … GT} of a rolled-back score would stand for good.
 */
class RedisConnectionInterruptTest {

    private final String prefix = TestRedis.uniquePrefix();

    @AfterEach
    void deleteKeys() {
        TestRedis.deleteKeys(0, prefix);
    }

    @Test
    void anInterruptedSenderSendsNoRoundTripAfterTheOneOnTheWire() throws Exception {
        List<RedisConnection.Command> commands = new ArrayList<>();
        int total = 2 * RedisConnection.BATCH_SIZE + 1;
        for (int i = 0; i < total; i++) {
            String key = prefix + i;
            if (i == 10) {
                // The writer is closed while the first round trip is being sent.
                commands.add(
                        p -> {
                            Thread.currentThread().interrupt();
                            return p.set(key, "x");
                        });
            } else {
                commands.add(p -> p.set(key, "x"));
            }
        }
        try (RedisConnection connection =
                new RedisConnection(RedisEndpoint.of("redis://127.0.0.1:6379/0", "", ""))) {
            assertThatThrownBy(() -> connection.send(commands))
                    .isInstanceOf(InterruptedException.class);
            assertThat(connection.roundTrips()).isEqualTo(1);
        } finally {
            Thread.interrupted();
        }
        try (Jedis redis = TestRedis.connect(0)) {
            assertThat(redis.keys(prefix + "*")).hasSize(RedisConnection.BATCH_SIZE);
        }
    }
}
