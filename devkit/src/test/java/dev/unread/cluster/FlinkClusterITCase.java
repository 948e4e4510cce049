package dev.unread.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import dev.unread.kafka.TempDirs;
import dev.unread.testing.BadRecords;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The job on a real Flink standalone session cluster, each part its own OS process started from
 * Maven Central jars with Flink's memory settings and the project's config.yaml ({@link
 * FlinkCluster}), with ZooKeeper high availability, driven only through Flink's CLI and REST API
 * with the commands docs/operations.md gives: submit the shaded jar; stop with a savepoint and
 * resubmit from it at another parallelism over two TaskManagers; {@code kill -9} a TaskManager
 * mid-stream and start a new one; {@code kill -9} the JobManager mid-stream and start a new one.
 * After each step Redis and MySQL equal the oracle of everything published so far; at the end the
 * dead-letter topic holds every bad record. Prints the start-up and recovery times that
 * docs/operations.md reports (none is asserted).
 *
 * <p>This is docs/operations.md's section "Tested on a real cluster": its CLI commands are built by
 * {@link ClusterJob} and its high-availability settings by {@link #highAvailability}, and {@link
 * ClusterDocTest} checks that the section shows exactly these.
 */
class FlinkClusterITCase {

    /** The root pom's {@code test.jvm.options}. */
    private static final String C1_ALONE = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m";

    /**
     * Small processes for a 2-core test machine, and a lost TaskManager noticed within seconds
     * rather than the default 50 s heartbeat timeout.
     */
    static final Map<String, String> OVERRIDES =
            Map.of(
                    "jobmanager.memory.process.size", "1024m",
                    "taskmanager.memory.process.size", "1600m",
                    "heartbeat.interval", "1 s",
                    "heartbeat.timeout", "5 s",
                    // The tests' checkpoints come every second; config.yaml's pause would space
                    // them 5 s.
                    "execution.checkpointing.min-pause", "500 ms",
                    // As the tests' own JVMs (the root pom's test.jvm.options): C2's compiling
                    // was CPU the suite, CPU-bound on two cores, waited for.
                    "env.java.opts.jobmanager", C1_ALONE,
                    "env.java.opts.taskmanager", C1_ALONE);

    /** ZooKeeper's minimum session timeout is two ticks: short ticks allow a short session. */
    private static final int ZOOKEEPER_TICK_MS = 500;

    /**
     * This cluster's name in ZooKeeper and in the HA storage directory: a JobManager that replaces
     * a lost one finds the cluster's jobs under it.
     */
    static final String CLUSTER_ID = "/unread";

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @Test
    void theJobSurvivesStopRescaleAndTheLossOfATaskManagerAndOfTheJobManager() throws Exception {
        long seed = JobHarness.seed("FlinkClusterITCase");
        String context = JobHarness.context(seed);
        String prefix = JobHarness.prefix("cluster", seed);
        Path dir = TempDirs.create("fc");
        try (TestingServer zooKeeper =
                        new TestingServer(
                                new InstanceSpec(
                                        Files.createDirectories(dir.resolve("zk")).toFile(),
                                        -1,
                                        -1,
                                        -1,
                                        false,
                                        -1,
                                        ZOOKEEPER_TICK_MS,
                                        -1),
                                true);
                MySqlTestDatabase db = MySqlTestDatabase.create();
                FlinkCluster cluster =
                        FlinkCluster.configure(
                                ClusterJob.lib(),
                                FlinkConf.findDir(),
                                dir,
                                withZooKeeper(zooKeeper, dir))) {
            Map<String, String> settings = JobHarness.settings(prefix, db.jdbcUrl());
            settings.put("checkpoint-interval-ms", "1000");
            UnreadConfig config = KAFKA.freshTopics(settings);
            List<JobHarness.Traffic> published = new ArrayList<>();

            long startedAt = System.nanoTime();
            FlinkCluster.Node jobManager = cluster.startJobManager();
            FlinkCluster.Node firstTaskManager = cluster.startTaskManager();
            cluster.startTaskManager();
            cluster.awaitTaskManagers(2);
            double startUp = seconds(startedAt);

            try {
                // Submit.
                String job = ClusterJob.run(cluster, config, null, 2);
                ClusterJob.awaitRunning(cluster, job);
                publishAndAwaitAgreement(config, seed, 1, published, prefix, db, context);

                // Stop with a savepoint, resubmit from it at parallelism 4 over both TaskManagers.
                String savepoint = ClusterJob.stop(cluster, job);
                job = ClusterJob.run(cluster, config, savepoint, 4);
                ClusterJob.awaitRunning(cluster, job);
                assertThat(ClusterJob.flink(cluster, ClusterJob.listCommand()))
                        .contains(job + " : unread (RUNNING)");
                publishAndAwaitAgreement(config, seed, 2, published, prefix, db, context);

                // kill -9 a TaskManager mid-stream; a new one takes its place.
                ClusterJob.awaitCheckpointsAfter(cluster, job, 0);
                int failures = failures(cluster, job);
                JobHarness.Traffic traffic = publish(config, seed, 3, published);
                cluster.kill(firstTaskManager);
                long killedAt = System.nanoTime();
                cluster.startTaskManager();
                long replacedAt = System.nanoTime();
                awaitFailuresAfter(cluster, job, failures);
                double taskManagerLossDetected = seconds(killedAt);
                ClusterJob.awaitRunning(cluster, job);
                double taskManagerRecovery = seconds(replacedAt);
                ClusterJob.awaitAgreement(published, prefix, db, context);

                // kill -9 the JobManager mid-stream; a new one recovers the job from ZooKeeper.
                ClusterJob.awaitCheckpointsAfter(cluster, job, 0);
                traffic = publish(config, seed, 4, published);
                cluster.kill(jobManager);
                long restartedAt = System.nanoTime();
                cluster.startJobManager();
                // Its REST API answers once it leads: the dead one's ZooKeeper session is over.
                long leadingAt = System.nanoTime();
                double jobManagerUp = seconds(restartedAt);
                ClusterJob.awaitRunning(cluster, job);
                double jobManagerRecovery = seconds(restartedAt);
                double jobManagerRecoveryAfterUp = seconds(leadingAt);
                ClusterJob.awaitAgreement(published, prefix, db, context);

                // Nothing lost on the side either: every bad record of every step, dead-lettered.
                JobHarness.assertDeadLetters(
                        KAFKA,
                        config,
                        published.stream().flatMap(t -> t.bad().stream()).toList(),
                        false,
                        context + ", after the JobManager's loss");

                ClusterJob.flink(cluster, ClusterJob.cancelCommand(job));
                System.out.printf(
                        "FlinkClusterITCase timings: cluster up (JobManager REST + 2 TaskManagers"
                                + " registered) %.1f s; TaskManager killed: loss detected %.1f s,"
                                + " RUNNING %.1f s after the new TaskManager started; JobManager"
                                + " killed: new one's REST up %.1f s, RUNNING %.1f s after it"
                                + " started, %.1f s after its REST was up%n",
                        startUp,
                        taskManagerLossDetected,
                        taskManagerRecovery,
                        jobManagerUp,
                        jobManagerRecovery,
                        jobManagerRecoveryAfterUp);
            } finally {
                TestRedis.deleteKeys(prefix);
            }
        } finally {
            TempDirs.delete(dir);
        }
    }

