package dev.unread.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.testing.BadRecords;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Observed;
import dev.unread.testing.Poll;
import dev.unread.testing.TcpProxy;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * Redis, then MySQL, unreachable for over ten seconds while events keep coming: a {@link TcpProxy}
 * between the job and the shared server cuts every connection and refuses new ones, the server
 * itself stays up for everyone else. The job may stall or fail and restore as often as it likes;
 * once the server is back, every output must equal the oracle, so no update was dropped.
 */
class DependencyOutageITCase {

    private static final Duration OUTAGE = Duration.ofSeconds(10);

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    @TempDir Path checkpoints;

    @Test
    void redisUnreachableForTenSecondsMidStreamLosesNoUpdate(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", 6379)) {
            outage(
                    cluster,
                    "Redis",
                    proxy,
                    Map.of("redis-url", "redis://" + proxy.address() + "/0"));
        }
    }

    @Test
    void mySqlUnreachableForTenSecondsMidStreamLosesNoCursor(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", 3306)) {
            outage(cluster, "MySQL", proxy, Map.of());
        }
    }

    /**
     * Publishes a third of the stream, lets the job checkpoint, takes {@code proxy} down, publishes
     * the next third, keeps it down for {@link #OUTAGE}, brings it back, publishes the rest and
     * compares. {@code redis} overrides the job's settings; with none, MySQL goes through the
     * proxy.
     */
    private void outage(
            MiniCluster cluster, String server, TcpProxy proxy, Map<String, String> redis)
            throws Exception {
        long started = System.nanoTime();
        long seed = JobHarness.seed("DependencyOutageITCase " + server);
        String context = server + " outage, " + JobHarness.context(seed);
        String prefix = JobHarness.prefix("outage", seed);

        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            String jdbcUrl =
                    redis.isEmpty()
                            ? "jdbc:mysql://" + proxy.address() + "/" + db.name
                            : db.jdbcUrl();
            Map<String, String> settings = JobHarness.settings(prefix, jdbcUrl);
            settings.putAll(redis);
            UnreadConfig config = KAFKA.freshTopics(settings);
            JobHarness.Traffic traffic =
                    JobHarness.trafficWithChannels(
                            config, seed, 3000, new BadRecords(seed, 70 * 1024).of(32));
            List<List<ProducerRecord<byte[], byte[]>>> parts = traffic.parts(3);

            KAFKA.produce(parts.get(0));
            JobClient job =
                    JobHarness.start(
                            UnreadJob.forProduction(config), config, checkpoints, "outage");
            JobID id = job.getJobID();
            try {
                JobHarness.awaitCheckpointsAfter(cluster, id, 0);

                proxy.down();
                long down = System.nanoTime();
                KAFKA.produce(parts.get(1));
                Poll.until(
                        server + " down for " + OUTAGE + ", and the job noticed",
                        JobHarness.CONVERGENCE,
                        () ->
                                System.nanoTime() - down >= OUTAGE.toNanos()
                                                && proxy.refused() > 0
                                                && JobHarness.restarts(cluster, id) > 0
                                        ? true
                                        : null);
                int refusedWhileDown = proxy.refused();
                Duration downFor = Duration.ofNanos(System.nanoTime() - down);
                proxy.up();
                KAFKA.produce(parts.get(2));

                Observed.awaitAgreement(
                        traffic.oracle(), prefix, db, JobHarness.CONVERGENCE, context);
                JobHarness.assertDeadLetters(KAFKA, config, traffic.bad(), false, context);
                assertThat(job.getJobStatus().get()).as(context).isEqualTo(JobStatus.RUNNING);
                int restarts = JobHarness.restarts(cluster, id);
                JobHarness.summary(
                        server + " unreachable (TCP proxy cut)",
                        "1 outage of "
                                + downFor.toSeconds()
                                + " s, "
                                + refusedWhileDown
                                + " reconnects refused",
                        traffic,
                        restarts,
                        started,
                        seed);
            } finally {
                proxy.up();
                job.cancel().get();
                TestRedis.deleteKeys(prefix);
            }
        }
    }
}
