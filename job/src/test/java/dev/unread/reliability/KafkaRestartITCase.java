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
 * The Kafka broker restarted twice while the job reads from it and writes dead letters to it: the
 * source's fetches and offset commits and the dead-letter producer's sends fail until it is back.
 * Nothing read may be lost or counted twice, and no dead letter may go missing.
 */
class KafkaRestartITCase {

    private static final int RESTARTS = 2;

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    @TempDir Path checkpoints;

    @Test
    void theBrokerRestartedTwiceMidStreamLosesNothing(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        long started = System.nanoTime();
        long seed = JobHarness.seed("KafkaRestartITCase");
        String context = JobHarness.context(seed);
        String prefix = JobHarness.prefix("kafka", seed);

        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = KAFKA.freshTopics(JobHarness.settings(prefix, db.jdbcUrl()));
            JobHarness.Traffic traffic =
                    JobHarness.trafficWithChannels(
                            config, seed, 3000, new BadRecords(seed, 70 * 1024).of(64));
            List<List<ProducerRecord<byte[], byte[]>>> parts = traffic.parts(RESTARTS + 1);

            KAFKA.produce(parts.get(0));
            JobClient job =
                    JobHarness.start(
                            UnreadJob.forProduction(config), config, checkpoints, "kafka restart");
            JobID id = job.getJobID();
            try {
                long checkpointsSoFar = JobHarness.awaitCheckpointsAfter(cluster, id, 0);
                for (int restart = 0; restart < RESTARTS; restart++) {
                    // Restart while the part just published is being read and its dead letters
                    // written.
                    KAFKA.produce(parts.get(restart + 1));
                    KAFKA.kafka().restart();
                    // The job is healthy again once it checkpoints against the new broker.
                    checkpointsSoFar =
                            JobHarness.awaitCheckpointsAfter(cluster, id, checkpointsSoFar);
                }

                Observed.awaitAgreement(
                        traffic.oracle(), prefix, db, JobHarness.CONVERGENCE, context);
                JobHarness.assertDeadLetters(KAFKA, config, traffic.bad(), false, context);
                assertThat(job.getJobStatus().get()).as(context).isEqualTo(JobStatus.RUNNING);
                int restarts = JobHarness.restarts(cluster, id);
                JobHarness.summary(
                        "Kafka broker restarted (same port and log dir)",
                        RESTARTS + " broker restarts",
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
