package dev.unread;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.testing.BadRecords;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Observed;
import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
 * The shipped pipeline end to end: Apache Kafka's broker, Flink's MiniCluster with RocksDB and
 * checkpoints, the real Redis and MariaDB. A randomized stream with duplicates, late events and
 * resets, and bad records mixed in, must leave Redis, both MySQL tables and the dead-letter topic
 * exactly as the oracle says. Rerun a seed with {@code -Dunread.seed=N}.
 */
class UnreadJobITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    @TempDir Path checkpoints;

    @Test
    void randomizedStreamWithBadRecordsEndsInTheOraclesStateEverywhere(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        long seed = JobHarness.seed("UnreadJobITCase");
        String context = JobHarness.context(seed);
        String prefix = JobHarness.prefix("e2e", seed);

        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = KAFKA.freshTopics(JobHarness.settings(prefix, db.jdbcUrl()));
            JobHarness.Traffic traffic =
                    JobHarness.traffic(config, seed, 3000, new BadRecords(seed, 200 * 1024).of(44));
            List<List<ProducerRecord<byte[], byte[]>>> halves = traffic.parts(2);
            KAFKA.produce(halves.get(0));

            JobClient job =
                    JobHarness.start(
                            UnreadJob.forProduction(config),
                            config,
                            checkpoints,
                            "unread end to end");
            try {
                // The second half arrives after a checkpoint, so the run crosses one.
                Poll.until(
                        "a completed checkpoint",
                        Duration.ofMinutes(2),
                        () ->
                                JobHarness.completedCheckpoints(cluster, job.getJobID()) > 0
                                        ? true
                                        : null);
                KAFKA.produce(halves.get(1));

                Observed.awaitAgreement(
                        traffic.oracle(), prefix, db, JobHarness.CONVERGENCE, context);
                JobHarness.assertDeadLetters(KAFKA, config, traffic.bad(), true, context);
                assertThat(job.getJobStatus().get()).as(context).isEqualTo(JobStatus.RUNNING);
                assertThat(JobHarness.restarts(cluster, job.getJobID())).as(context).isZero();
            } finally {
                job.cancel().get();
                TestRedis.deleteKeys(prefix);
            }
        }
    }
}
