package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.UnreadJob;
import dev.unread.config.JobSettings;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Oracle;
import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The production pipeline ({@link UnreadJob#forProduction}: Kafka in, Redis, MySQL and Kafka out)
 * as the savepoint tests run it: started at a parallelism, from a savepoint or not, stopped with a
 * savepoint; and the checks that its outputs equal the oracle's.
 */
final class ProductionJob {

    static final Duration TIMEOUT = Duration.ofSeconds(120);

    private final JobClient client;

    private ProductionJob(JobClient client) {
        this.client = client;
    }

    /** Submits the job to the test's cluster; {@code savepoint} null starts it with empty state. */
    static ProductionJob start(UnreadConfig config, int parallelism, String savepoint)
            throws Exception {
        Configuration conf = JobSettings.of(config);
        conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        // The test environment sets its own default; the job's is what is tested.
        env.setParallelism(parallelism);
        UnreadJob.forProduction(config).build(env);
        return new ProductionJob(env.executeAsync("unread"));
    }

    /**
     * Stops the job with a savepoint under {@code dir}; returns the savepoint's path. Flink refuses
     * the savepoint while a task is still being deployed or restored
     * (NOT_ALL_REQUIRED_TASKS_RUNNING), which a restored job's counts, already in Redis from
     * before, do not wait for: asked again until {@link #TIMEOUT}.
     */
    String stopWithSavepoint(Path dir) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            try {
                return client.stopWithSavepoint(
                                false, dir.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get();
            } catch (ExecutionException e) {
                boolean starting =
                        ExceptionUtils.findThrowable(e, CheckpointException.class)
                                .map(
                                        c ->
                                                c.getCheckpointFailureReason()
                                                        == CheckpointFailureReason
                                                                .NOT_ALL_REQUIRED_TASKS_RUNNING)
                                .orElse(false);
                if (!starting || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    /** Takes a canonical savepoint under {@code dir}, the job running on; returns its path. */
    String savepoint(Path dir) throws Exception {
        return client.triggerSavepoint(dir.toUri().toString(), SavepointFormatType.CANONICAL).get();
    }

    /** The parallelism the cluster runs the counting operator at. */
    int counterParallelism(MiniCluster cluster) throws Exception {
        for (AccessExecutionJobVertex vertex :
                cluster.getExecutionGraph(client.getJobID()).get().getAllVertices().values()) {
            if (vertex.getName().contains("count unread")) {
                return vertex.getParallelism();
            }
        }
        throw new AssertionError("no counting operator in the job");
    }

    /**
     * Cancels the job and waits until it has ended, so that its slots are free and its clients
     * closed for whatever the test runs next on the cluster and the broker.
     */
    void cancel() throws Exception {
        if (!client.getJobStatus().get().isGloballyTerminalState()) {
            client.cancel().get();
        }
        Poll.until(
                "the job cancelled",
                TIMEOUT,
                () -> client.getJobStatus().get().isGloballyTerminalState() ? true : null);
    }

    /** The records producers publish for {@code events}: each on its topic, keyed by user. */
    static List<ProducerRecord<byte[], byte[]>> records(
            UnreadConfig config, List<ChatEvent> events) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (ChatEvent e : events) {
            String topic = ChatEventJson.isMessage(e) ? config.messagesTopic : config.readsTopic;
            records.add(new ProducerRecord<>(topic, ChatEventJson.key(e), ChatEventJson.value(e)));
        }
        return records;
    }

    /**
     * Waits until the {@code chat:readers:{C}} under {@code prefix} are exactly {@code readers}.
     */
    static void awaitReaders(String prefix, Map<String, Map<String, Double>> readers)
            throws Exception {
        try {
            Poll.until(
                    "readers equal the oracle",
                    TIMEOUT,
                    () -> TestRedis.sortedSets(prefix).equals(readers) ? true : null);
        } catch (AssertionError timedOut) {
            assertThat(TestRedis.sortedSets(prefix)).isEqualTo(readers);
            throw timedOut;
        }
    }

    /** Waits until Redis under the config's prefix holds exactly the oracle's counts. */
    static void awaitRedis(UnreadConfig config, Oracle expected) throws Exception {
        String prefix = config.redisKeyPrefix;
        Map<String, String> strings = expected.redisSenderKeys(prefix);
        Map<String, Map<String, String>> hashes =
                new TreeMap<>(expected.redisConversationHashes(prefix));
        hashes.putAll(expected.redisMentionHashes(prefix));
        hashes.putAll(expected.redisTotals(prefix));
        hashes.putAll(expected.redisThreadHashes(prefix, false));
        hashes.putAll(expected.redisThreadHashes(prefix, true));
        hashes.putAll(expected.redisChannelMentionHashes(prefix));
        hashes.putAll(expected.redisThreadChannelMentionHashes(prefix));
        Map<String, Set<String>> sets = expected.redisMarkedSets(prefix);
        try {
            Poll.until(
                    "Redis equals the oracle",
                    TIMEOUT,
                    () ->
                            TestRedis.strings(prefix).equals(strings)
                                            && TestRedis.hashes(prefix).equals(hashes)
                                            && TestRedis.sets(prefix).equals(sets)
                                    ? true
                                    : null);
        } catch (AssertionError timedOut) {
            // Show the difference rather than only that there is one.
            assertThat(TestRedis.strings(prefix)).isEqualTo(strings);
            assertThat(TestRedis.hashes(prefix)).isEqualTo(hashes);
            assertThat(TestRedis.sets(prefix)).isEqualTo(sets);
            throw timedOut;
        }
    }

    /**
     * Waits until MySQL holds the oracle's cursors: every {@code last_read_at} and {@code
     * last_read_seq}, and an {@code unread_count} no larger than any arrival order can give.
     */
    static void awaitMySql(MySqlTestDatabase db, Oracle expected) throws Exception {
        try {
            Poll.until(
                    "MySQL equals the oracle",
                    TIMEOUT,
                    () ->
                            userActivity(db).equals(expected.userActivityRows())
                                            && lastReadSeqs(db)
                                                    .equals(expected.conversationMemberRows())
                                    ? true
                                    : null);
        } catch (AssertionError timedOut) {
            assertThat(userActivity(db)).isEqualTo(expected.userActivityRows());
            assertThat(lastReadSeqs(db)).isEqualTo(expected.conversationMemberRows());
            throw timedOut;
        }
        for (List<String> row :
                db.rows("SELECT conversation_id, user_id, unread_count FROM conversation_member")) {
            Oracle.Member member =
                    new Oracle.Member(Long.parseLong(row.get(0)), Long.parseLong(row.get(1)));
            assertThat(Long.parseLong(row.get(2)))
                    .as("unread_count of " + member)
                    .isBetween(0L, expected.unreadCountUpperBound(member));
        }
    }

    /** user_id → last_read_at as epoch ms (DATETIME(3) in UTC, no time zone involved). */
    private static Map<Long, Long> userActivity(MySqlTestDatabase db) throws Exception {
        Map<Long, Long> rows = new TreeMap<>();
        for (List<String> row :
                db.rows(
                        "SELECT user_id, TIMESTAMPDIFF(MICROSECOND,"
                                + " '1970-01-01 00:00:00', last_read_at) DIV 1000 FROM user_activity")) {
            rows.put(Long.parseLong(row.get(0)), Long.parseLong(row.get(1)));
        }
        return rows;
    }

    private static Map<Oracle.Member, Long> lastReadSeqs(MySqlTestDatabase db) throws Exception {
        Map<Oracle.Member, Long> rows = new TreeMap<>();
        for (List<String> row :
                db.rows(
                        "SELECT conversation_id, user_id, last_read_seq FROM conversation_member")) {
            rows.put(
                    new Oracle.Member(Long.parseLong(row.get(0)), Long.parseLong(row.get(1))),
                    Long.parseLong(Objects.requireNonNull(row.get(2))));
        }
        return rows;
    }
}
