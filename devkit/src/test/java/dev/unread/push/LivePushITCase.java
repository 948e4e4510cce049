package dev.unread.push;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.unread.UnreadJob;
import dev.unread.api.ApiConfig;
import dev.unread.api.StateQueryApi;
import dev.unread.cli.JobApi;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.EventJson;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.TestRedis;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Live push end to end, as a client sees it: the job running on Kafka and the API streaming to a
 * Server-Sent Events client. A message published to Kafka reaches the stream as UNREAD_CHANGED; an
 * inbox opened through the API comes back through Kafka and the job as a 0; and a stop with
 * savepoint and a restore of the job never make the client's versions go backwards; and a read by
 * another participant of one of the user's conversations reaches the stream as a READ_RECEIPT.
 */
class LivePushITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    private static final long USER = 10086;
    private static final long CONVERSATION = 90001;
    private static final long T0 = System.currentTimeMillis();

    @TempDir Path checkpoints;
    @TempDir Path savepoints;

    @Test
    void changesThroughKafkaReachTheStreamAndARestoreNeverTakesItBack(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        long seed = JobHarness.seed("LivePushITCase");
        String prefix = JobHarness.prefix("push", seed);
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = KAFKA.freshTopics(JobHarness.settings(prefix, db.jdbcUrl()));
            Configuration settings = JobHarness.flinkSettings(config, checkpoints);
            ApiConfig apiConfig = JobApi.config(config, Map.of()).port(0).build();
            JobClient job = JobHarness.start(UnreadJob.forProduction(config), settings, "push");
            try (StateQueryApi api = StateQueryApi.start(apiConfig);
                    Client client = new Client(api.port(), prefix)) {
                JsonNode snapshot = client.snapshot();
                assertThat(snapshot.get("unreadSenders").asLong()).isZero();
                long version = snapshot.get("version").asLong();

                message(config, 1, 1);
                JsonNode first = client.awaitSenders(1, version);
                version = first.get("version").asLong();

                // A count can reach Redis while a subtask that had no record is still being
                // deployed, and a savepoint then is refused (CI saw it under load).
                JobHarness.awaitAllTasksRunning(cluster, job.getJobID());
                String savepoint =
                        job.stopWithSavepoint(
                                        false,
                                        savepoints.toUri().toString(),
                                        SavepointFormatType.CANONICAL)
                                .get(2, TimeUnit.MINUTES);
                job =
                        JobHarness.start(
                                UnreadJob.forProduction(config),
                                JobHarness.restoringFrom(settings, savepoint),
                                "push, restored");
                message(config, 2, 2);
                // A version the restored job gave no more than the client holds would be dropped
                // by the API, and this change never seen.
                JsonNode afterRestore = client.awaitSenders(2, version);

                HttpResponse<String> opened =
                        HttpClient.newHttpClient()
                                .send(
                                        HttpRequest.newBuilder(
                                                        URI.create(
                                                                base(api.port())
                                                                        + "/api/users/"
                                                                        + USER
                                                                        + "/inbox/opened"))
                                                .POST(HttpRequest.BodyPublishers.noBody())
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString());
                assertThat(opened.statusCode()).isEqualTo(202);
                client.awaitSenders(0, afterRestore.get("version").asLong());

                // A read by someone else in a conversation the user takes part in reaches the
                // user's stream as a receipt. Whom it concerns the job learns from the message,
                // on a path of its own, so the reader reads on until the first receipt comes.
                KAFKA.produce(
                        config.messagesTopic,
                        EventJson.key(USER),
                        EventJson.message(3, USER, T0 + 3000, CONVERSATION, 1));
                JsonNode receipt = null;
                for (long seq = 1; receipt == null; seq++) {
                    assertThat(seq).as("a receipt within 30 reads").isLessThanOrEqualTo(30);
                    KAFKA.produce(
                            config.readsTopic,
                            EventJson.key(3),
                            EventJson.conversationRead(3, CONVERSATION, seq, T0 + 4000));
                    receipt = client.receipt(Duration.ofSeconds(6));
                    if (receipt != null) {
                        assertThat(receipt.toString())
                                .isEqualTo(
                                        "{\"type\":\"READ_RECEIPT\",\"conversationId\":"
                                                + CONVERSATION
                                                + ",\"userId\":3,\"readSeq\":"
                                                + seq
                                                + "}");
                    }
                }
            } finally {
                job.cancel().get();
                // Cancelling is acknowledged before the tasks have stopped; one still writing its
                // checkpoint's files made the temp directory's deletion fail (CI, 2026-12-07).
                cluster.requestJobResult(job.getJobID()).get(2, TimeUnit.MINUTES);
                TestRedis.deleteKeys(prefix);
            }
        }
    }

    /** A message from a new sender to {@link #USER}, sent {@code second}s after T0. */
    private static void message(UnreadConfig config, long sender, long second) {
        KAFKA.produce(
                config.messagesTopic,
                EventJson.key(USER),
                EventJson.message(sender, USER, T0 + second * 1000));
    }

    private static String base(int port) {
        return "http://127.0.0.1:" + port;
    }

    /**
     * A stream client as an app would write one: when the API ends the stream with RECONNECT (its
     * Redis subscription was lost, or this client fell behind), it opens a new stream and starts
     * again from its snapshot.
     */
    private static final class Client implements AutoCloseable {
        private final int port;
        private final String prefix;
        private LiveStream stream;

        Client(int port, String prefix) throws Exception {
            this.port = port;
            this.prefix = prefix;
            stream = open();
        }

        private LiveStream open() throws Exception {
            LiveStream opened = LiveStream.open(port, USER);
            assertThat(opened).as("a stream opens").isNotNull();
            return opened;
        }

        JsonNode snapshot() throws Exception {
            return stream.snapshot();
        }

        /**
         * The first UNREAD_CHANGED (or, after a reconnect, SNAPSHOT) whose badge is {@code
         * senders}; it and every change before it carry a version above the one before, starting
         * above {@code after} (a rewrite after the restore may repeat a count, never with an older
         * version), and a new snapshot never goes back either.
         */
        JsonNode awaitSenders(long senders, long after) throws Exception {
            long deadline = System.nanoTime() + JobHarness.CONVERGENCE.toNanos();
            long lastVersion = after;
            while (System.nanoTime() < deadline) {
                JsonNode message = stream.take(Duration.ofSeconds(1));
                if (message == null) {
                    continue;
                }
                String type = message.get("type").asText();
                if (type.equals("RECONNECT")) {
                    stream.close();
                    stream = open();
                    JsonNode snapshot = stream.snapshot();
                    long version = snapshot.get("version").asLong();
                    assertThat(version)
                            .as("a new snapshot never goes back")
                            .isGreaterThanOrEqualTo(lastVersion);
                    lastVersion = version;
                    if (snapshot.get("unreadSenders").asLong() == senders) {
                        return snapshot;
                    }
                    continue;
                }
                if (!type.equals("UNREAD_CHANGED")) {
                    continue;
                }
                long version = message.get("version").asLong();
                assertThat(version).as("versions only rise").isGreaterThan(lastVersion);
                lastVersion = version;
                if (message.has("unreadSenders")
                        && message.get("unreadSenders").asLong() == senders) {
                    return message;
                }
            }
            throw new AssertionError(
                    "no UNREAD_CHANGED with unreadSenders "
                            + senders
                            + " within "
                            + Duration.ofNanos(JobHarness.CONVERGENCE.toNanos())
                            + "; the stream sent "
                            + stream.seen()
                            + "; Redis holds "
                            + redisContents());
        }

        private Map<String, Object> redisContents() {
            try (Jedis jedis = TestRedis.connect(0)) {
                return TestRedis.contents(jedis, prefix);
            }
        }

        /**
         * The next READ_RECEIPT within {@code wait}, or null; changes before it are passed over.
         */
        JsonNode receipt(Duration wait) throws Exception {
            return stream.poll(LiveStream.type("READ_RECEIPT"), wait);
        }

        @Override
        public void close() {
            stream.close();
        }
    }
}
