package dev.unread.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.UnreadJob;
import dev.unread.api.ApiConfig;
import dev.unread.api.StateQueryApi;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.RedisNames;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Oracle;
import dev.unread.testing.Poll;
import dev.unread.testing.RedisClusterServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
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
 * The job and the API on a real Redis Cluster (three primaries, three replicas from Debian's
 * redis-server): a primary is killed ({@code kill -9}) while the job writes, its replica takes
 * over, and every key on the cluster, and every answer of the API's batch read, must still equal
 * the oracle, so no update was lost on the way.
 */
class RedisClusterITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();
    @RegisterExtension static final RedisClusterServer REDIS = new RedisClusterServer();

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path checkpoints;

    @Test
    void jobAndApiAgreeWithTheOracleThroughTheLossOfAPrimary(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        long started = System.nanoTime();
        long seed = JobHarness.seed("RedisClusterITCase");
        String context = "Redis Cluster primary killed, " + JobHarness.context(seed);
        String prefix = JobHarness.prefix("cluster", seed);

        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            Map<String, String> settings = JobHarness.settings(prefix, db.jdbcUrl());
            settings.putAll(REDIS.settings());
            UnreadConfig config = KAFKA.freshTopics(settings);
            JobHarness.Traffic traffic = JobHarness.traffic(config, seed, 4000, List.of());
            Oracle oracle = traffic.oracle();
            List<List<ProducerRecord<byte[], byte[]>>> parts = traffic.parts(3);

            KAFKA.produce(parts.get(0));
            JobClient job =
                    JobHarness.start(
                            UnreadJob.forProduction(config), config, checkpoints, "redis-cluster");
            JobID id = job.getJobID();
            int killed = 0;
            try {
                JobHarness.awaitCheckpointsAfter(cluster, id, 0);
                KAFKA.produce(parts.get(1));
                killed = REDIS.killPrimary(0);
                REDIS.awaitFailover(killed);
                KAFKA.produce(parts.get(2));

                awaitAgreement(oracle, prefix, context);
                assertThat(job.getJobStatus().get()).as(context).isEqualTo(JobStatus.RUNNING);
                assertThat(REDIS.keysPerPrimary(prefix).values())
                        .as("keys on each primary")
                        .hasSize(3)
                        .allMatch(n -> n > 0);
                apiAgrees(config, oracle, context);
                JobHarness.summary(
                        "Redis Cluster primary killed (kill -9, replica took over)",
                        "1 primary of 3 at " + killed,
                        traffic,
                        JobHarness.restarts(cluster, id),
                        started,
                        seed);
            } finally {
                job.cancel().get();
                REDIS.deleteKeys(prefix);
                if (killed != 0) {
                    REDIS.restart(killed);
                }
            }
        }
    }

    private static void awaitAgreement(Oracle oracle, String prefix, String context)
            throws Exception {
        Map<String, String> badges = oracle.redisSenderKeys(prefix);
        Map<String, Map<String, String>> hashes = oracle.redisConversationHashes(prefix);
        String[] difference = {""};
        try {
            Poll.until(
                    context + ": every key on the cluster equals the oracle",
                    JobHarness.CONVERGENCE,
                    () -> {
                        Map<String, String> actualBadges =
                                REDIS.strings(prefix + RedisNames.SENDERS);
                        Map<String, Map<String, String>> actualHashes =
                                REDIS.hashes(prefix + RedisNames.CONVERSATIONS);
                        difference[0] =
                                "\nbadges equal: "
                                        + badges.equals(actualBadges)
                                        + " ("
                                        + badges.size()
                                        + " expected, "
                                        + actualBadges.size()
                                        + "), hashes equal: "
                                        + hashes.equals(actualHashes)
                                        + " ("
                                        + hashes.size()
                                        + " expected, "
                                        + actualHashes.size()
                                        + ")";
                        return badges.equals(actualBadges) && hashes.equals(actualHashes)
                                ? true
                                : null;
                    });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + difference[0], e);
        }
    }

    /** Every user the oracle knows, read through {@code GET /api/unread} 500 at a time. */
    private static void apiAgrees(UnreadConfig job, Oracle oracle, String context)
            throws Exception {
        ApiConfig config =
                ApiConfig.builder()
                        .port(0)
                        .redisUrl(job.redisUrl)
                        .redisClusterNodes(job.redisClusterNodes)
                        .redisKeyPrefix(job.redisKeyPrefix)
                        .jdbcUrl(job.jdbcUrl)
                        .kafkaBootstrap(job.kafkaBootstrap)
                        .readsTopic(job.readsTopic)
                        .build();
        HttpClient http = HttpClient.newHttpClient();
        Map<Long, Map<Long, Long>> conversations = oracle.conversationUnread();
        try (StateQueryApi api = StateQueryApi.start(config)) {
            List<Long> users = new ArrayList<>(oracle.users());
            for (int from = 0; from < users.size(); from += 500) {
                List<Long> batch = users.subList(from, Math.min(from + 500, users.size()));
                String ids = batch.stream().map(String::valueOf).collect(Collectors.joining(","));
                HttpResponse<String> response =
                        http.send(
                                HttpRequest.newBuilder(
                                                URI.create(
                                                        "http://127.0.0.1:"
                                                                + api.port()
                                                                + "/api/unread?userIds="
                                                                + ids))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode())
                        .as(context + ": " + response.body())
                        .isEqualTo(200);
                JsonNode answers = JSON.readTree(response.body()).get("users");
                for (int i = 0; i < batch.size(); i++) {
                    long user = batch.get(i);
                    JsonNode answer = answers.get(i);
                    assertThat(answer.get("userId").asLong()).isEqualTo(user);
                    assertThat(answer.get("unreadSenders").asLong())
                            .as("badge of " + user)
                            .isEqualTo(oracle.badge(user));
                    Map<Long, Long> counts = new TreeMap<>();
                    answer.get("conversations")
                            .fields()
                            .forEachRemaining(
                                    e ->
                                            counts.put(
                                                    Long.parseLong(e.getKey()),
                                                    e.getValue().asLong()));
                    Map<Long, Long> expected =
                            new TreeMap<>(conversations.getOrDefault(user, Map.of()));
                    expected.values().removeIf(n -> n == 0);
                    assertThat(counts)
                            .as(context + ": conversations of " + user)
                            .isEqualTo(expected);
                }
            }
        }
    }
}
