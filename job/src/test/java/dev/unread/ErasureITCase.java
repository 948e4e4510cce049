package dev.unread;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.contract.EventJson;
import dev.unread.contract.InputField;
import dev.unread.contract.RedisNames;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Poll;
import dev.unread.testing.RedisClusterServer;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * A user's erasure end to end (docs/contract.md, "Erasure"): the shipped job on Kafka, Flink's
 * MiniCluster with RocksDB, MariaDB, and Redis — one Redis, and a Redis Cluster on which the user's
 * keys sit on several primaries. After the erasure a scan of every key under the run's prefix finds
 * none of the user's but the action stamp, set to {@code erasedAt}, no {@code chat:readers:*} has
 * the user, and no MySQL row is the user's; another user's counts (with the erased user among its
 * senders) stay. Then the user's old events replayed and a late group message change nothing, while
 * a group message and a direct message sent after the erasure count from nothing.
 */
class ErasureITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    @RegisterExtension static final RedisClusterServer CLUSTER = new RedisClusterServer();

    private static final Duration WAIT = Duration.ofMinutes(2);

    private static final long U = 5001;
    private static final long V = 5002;
    private static final long W = 5003;
    private static final long GROUP = 70001;
    private static final long DIRECT = 70002;
    private static final long T0 = 1_767_225_600_000L;
    private static final long ERASED_AT = T0 + 100;

    @TempDir Path checkpoints;

    @Test
    void onOneRedisNothingOfTheUserIsLeftAndLaterEventsCountAfresh() throws Exception {
        String prefix = JobHarness.prefix("erasure", 1);
        try (Jedis redis = TestRedis.connect(0)) {
            run(
                    new HashMap<>(),
                    prefix,
                    () -> scan(List.of(redis), prefix),
                    () -> TestRedis.deleteKeys(prefix));
        }
    }

    @Test
    void onARedisClusterNothingOfTheUserIsLeftOnAnyPrimary() throws Exception {
        String prefix = JobHarness.prefix("erasure-cluster", 1);
        List<Jedis> primaries = new ArrayList<>();
        try {
            for (int port : CLUSTER.primaries()) {
                primaries.add(new Jedis("127.0.0.1", port));
            }
            run(
                    new HashMap<>(CLUSTER.settings()),
                    prefix,
                    () -> scan(primaries, prefix),
                    () -> CLUSTER.deleteKeys(prefix));
        } finally {
            primaries.forEach(Jedis::close);
        }
    }

    private void run(
            Map<String, String> redisSettings,
            String prefix,
            Supplier<Map<String, Object>> redis,
            Runnable deleteKeys)
            throws Exception {
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            Map<String, String> settings = JobHarness.settings(prefix, db.jdbcUrl());
            settings.putAll(redisSettings);
            UnreadConfig config = KAFKA.freshTopics(settings);
            JobClient job =
                    JobHarness.start(
                            UnreadJob.forProduction(config), config, checkpoints, "erasure");
            try {
                List<ProducerRecord<byte[], byte[]>> history = history(config);
                KAFKA.produce(history);
                // V's badge too: another sink subtask may write it after U's keys.
                Poll.until(
                        "the user's counts, rows and score, and the other user's badge",
                        WAIT,
                        () ->
                                keysOf(redis.get(), U).size() >= 7
                                                && rows(db, U) == 2
                                                && redis.get()
                                                        .containsKey(
                                                                RedisNames.readersKey(
                                                                        prefix, DIRECT))
                                                && keysOf(redis.get(), V)
                                                        .containsKey(Count.SENDERS.key(prefix, V))
                                        ? true
                                        : null);
                Map<String, Object> other = new TreeMap<>(keysOf(redis.get(), V));

                KAFKA.produce(
                        config.readsTopic, EventJson.key(U), EventJson.userErased(U, ERASED_AT));
                Poll.until(
                        "nothing of the user anywhere but the action stamp at erasedAt",
                        WAIT,
                        () ->
                                keysOf(redis.get(), U)
                                                        .equals(
                                                                Map.of(
                                                                        RedisNames.actionStampKey(
                                                                                prefix, U),
                                                                        Long.toString(ERASED_AT)))
                                                && rows(db, U) == 0
                                                && !inAnyReaders(redis.get(), U)
                                        ? true
                                        : null);
                assertThat(keysOf(redis.get(), V)).as("another user's keys").isEqualTo(other);
                assertThat(rows(db, V)).isEqualTo(1);

                // The user's history again (a replay), a group message sent before the erasure
                // that arrives late, and two messages sent after it.
                KAFKA.produce(history);
                KAFKA.produce(
                        config.conversationsTopic,
                        EventJson.key(GROUP),
                        EventJson.groupMessage(GROUP, 5, V, ERASED_AT - 1));
                KAFKA.produce(
                        config.conversationsTopic,
                        EventJson.key(GROUP),
                        EventJson.groupMessage(GROUP, 6, V, ERASED_AT + 1));
                KAFKA.produce(
                        config.messagesTopic,
                        EventJson.key(U),
                        EventJson.message(W, U, ERASED_AT + 2, DIRECT, 9, false));
                Map<String, Object> expected =
                        Map.of(
                                Count.SENDERS.key(prefix, U),
                                "2",
                                Count.CONVERSATION.key(prefix, U),
                                Map.of("" + GROUP, "1", "" + DIRECT, "1"),
                                Count.TOTAL_MESSAGES.key(prefix, U),
                                Map.of("messages", "2", "conversations", "2"));
                Poll.until(
                        "only what came after the erasure",
                        WAIT,
                        () -> countsOf(redis.get(), U).equals(expected) ? true : null);
                assertThat(rows(db, U)).isZero();
                assertThat(inAnyReaders(redis.get(), U)).isFalse();
            } finally {
                job.cancel().get();
                deleteKeys.run();
            }
        }
    }

    /**
     * Something of every kind for U: a group membership and message, a direct conversation with a
     * mention, a reply in a followed thread, a mark, a preference, reads of both cursors; and U's
     * own message to V, which puts U among V's senders.
     */
    private static List<ProducerRecord<byte[], byte[]>> history(UnreadConfig config) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        String conversations = config.conversationsTopic;
        records.add(record(conversations, GROUP, EventJson.membership(true, GROUP, U, 1)));
        records.add(record(conversations, GROUP, EventJson.membership(true, GROUP, V, 2)));
        records.add(record(conversations, GROUP, EventJson.groupMessage(GROUP, 3, V, T0 + 3, U)));
        String messages = config.messagesTopic;
        for (long seq = 1; seq <= 4; seq++) {
            records.add(
                    record(messages, U, EventJson.message(W, U, T0 + seq, DIRECT, seq, seq == 2)));
        }
        records.add(record(messages, U, EventJson.reply(W, U, T0 + 6, DIRECT, 6, 3, true)));
        records.add(record(messages, V, EventJson.message(U, V, T0 + 7, DIRECT + 1, 1, false)));
        String reads = config.readsTopic;
        records.add(record(reads, U, EventJson.threadFollowed(U, DIRECT, 3, true, T0 + 8)));
        records.add(record(reads, U, EventJson.conversationMarkedUnread(U, GROUP, T0 + 9)));
        records.add(
                record(
                        reads,
                        U,
                        EventJson.conversationPreference(
                                U, DIRECT, InputField.CountPreference.ALL.name(), T0 + 10)));
        records.add(record(reads, U, EventJson.conversationRead(U, DIRECT, 1, T0 + 11)));
        records.add(record(reads, U, EventJson.inboxOpened(U, T0 + 1)));
        records.add(record(reads, V, EventJson.inboxOpened(V, T0 + 1)));
        return records;
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, long key, String value) {
        return new ProducerRecord<>(topic, KafkaBroker.utf8("" + key), KafkaBroker.utf8(value));
    }

    /** Every key under the prefix on the given nodes, with its content. */
    private static Map<String, Object> scan(List<Jedis> nodes, String prefix) {
        Map<String, Object> all = new TreeMap<>();
        for (Jedis node : nodes) {
            for (String key : TestRedis.keys(node, prefix)) {
                String type = node.type(key);
                all.put(
                        key,
                        switch (type) {
                            case "hash" -> new TreeMap<>(node.hgetAll(key));
                            case "set" -> new java.util.TreeSet<>(node.smembers(key));
                            case "zset" -> node.zrangeWithScores(key, 0, -1).toString();
                            default -> node.get(key);
                        });
            }
        }
        return all;
    }

    /** The keys named for {@code user}: every key of the job or the API ends in its id. */
    private static Map<String, Object> keysOf(Map<String, Object> keys, long user) {
        Map<String, Object> of = new TreeMap<>();
        keys.forEach(
                (key, value) -> {
                    if (key.endsWith(":" + user)) {
                        of.put(key, value);
                    }
                });
        return of;
    }

    /** The user's count keys, without the live push's version and the API's action stamp. */
    private static Map<String, Object> countsOf(Map<String, Object> keys, long user) {
        Map<String, Object> counts = keysOf(keys, user);
        counts.keySet()
                .removeIf(
                        key -> TestRedis.isNotACount(key) || key.contains(RedisNames.ACTION_STAMP));
        return counts;
    }

    private static boolean inAnyReaders(Map<String, Object> keys, long user) {
        return keys.entrySet().stream()
                .anyMatch(
                        e ->
                                e.getKey().contains(RedisNames.READERS)
                                        && e.getValue().toString().contains("[" + user + ","));
    }

    private static long rows(MySqlTestDatabase db, long user) {
        try {
            String[] tables = {"user_activity", "conversation_member"};
            long rows = 0;
            for (String table : tables) {
                if (db.tableExists(table)) {
                    rows +=
                            db.queryLong(
                                    "SELECT COUNT(*) FROM " + table + " WHERE user_id = " + user);
                }
            }
            return rows;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
