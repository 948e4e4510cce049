package dev.unread.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.testing.BadRecords;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Observed;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TaskManager dies mid-stream, three times: every task and its local RocksDB go with it, a new
 * TaskManager takes its place, and the job restores from the last checkpoint and replays what came
 * after it. Redis, MySQL and the dead-letter topic must still end exactly as the oracle says.
 */
class TaskManagerLossITCase {

    private static final int KILLS = 3;

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    @TempDir Path checkpoints;

    @Test
    void aTaskManagerKilledThreeTimesMidStreamLosesNothing(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        long started = System.nanoTime();
        long seed = JobHarness.seed("TaskManagerLossITCase");
        String context = JobHarness.context(seed);
        String prefix = JobHarness.prefix("tm", seed);

        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = KAFKA.freshTopics(JobHarness.settings(prefix, db.jdbcUrl()));
            JobHarness.Traffic traffic =
                    JobHarness.trafficWithChannels(
                            config, seed, 3000, new BadRecords(seed, 70 * 1024).of(32));
            List<List<ProducerRecord<byte[], byte[]>>> parts = traffic.parts(KILLS + 1);

            KAFKA.produce(parts.get(0));
            JobClient job =
                    JobHarness.start(
                            UnreadJob.forProduction(config), config, checkpoints, "tm loss");
            JobID id = job.getJobID();
            try {
                long checkpointsSoFar = JobHarness.awaitCheckpointsAfter(cluster, id, 0);
                int restarts = 0;
                // The first TaskManager is number 0; each replacement gets the next number.
                for (int kill = 0; kill < KILLS; kill++) {
                    // Kill while the new part is being worked on, not after it was.
                    KAFKA.produce(parts.get(kill + 1));
                    cluster.terminateTaskManager(kill).get();
                    cluster.startTaskManager();
                    restarts = JobHarness.awaitRestartsAfter(cluster, id, restarts);
                    JobHarness.awaitAllTasksRunning(cluster, id);
                    // A checkpoint after the restore, so the next kill restores from a newer one.
                    checkpointsSoFar =
                            JobHarness.awaitCheckpointsAfter(cluster, id, checkpointsSoFar);
                }

                Observed.awaitAgreement(
                        traffic.oracle(), prefix, db, JobHarness.CONVERGENCE, context);
                JobHarness.assertDeadLetters(KAFKA, config, traffic.bad(), false, context);
                assertThat(job.getJobStatus().get()).as(context).isEqualTo(JobStatus.RUNNING);
                restarts = JobHarness.restarts(cluster, id);
                assertThat(restarts).as("restarts, " + context).isGreaterThanOrEqualTo(KILLS);
                JobHarness.summary(
                        "TaskManager killed mid-stream (terminateTaskManager + new one)",
                        KILLS + " kills",
                        traffic,
                        restarts,
                        started,
                        seed);
            } finally {
                job.cancel().get();
                TestRedis.deleteKeys(prefix);
            }
        }
    }
}
