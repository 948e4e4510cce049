package dev.unread.ops;

import static dev.unread.ops.StoredSavepoints.config;
import static dev.unread.ops.StoredSavepoints.copy;
import static dev.unread.ops.StoredSavepoints.events;
import static dev.unread.ops.StoredSavepoints.publish;
import static dev.unread.ops.StoredSavepoints.readRecords;
import static dev.unread.ops.StoredSavepoints.records;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.ops.StoredSavepoints.Record;
import dev.unread.testing.EventStreams;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Oracle;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * A savepoint of version 2 (commit 173172e, the last before version 3's work), made by that build's
 * own regeneration step (SavepointCompatibilityITCase there) from its generated traffic and kept in
 * {@code savepoint-tools/src/test/resources/savepoints/v2}, restores into this build: Redis stays
 * as version 2 left it (no reader that version did not have: its readers stage kept who takes
 * part), and threads count from the first event after the restore.
 */
class Version2SavepointITCase {

    private static final Path STORED = StoredSavepoints.ROOT.resolve("v2");

    /** The events after the restore: fixed, so reproducible. */
    private static final long SEED_AFTER = 20260102L;

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(3)
                            .build());

    @Test
    void aSavepointOfVersion2RestoresAndCountsThreadsFromTheFirstEventAfterIt(@TempDir Path work)
            throws Exception {
        List<Record> stored = readRecords(STORED.resolve("records.tsv"));
        List<ChatEvent> before = events(stored);
        Oracle old = Oracle.of(before);
        Path savepoint = work.resolve("v2");
        copy(STORED.resolve("savepoint"), savepoint);

        String prefix = TestRedis.uniquePrefix();
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = config(KAFKA, db, prefix);
            publish(KAFKA, config, stored);
            writeWhatVersion2Wrote(prefix, old);

            ProductionJob job = ProductionJob.start(config, 3, savepoint.toUri().toString());
            try {
                ProductionJob.awaitRedis(config, old);
                ProductionJob.awaitReaders(prefix, old.redisReaders(prefix));

                // Threads in the same conversations, from the first event after the restore.
                List<ChatEvent> after =
                        StoredSavepoints.withThreadsAfterTheUpgrade(
                                SEED_AFTER,
                                new EventStreams(SEED_AFTER).withIds(30_000, 95_000).events(300));
                publish(KAFKA, config, records(after));
                List<ChatEvent> all = new ArrayList<>(before);
                all.addAll(after);
                Oracle now = Oracle.of(all);
                assertThat(now.redisThreadHashes(prefix, false))
                        .as("the events after the restore make thread counts")
                        .isNotEmpty();
                ProductionJob.awaitRedis(config, now);
                ProductionJob.awaitReaders(prefix, now.redisReaders(prefix));
            } finally {
                job.cancel();
            }
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    /**
     * Redis as version 2 leaves it: every count, mention, total, mark and reader the oracle gives
     * for the events it had read (version 2 kept participants, so no cursor stands in for one).
     */
    private static void writeWhatVersion2Wrote(String prefix, Oracle old) {
        try (Jedis jedis = TestRedis.connect(0)) {
            old.redisSenderKeys(prefix).forEach(jedis::set);
            old.redisConversationHashes(prefix).forEach(jedis::hset);
            old.redisMentionHashes(prefix).forEach(jedis::hset);
            old.redisTotals(prefix).forEach(jedis::hset);
            old.redisMarkedSets(prefix)
                    .forEach((key, members) -> jedis.sadd(key, members.toArray(String[]::new)));
            old.redisReaders(prefix).forEach(jedis::zadd);
        }
    }
}
