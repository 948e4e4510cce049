package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.testing.EventStreams;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Oracle;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operations of docs/operations.md on the production pipeline: the job runs at parallelism 1,
 * is stopped with a savepoint, restored at 4, stopped again and restored at 2, with events
 * published before and while each run. At every step Redis holds the oracle's counts, and at the
 * end MySQL its cursors and the state (read back with {@code savepoint inspect}) exactly what the
 * counter holds after all events. Key groups move between subtasks at each rescale, so a lost or
 * misplaced key would show.
 */
class SavepointLifecycleITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    @Test
    void stateSurvivesStopWithSavepointAndRescalingFromOneToFourToTwo(
            @TempDir Path savepoints, @InjectMiniCluster MiniCluster cluster) throws Exception {
        long seed = JobHarness.seed("SavepointLifecycleITCase");
        String prefix = TestRedis.uniquePrefix();
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config =
                    KAFKA.freshTopics(
                            Map.of(
                                    "jdbc-url",
                                    db.jdbcUrl(),
                                    "redis-key-prefix",
                                    prefix,
                                    "flush-interval-ms",
                                    "50",
                                    "checkpoint-interval-ms",
                                    "500"));
            EventStreams streams = new EventStreams(seed);
            List<ChatEvent> all = new ArrayList<>();
            String savepoint = null;
            ProductionJob job = null;
            try {
                for (int parallelism : new int[] {1, 4, 2}) {
                    List<ChatEvent> before = step(streams);
                    List<ChatEvent> during = step(streams);
                    KAFKA.produce(ProductionJob.records(config, before));
                    job = ProductionJob.start(config, parallelism, savepoint);
                    KAFKA.produce(ProductionJob.records(config, during));
                    all.addAll(before);
                    all.addAll(during);

                    ProductionJob.awaitRedis(config, Oracle.of(all));
                    assertThat(job.counterParallelism(cluster)).isEqualTo(parallelism);
                    savepoint = job.stopWithSavepoint(savepoints);
                    job = null;
                }
                Oracle expected = Oracle.of(all);
                ProductionJob.awaitMySql(db, expected);

                Map<Long, UserState> held = new TreeMap<>();
                SavepointInspect.users(savepoint).forEach(user -> held.put(user.userId(), user));
                assertThat(held).isEqualTo(BootstrapITCase.expectedStates(expected));
            } catch (AssertionError | Exception e) {
                throw new AssertionError("event seed " + seed + ": " + e.getMessage(), e);
            } finally {
                if (job != null) {
                    job.cancel();
                }
            }
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    /**
     * Events on the same few hundred users in every step, so that later steps change the counts of
     * users whose state was restored, with duplicates as at-least-once producers send them.
     */
    private static List<ChatEvent> step(EventStreams streams) {
        List<ChatEvent> events = new ArrayList<>();
        for (int story = 0; story < 2; story++) {
            events.addAll(
                    streams.withIds(20_000 + 1_000 * story, 90_000 + 1_000 * story).events(150));
        }
        return streams.withDuplicates(events, 0.1);
    }
}
