package dev.unread.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.ops.SavepointRepublish;
import dev.unread.testing.BadRecords;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Observed;
import dev.unread.testing.Oracle;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Redis loses every key of the job mid-stream (deleted under the test's prefix, as a FLUSHALL or a
 * Redis without persistence restarting would; the shared Redis itself is never flushed). The job
 * writes only changes, so counts that do not change again stay missing: the runbook's recovery is
 * to stop the job with a savepoint, {@code unread savepoint republish} it, and start the job from
 * it. After that, and more events, every output must equal the oracle.
 */
class RedisFlushITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    @TempDir Path checkpoints;
    @TempDir Path savepoints;

    @Test
    void countsLostWithRedisComeBackThroughSavepointRepublish(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        long started = System.nanoTime();
        long seed = JobHarness.seed("RedisFlushITCase");
        String context = JobHarness.context(seed);
        String prefix = JobHarness.prefix("flush", seed);

        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = KAFKA.freshTopics(JobHarness.settings(prefix, db.jdbcUrl()));
            JobHarness.Traffic traffic =
                    JobHarness.traffic(config, seed, 3000, new BadRecords(seed, 70 * 1024).of(32));
            List<List<ProducerRecord<byte[], byte[]>>> parts = traffic.parts(3);
            Oracle oracle = traffic.oracle();
            assertThat(oracle.redisSenderKeys(prefix))
                    .as("badges to lose, " + context)
                    .isNotEmpty();
            Configuration settings = JobHarness.flinkSettings(config, checkpoints);

            KAFKA.produce(parts.get(0));
            JobClient job = JobHarness.start(UnreadJob.forProduction(config), settings, "flush");
            JobID id = job.getJobID();
            String savepoint;
            try {
                JobHarness.awaitCheckpointsAfter(cluster, id, 0);
                KAFKA.produce(parts.get(1));
                // Everything so far is in Redis before it goes: each count written is then lost.
                JobHarness.awaitAllReadAndCheckpointed(KAFKA, config);

                TestRedis.deleteKeys(prefix);
                assertThat(Observed.read(prefix, null).senderKeys).as(context).isEmpty();
                KAFKA.produce(parts.get(2));

                savepoint =
                        job.stopWithSavepoint(
                                        false,
                                        savepoints.toUri().toString(),
                                        SavepointFormatType.CANONICAL)
                                .get();
            } catch (Exception | AssertionError e) {
                job.cancel().get();
                TestRedis.deleteKeys(prefix);
                throw e;
            }
            assertThat(Observed.read(prefix, db).agreesWith(oracle, prefix, true))
                    .as("Redis still misses counts before the republish, " + context)
                    .isFalse();

            long written = SavepointRepublish.republish(savepoint, config).counts();
            assertThat(written).as(context).isPositive();

            JobClient restored =
                    JobHarness.start(
                            UnreadJob.forProduction(config),
                            JobHarness.restoringFrom(settings, savepoint),
                            "flush, restored");
            try {
                Observed.awaitAgreement(oracle, prefix, db, JobHarness.CONVERGENCE, context);
                JobHarness.assertDeadLetters(KAFKA, config, traffic.bad(), false, context);
                assertThat(restored.getJobStatus().get()).as(context).isEqualTo(JobStatus.RUNNING);
                JobHarness.summary(
                        "Redis lost every key mid-stream; stop with savepoint, "
                                + "savepoint republish, restore",
                        "1 flush of "
                                + oracle.redisSenderKeys(prefix).size()
                                + " badges and "
                                + oracle.redisConversationHashes(prefix).size()
                                + " conversation hashes ("
                                + written
                                + " counts written)",
                        traffic,
                        JobHarness.restarts(cluster, restored.getJobID()),
                        started,
                        seed);
            } finally {
                restored.cancel().get();
                TestRedis.deleteKeys(prefix);
            }
        }
    }
}
