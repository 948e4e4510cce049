package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.JobSettings;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.events.UnreadCount;
import dev.unread.testing.TestRedis;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/** {@link RedisCounts} in a running job: Redis ends up holding exactly the last count of each. */
class RedisCountsITCase {
    private static final int PARALLELISM = 2;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(PARALLELISM)
                            .build());

    private String prefix;

    @BeforeEach
    void start() {
        prefix = TestRedis.uniquePrefix();
    }

    @AfterEach
    void stop() {
        TestRedis.deleteKeys(0, prefix);
    }

    @Test
    void redisHoldsTheLastCountOfEveryBadgeAndConversationAndNothingElse() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<UnreadCount> updates = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            long userId = 1 + random.nextInt(40);
            long conversationId = random.nextInt(6);
            // Zero often enough that keys and fields are deleted as well as written.
            long count = random.nextInt(4);
            updates.add(UnreadCount.conversation(userId, conversationId, count));
        }
        UnreadConfig config = TestRedis.config("redis://127.0.0.1:6379/0", prefix, 50);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.configure(JobSettings.of(config));
        env.setParallelism(PARALLELISM);
        // One user's updates reach one writer in order, as behind the job's keyed counter.
        env.fromData(updates, Types.POJO(UnreadCount.class))
                .keyBy(count -> count.userId, Types.LONG)
                .sinkTo(new RedisCounts(config))
                .name("Redis counts");
        env.execute("RedisCountsITCase");

        try (Jedis redis = TestRedis.connect(0)) {
            assertThat(TestRedis.contents(redis, prefix))
                    .as("seed %d", seed)
                    .isEqualTo(expected(updates));
        }
    }

    /** Redis as the contract wants it after {@code updates}: last value wins, 0 is absent. */
    private Map<String, Object> expected(List<UnreadCount> updates) {
        Map<Long, Long> badges = new HashMap<>();
        Map<Long, Map<Long, Long>> conversations = new HashMap<>();
        for (UnreadCount update : updates) {
            if (update.isSenderBadge()) {
                badges.put(update.userId, update.count);
            } else {
                conversations
                        .computeIfAbsent(update.userId, u -> new HashMap<>())
                        .put(update.conversationId, update.count);
            }
        }
        Map<String, Object> expected = new HashMap<>();
        badges.forEach(
                (userId, count) -> {
                    if (count > 0) {
                        expected.put(Count.SENDERS.key(prefix, userId), String.valueOf(count));
                    }
                });
        conversations.forEach(
                (userId, counts) -> {
                    Map<String, String> fields = new HashMap<>();
                    counts.forEach(
                            (conversationId, count) -> {
                                if (count > 0) {
                                    fields.put(
                                            String.valueOf(conversationId), String.valueOf(count));
                                }
                            });
                    if (!fields.isEmpty()) {
                        expected.put(Count.CONVERSATION.key(prefix, userId), fields);
                    }
                });
        return expected;
    }
}