    /** {@link #OVERRIDES} with high availability through {@code zooKeeper}. */
    private static Map<String, String> withZooKeeper(TestingServer zooKeeper, Path dir) {
        Map<String, String> all = new LinkedHashMap<>(OVERRIDES);
        all.putAll(
                highAvailability(
                        zooKeeper.getConnectString(), dir.resolve("ha").toUri().toString()));
        return all;
    }

    /**
     * ZooKeeper high availability as docs/operations.md ("High availability") gives it, with the
     * ZooKeeper servers {@code quorum} and the JobManagers' shared {@code storageDir}, in the order
     * the doc lists them.
     */
    static Map<String, String> highAvailability(String quorum, String storageDir) {
        Map<String, String> ha = new LinkedHashMap<>();
        ha.put("high-availability.type", "zookeeper");
        ha.put("high-availability.zookeeper.quorum", quorum);
        ha.put("high-availability.storageDir", storageDir);
        ha.put("high-availability.cluster-id", CLUSTER_ID);
        // A dead JobManager's leadership lapses when its session does; the default is 60 s.
        ha.put("high-availability.zookeeper.client.session-timeout", "4 s");
        return ha;
    }

    /** Publishes step {@code step}'s traffic (its own seed and channels, bad records among it). */
    private static JobHarness.Traffic publish(
            UnreadConfig config, long seed, int step, List<JobHarness.Traffic> published) {
        JobHarness.Traffic traffic =
                JobHarness.trafficWithChannels(
                        config, seed + step, 400, new BadRecords(seed + step, 1024).of(4));
        KAFKA.produce(traffic.records());
        published.add(traffic);
        return traffic;
    }

    private static void publishAndAwaitAgreement(
            UnreadConfig config,
            long seed,
            int step,
            List<JobHarness.Traffic> published,
            String prefix,
            MySqlTestDatabase db,
            String context)
            throws Exception {
        publish(config, seed, step, published);
        ClusterJob.awaitAgreement(published, prefix, db, context);
    }

    /** Failures in the job's exception history so far. */
    private static int failures(FlinkCluster cluster, String job) throws Exception {
        JsonNode history =
                cluster.rest()
                        .get("/jobs/" + job + "/exceptions")
                        .path("exceptionHistory")
                        .path("entries");
        return history.size();
    }

    private static void awaitFailuresAfter(FlinkCluster cluster, String job, int than)
            throws Exception {
        Poll.until(
                "job " + job + " notices the lost TaskManager",
                ClusterJob.TIMEOUT,
                () -> {
                    try {
                        return failures(cluster, job) > than ? true : null;
                    } catch (IOException e) {
                        return null;
                    }
                });
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
