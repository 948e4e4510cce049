package dev.unread.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.events.ChatEventJson;
import dev.unread.events.EventParser;
import dev.unread.testing.BadRecords;
import dev.unread.testing.CapturedLog;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Observed;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
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
import redis.clients.jedis.Jedis;

/**
 * Over ten thousand records that break the input contract, every {@link BadRecords.Kind} of them,
 * mixed into valid traffic of which a third is written unusually but validly ({@link
 * BadRecords#unusualButValid}: fields of the other kind, deep nesting, text beyond ASCII): the job
 * must not fail once, each bad record must reach the dead-letter topic exactly once with its bytes,
 * key and a reason, and the valid records must count exactly as the oracle says. A string planted
 * at one user's conversation-count hash before the job writes must be replaced by that hash.
 */
class HostileInputITCase {

    private static final int BAD_RECORDS = 10_000;

    /** Most oversized records sit just past the limit, where an off-by-one would show. */
    private static final int JUST_OVER_THE_LIMIT = EventParser.MAX_RECORD_BYTES + 8;

    /** A few are a whole MiB: enough to show they pass, few enough to keep the test fast. */
    private static final int MEBIBYTE_RECORDS = 4;

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    @TempDir Path checkpoints;

    @Test
    void tenThousandBadRecordsAmongValidTrafficAreEachDeadLetteredOnceAndChangeNoCount(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        long started = System.nanoTime();
        long seed = JobHarness.seed("HostileInputITCase");
        String context = JobHarness.context(seed);
        String prefix = JobHarness.prefix("hostile", seed);

        List<BadRecords.Bad> bad =
                new ArrayList<>(new BadRecords(seed, JUST_OVER_THE_LIMIT).of(BAD_RECORDS));
        new BadRecords(seed + 1)
                .of(BadRecords.Kind.values().length * MEBIBYTE_RECORDS).stream()
                        .filter(b -> b.kind() == BadRecords.Kind.OVERSIZED)
                        .forEach(b -> bad.add(bad.size() / 2, b));
        Map<BadRecords.Kind, Integer> kinds = new EnumMap<>(BadRecords.Kind.class);
        bad.forEach(b -> kinds.merge(b.kind(), 1, Integer::sum));
        assertThat(kinds).as("every kind of bad record").hasSize(BadRecords.Kind.values().length);
        assertThat(bad).filteredOn(b -> b.value().length > 1000 * 1024).hasSize(MEBIBYTE_RECORDS);

        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = KAFKA.freshTopics(JobHarness.settings(prefix, db.jdbcUrl()));
            // Seed 412536 leaves no conversation unread (every such user's ALL_READ came last),
            // so no conversation hash to plant a foreign key at.
            JobHarness.Traffic traffic =
                    JobHarness.firstTrafficWith(
                            seed,
                            s -> {
                                Random unusual = new Random(s);
                                return JobHarness.traffic(
                                        config,
                                        s,
                                        3000,
                                        bad,
                                        e ->
                                                unusual.nextInt(3) == 0
                                                        ? BadRecords.unusualButValid(e, unusual)
                                                        : ChatEventJson.value(e));
                            },
                            t -> !t.oracle().conversationUnread().isEmpty());
            List<List<ProducerRecord<byte[], byte[]>>> parts = traffic.parts(2);
            // A key of another type where the job will write a user's conversation counts (a
            // leftover, or another application's): the job must replace it, not crash-loop.
            Map.Entry<Long, Map<Long, Long>> foreign =
                    traffic.oracle().conversationUnread().entrySet().iterator().next();
            String foreignKey = Count.CONVERSATION.key(prefix, foreign.getKey());
            try (Jedis jedis = TestRedis.connect(0)) {
                jedis.set(foreignKey, "another application's");
            }

            // Its warning shows the key was replaced, not deleted by someone else.
            try (CapturedLog log = CapturedLog.start()) {
                KAFKA.produce(parts.get(0));
                JobClient job =
                        JobHarness.start(
                                UnreadJob.forProduction(config), config, checkpoints, "hostile");
                JobID id = job.getJobID();
                try {
                    JobHarness.awaitCheckpointsAfter(cluster, id, 0);
                    KAFKA.produce(parts.get(1));

                    Observed.awaitAgreement(
                            traffic.oracle(), prefix, db, JobHarness.CONVERGENCE, context);
                    int letters = JobHarness.assertDeadLetters(KAFKA, config, bad, true, context);
                    assertThat(letters).as(context).isEqualTo(bad.size());
                    assertThat(job.getJobStatus().get()).as(context).isEqualTo(JobStatus.RUNNING);
                    assertThat(JobHarness.restarts(cluster, id))
                            .as("restarts, " + context)
                            .isZero();
                    try (Jedis jedis = TestRedis.connect(0)) {
                        Map<String, String> counts = new TreeMap<>();
                        foreign.getValue()
                                .forEach((c, n) -> counts.put(c.toString(), n.toString()));
                        assertThat(log.text())
                                .as(context)
                                .contains(
                                        "replaced 1 keys of the wrong type in the job's key space");
                        assertThat(jedis.type(foreignKey)).as(context).isEqualTo("hash");
                        assertThat(new TreeMap<>(jedis.hgetAll(foreignKey)))
                                .as(context)
                                .isEqualTo(counts);
                    }
                    JobHarness.summary(
                            "hostile input, by kind " + kinds,
                            bad.size() + " bad records",
                            traffic,
                            0,
                            started,
                            seed);
                } finally {
                    job.cancel().get();
                    TestRedis.deleteKeys(prefix);
                }
            }
        }
    }
}
