package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.RedisEndpoint;
import dev.unread.testing.TestRedis;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Response;

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
            assertThat(connection.send(commands).commands()).isEqualTo(3);
            assertThat(connection.roundTrips()).isEqualTo(3);
        }
        try (Jedis redis = TestRedis.connect(0)) {
            assertThat(redis.mget(prefix + "a", prefix + "b", prefix + "c"))
                    .containsExactly("1", "2", "3");
        }
    }

    @Test
    void whatAThenMakesOfItsReplyIsSentBeforeTheRestAndCounted() throws Exception {
        RedisConnection.Then readA =
                new RedisConnection.Then() {
                    @Override
                    public Response<?> appendTo(AbstractPipeline pipeline) {
                        return pipeline.get(prefix + "a");
                    }

                    @Override
                    public List<RedisConnection.Command> then(Object reply) {
                        return List.of(p -> p.set(prefix + "copy", reply + "!"));
                    }
                };
        List<RedisConnection.Command> commands =
                List.of(
                        p -> p.set(prefix + "a", "1"),
                        readA,
                        p -> p.set(prefix + "a", "2"),
                        p -> p.set(prefix + "b", "3"));
        try (RedisConnection connection =
                new RedisConnection(RedisEndpoint.of("redis://127.0.0.1:6379/0", "", ""))) {
            assertThat(connection.send(commands).commands()).isEqualTo(5);
            // The Then ends its batch; what it made goes with the rest.
            assertThat(connection.roundTrips()).isEqualTo(2);
        }
        try (Jedis redis = TestRedis.connect(0)) {
            assertThat(redis.mget(prefix + "a", prefix + "b", prefix + "copy"))
                    .containsExactly("2", "3", "1!");
        }
    }
}
