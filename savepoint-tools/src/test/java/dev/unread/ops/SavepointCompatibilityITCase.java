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
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * A savepoint of the production pipeline made by version 1, kept in {@code
 * savepoint-tools/src/test/resources/savepoints/v1}, restores into this build and counts on: a
 * change that breaks state compatibility (a state type, a descriptor, an operator uid, the key
 * type, max parallelism) fails here rather than in a user's upgrade.
 *
 * <p>Next to the savepoint, {@code records.tsv} holds the Kafka records the job had read when the
 * savepoint was taken, with their partitions. Published again in the same order to a fresh broker,
 * they land at the same offsets, so the restored sources resume exactly after them, as they would
 * on the cluster the savepoint came from.
 *
 * <p>Regenerate it only after an intended incompatible change (and say in the release notes that
 * older savepoints no longer restore):
 *
 * <pre>
 * mvn -B -pl savepoint-tools -am verify -Dtest=none -Dit.test=SavepointCompatibilityITCase \
 *     -Dunread.savepoint.regenerate=true -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dfailsafe.failIfNoSpecifiedTests=false
 * </pre>
 */
class SavepointCompatibilityITCase {

    static final String REGENERATE = "unread.savepoint.regenerate";

    private static final Path STORED = StoredSavepoints.ROOT.resolve("v1");
    private static final Path SAVEPOINT = STORED.resolve("savepoint");
    private static final Path RECORDS = STORED.resolve("records.tsv");

    /** The events in the stored savepoint, and the events after it: fixed, so reproducible. */
    private static final long SEED_BEFORE = 20260101L;

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
    @DisabledIfSystemProperty(named = REGENERATE, matches = "true")
    void aSavepointOfAnEarlierBuildRestoresAndCountsOn(@TempDir Path work) throws Exception {
        List<Record> stored = readRecords(RECORDS);
        List<ChatEvent> before = events(stored);
        Oracle old = Oracle.of(before);
        // The job may claim files of the savepoint it starts from: it gets a copy.
        Path savepoint = work.resolve("v1");
        copy(SAVEPOINT, savepoint);

        Map<Long, UserState> held = new TreeMap<>();
        SavepointInspect.users(savepoint.toUri().toString())
                .forEach(user -> held.put(user.userId(), user));
        assertThat(held).isEqualTo(BootstrapITCase.tableStates(old, List.of()));

        String prefix = TestRedis.uniquePrefix();
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = config(KAFKA, db, prefix);
            publish(KAFKA, config, stored);

            writeWhatVersion1Wrote(prefix, old);

            ProductionJob job = ProductionJob.start(config, 3, savepoint.toUri().toString());
            try {
                // Before any new event: the totals and readers version 1 never wrote.
                ProductionJob.awaitRedis(config, old);
                Map<String, Map<String, Double>> readers = awaitReaders(prefix, old, old);
                System.out.printf(
                        "restored from v1, before any event: totals of %d users, %d readers in %d"
                                + " conversations%n",
                        old.redisTotals(prefix).size(),
                        readers.values().stream().mapToInt(Map::size).sum(),
                        readers.size());

                // Threads too: version 1 had none, they count from the first event after.
                List<ChatEvent> after = StoredSavepoints.eventsAfter(SEED_AFTER);
                publish(KAFKA, config, records(after));
                List<ChatEvent> all = new ArrayList<>(before);
                all.addAll(after);
                Oracle now = Oracle.of(all);
                assertThat(now.redisThreadHashes(prefix, false)).isNotEmpty();
                ProductionJob.awaitRedis(config, now);
                awaitReaders(prefix, now, old);
            } finally {
                job.cancel();
            }
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    @Test
    @EnabledIfSystemProperty(named = REGENERATE, matches = "true")
    void regenerateTheStoredSavepoint(@TempDir Path work) throws Exception {
        StoredSavepoints.store(
                KAFKA,
                STORED,
                new EventStreams(SEED_BEFORE).withIds(30_000, 95_000).events(300),
                work);
    }

    /**
     * Redis as a version 1 job leaves it: badges and conversation counts, but no totals and no
     * readers (version 1 wrote neither), so only the restored job can bring them.
     */
    private static void writeWhatVersion1Wrote(String prefix, Oracle old) {
        try (Jedis jedis = TestRedis.connect(0)) {
            old.redisSenderKeys(prefix).forEach(jedis::set);
            old.redisConversationHashes(prefix).forEach(jedis::hset);
        }
        assertThat(TestRedis.hashes(prefix))
                .doesNotContainKeys(old.redisTotals(prefix).keySet().toArray(String[]::new));
    }

    /**
     * Waits until every {@code chat:readers:{C}} equals the oracle's and returns them, where a
     * cursor in the restored state also makes its user a participant (docs/contract.md, "Upgrades":
     * version 1 kept no participants, and its state cannot tell who took part from who only read).
     */
    private static Map<String, Map<String, Double>> awaitReaders(
            String prefix, Oracle expected, Oracle restored) throws Exception {
        Map<String, Map<String, Double>> readers = new TreeMap<>(expected.redisReaders(prefix));
        for (Oracle.Member m : restored.conversationMemberRows().keySet()) {
            readers.computeIfAbsent(
                            prefix + Oracle.READERS_KEY + m.conversationId(), c -> new TreeMap<>())
                    .put(
                            Long.toString(m.userId()),
                            (double) expected.lastReadSeq(m.userId(), m.conversationId()));
        }
        assertThat(readers).isNotEmpty();
        ProductionJob.awaitReaders(prefix, readers);
        return readers;
    }
}
