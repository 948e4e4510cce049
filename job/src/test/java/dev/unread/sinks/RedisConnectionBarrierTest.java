package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.RedisEndpoint;
import dev.unread.testing.TestRedis;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * {@link RedisConnection#BARRIER}s in one list of commands: each splits the round trips, and none
 * is ever sent. A retried flush comes first in the next one's list, barrier and all, so two can
 * stand within one batch.
 */
class RedisConnectionBarrierTest {

    private final String prefix = TestRedis.uniquePrefix();

    @AfterEach
    void deleteKeys() {
        TestRedis.deleteKeys(0, prefix);
    }

    @Test
    void twoBarriersInOneBatchSplitItThreeWays() throws Exception {
        List<RedisConnection.Command> commands =
                List.of(
                        p -> p.set(prefix + "a", "1"),
                        RedisConnection.BARRIER,
                        p -> p.set(prefix + "b", "2"),
                        RedisConnection.BARRIER,
                        p -> p.set(prefix + "c", "3"));
        try (RedisConnection connection =
                new RedisConnection(RedisEndpoint.of("redis://127.0.0.1:6379/0", "", ""))) {
            connection.send(commands);

            assertThat(connection.roundTrips()).isEqualTo(3);
        }
        assertThat(RedisConnection.commandCount(commands)).isEqualTo(3);
        try (Jedis redis = TestRedis.connect(0)) {
            assertThat(redis.mget(prefix + "a", prefix + "b", prefix + "c"))
                    .containsExactly("1", "2", "3");
        }
    }
}
