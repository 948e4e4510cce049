package dev.unread;

import dev.unread.testing.TestRedis;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.sinks.KafkaDeadLetters;
import dev.unread.testing.BadRecords;
import dev.unread.testing.ChatRecords;
import dev.unread.testing.EventStreams;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Observed;
import dev.unread.testing.Oracle;
import dev.unread.testing.Poll;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shipped pipeline end to end: Apache Kafka's broker, Flink's MiniCluster with RocksDB and
 * checkpoints, the real Redis and MariaDB. A randomized stream with duplicates, late events and
 * resets, and bad records mixed in, must leave Redis, both MySQL tables and the dead-letter topic
 * exactly as the oracle says. Rerun a seed with {@code -Dunread.seed=N}.
 */
class UnreadJobITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    void randomizedStreamWithBadRecordsEndsInTheOraclesStateEverywhere(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        long seed = Long.getLong("unread.seed", System.nanoTime() % 1_000_000);
        String context = "seed " + seed + " (rerun with -Dunread.seed=" + seed + ")";
        System.out.println("UnreadJobITCase " + context);
        String prefix = "it-e2e-" + seed + "-" + System.nanoTime() + ":";

        EventStreams streams = new EventStreams(seed).withIds(1_000_000 + seed * 1000, 1);
        List<ChatEvent> events = streams.events(3000);
        List<ChatEvent> order = streams.orders(events, 1, 0.2).get(0);
        List<BadRecords.Bad> bad = new BadRecords(seed, 200 * 1024).of(44);

        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            Map<String, String> settings = new HashMap<>();
            settings.put("redis-key-prefix", prefix);
            settings.put("jdbc-url", db.jdbcUrl());
            settings.put("flush-interval-ms", "50");
            settings.put("checkpoint-interval-ms", "300");
            settings.put("parallelism", "2");
            UnreadConfig config = KAFKA.freshTopics(settings);

            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(ChatRecords.of(config, order));
            for (int i = 0; i < bad.size(); i++) {
                BadRecords.Bad b = bad.get(i);
                records.add(i * records.size() / bad.size(), new ProducerRecord<>(
                        b.toMessages() ? config.messagesTopic : config.readsTopic, null, b.value()));
            }
            int half = records.size() / 2;
            KAFKA.produce(records.subList(0, half));

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.configure(UnreadJob.settings(config));
            UnreadJob.forProduction(config).build(env);
            JobClient job = env.executeAsync("unread end to end");
            try {
                awaitCompletedCheckpoint(cluster, job.getJobID());
                KAFKA.produce(records.subList(half, records.size()));

                Observed.awaitAgreement(Oracle.of(events), prefix, db, Duration.ofMinutes(3), context);
                assertDeadLettersAreExactlyTheBadRecords(config, bad, context);
                assertThat(job.getJobStatus().get()).as(context).isEqualTo(JobStatus.RUNNING);
                assertThat(restarts(cluster, job.getJobID())).as("restarts, " + context).isZero();
            } finally {
                job.cancel().get();
                TestRedis.deleteKeys(prefix);
            }
        }
    }

    private static void assertDeadLettersAreExactlyTheBadRecords(
            UnreadConfig config, List<BadRecords.Bad> bad, String context) {
        List<ConsumerRecord<byte[], byte[]>> letters =
                KAFKA.awaitRecords(config.deadLetterTopic, bad.size(), Duration.ofMinutes(2));
        Map<String, Integer> expected = new TreeMap<>();
        for (BadRecords.Bad b : bad) {
            expected.merge(fingerprint(b.toMessages() ? config.messagesTopic : config.readsTopic, b.value()), 1, Integer::sum);
        }
        Map<String, ConsumerRecord<byte[], byte[]>> sources = new HashMap<>();
        for (String topic : List.of(config.messagesTopic, config.readsTopic)) {
            for (ConsumerRecord<byte[], byte[]> r : KAFKA.records(topic)) {
                sources.put(topic + "-" + r.partition() + "@" + r.offset(), r);
            }
        }
        Map<String, Integer> actual = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> letter : letters) {
            String topic = KafkaBroker.header(letter, KafkaDeadLetters.TOPIC_HEADER);
            actual.merge(fingerprint(topic, letter.value()), 1, Integer::sum);
            assertThat(KafkaBroker.header(letter, KafkaDeadLetters.REASON_HEADER)).as(context).isNotBlank();
            ConsumerRecord<byte[], byte[]> source = sources.get(topic + "-"
                    + KafkaBroker.header(letter, KafkaDeadLetters.PARTITION_HEADER) + "@"
                    + KafkaBroker.header(letter, KafkaDeadLetters.OFFSET_HEADER));
            assertThat(source).as("the source record a dead letter names, " + context).isNotNull();
            assertThat(letter.value()).as(context).isEqualTo(source.value());
        }
        assertThat(actual).as("dead letters by source topic and bytes, " + context).isEqualTo(expected);
    }

    private static String fingerprint(String topic, byte[] value) {
        return topic + ":" + value.length + ":" + Base64.getEncoder().encodeToString(
                java.util.Arrays.copyOf(value, Math.min(value.length, 96)))
                + ":" + java.util.Arrays.hashCode(value);
    }

    private static void awaitCompletedCheckpoint(MiniCluster cluster, JobID job) throws Exception {
        Poll.until("a completed checkpoint", Duration.ofMinutes(2),
                () -> completedCheckpoints(cluster, job) > 0 ? true : null);
    }

    private static long completedCheckpoints(MiniCluster cluster, JobID job) {
        try {
            var stats = cluster.getExecutionGraph(job).get().getCheckpointStatsSnapshot();
            return stats == null ? 0 : stats.getCounts().getNumberOfCompletedCheckpoints();
        } catch (Exception e) {
            return 0;
        }
    }

    private static long restarts(MiniCluster cluster, JobID job) throws Exception {
        return cluster.getExecutionGraph(job).get().getStatusTimestamp(JobStatus.RESTARTING) > 0 ? 1 : 0;
    }
}
