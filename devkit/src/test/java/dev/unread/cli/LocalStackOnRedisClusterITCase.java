package dev.unread.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.UnreadJob;
import dev.unread.api.ApiConfig;
import dev.unread.api.StateQueryApi;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Poll;
import dev.unread.testing.RedisClusterServer;
import dev.unread.testing.TestRedis;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The local stack on a real Redis Cluster, configured as a user would, by {@code
 * UNREAD_REDIS_CLUSTER_NODES}: its API must be told what its job is told, or it reads one node as
 * if it were all of Redis and answers 500 to every read (issue 27). And an API given one node of
 * the cluster as its Redis says which setting is missing, instead of failing each request.
 */
class LocalStackOnRedisClusterITCase {

    @RegisterExtension static final RedisClusterServer CLUSTER = new RedisClusterServer();

    private static final Duration STARTUP = Duration.ofMinutes(3);
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static final long ALICE = 900_300_001L;
    private static final long BOB = 900_300_002L;
    private static final long CONVERSATION = 900_380_001L;

    private static final String PREFIX = TestRedis.uniquePrefix();
    private static MySqlTestDatabase mysql;
    private static LocalStack stack;

    @BeforeAll
    static void startStack() throws Exception {
        mysql = MySqlTestDatabase.create();
        List<String> args =
                List.of(
                        "--kafka-port", "0",
                        "--flink-ui-port", "0",
                        "--api-port", "0",
                        "--generate", "0",
                        "--redis-key-prefix", PREFIX,
                        "--jdbc-url", mysql.jdbcUrl(),
                        "--jdbc-user", mysql.name,
                        "--flush-interval-ms", "50",
                        "--checkpoint-interval-ms", "1000");
        Map<String, String> env =
                Map.of(
                        UnreadConfig.JDBC_PASSWORD_ENV,
                        mysql.password,
                        ApiConfig.REDIS_CLUSTER_NODES_ENV,
                        CLUSTER.seeds());
        stack =
                LocalStack.start(
                        LocalStack.Options.parse(args, env), env, UnreadJob::forProduction);
        assertThat(stack.awaitRunning(STARTUP, new CountDownLatch(1))).isTrue();
    }

    @AfterAll
    static void stopStack() throws Exception {
        if (stack != null) {
            stack.close();
        }
        if (mysql != null) {
            mysql.close();
        }
        CLUSTER.deleteKeys(PREFIX);
    }

    @Test
    void theApiReadsCountsReadersAndTheStreamFromTheClusterTheJobWritesTo() throws Exception {
        long now = System.currentTimeMillis();
        publish(stack.config().messagesTopic, ChatEvent.message(BOB, ALICE, CONVERSATION, 1, now));
        publish(stack.config().messagesTopic, ChatEvent.message(BOB, ALICE, CONVERSATION, 2, now));
        publish(stack.config().messagesTopic, ChatEvent.message(ALICE, BOB, CONVERSATION, 3, now));
        publish(stack.config().readsTopic, ChatEvent.conversationRead(ALICE, CONVERSATION, 1, now));

        String unread = stack.apiUri() + "/api/users/" + ALICE + "/unread";
        // One flush writes the badge and the conversation's count to keys on different primaries,
        // which answer in any order: a read between them sees one and not yet the other (CI saw
        // the conversation's 1 of the first message beside a badge of 0), so both are awaited.
        Poll.until(
                "Alice's counts through the API: one sender, one unread in the conversation",
                DEADLINE,
                () -> {
                    JsonNode body = getOk(unread);
                    return body.path("conversations").path(String.valueOf(CONVERSATION)).asLong()
                                            == 1
                                    && body.path("unreadSenders").asLong() == 1
                            ? body
                            : null;
                });

        String readers = stack.apiUri() + "/api/conversations/" + CONVERSATION + "/readers?seq=1";
        JsonNode read =
                Poll.until(
                        "Alice among the conversation's readers through the API",
                        DEADLINE,
                        () -> {
                            JsonNode body = getOk(readers);
                            return body.path("readCount").asLong() >= 1 ? body : null;
                        });
        assertThat(read.path("readers").toString()).isEqualTo("[" + ALICE + "]");

        assertThat(
                        firstStreamEvent(ALICE)
                                .path("conversations")
                                .path(String.valueOf(CONVERSATION))
                                .asLong())
                .as("the stream's snapshot")
                .isEqualTo(1);
    }

    @Test
    void anApiGivenOneClusterNodeAsItsRedisSaysWhichSettingIsMissing() throws Exception {
        int node = CLUSTER.primaries().get(0);
        String words =
                "127.0.0.1:" + node + " is a Redis Cluster node: set UNREAD_REDIS_CLUSTER_NODES";
        ApiConfig single =
                JobApi.config(stack.config(), Map.of())
                        .port(0)
                        .redisUrl("redis://127.0.0.1:" + node + "/0")
                        .redisClusterNodes("")
                        .build();
        try (StateQueryApi api = StateQueryApi.start(single)) {
            String base = "http://127.0.0.1:" + api.port();
            HttpResponse<String> health = get(base + "/health");
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(JSON.readTree(health.body()).path("checks").path("redis").asText())
                    .isEqualTo("DOWN: " + words);

            // Users on every primary: some of their keys are not on the node named.
            for (long user = 1; user <= 20; user++) {
                HttpResponse<String> read = get(base + "/api/users/" + user + "/unread");
                if (read.statusCode() != 200) {
                    assertThat(read.statusCode()).as(read.body()).isEqualTo(503);
                    assertThat(JSON.readTree(read.body()).path("error").asText()).isEqualTo(words);
                    return;
                }
            }
            throw new AssertionError("twenty users' keys all on the one node " + node);
        }
    }

    /** The first event of the user's stream: the snapshot. */
    private static JsonNode firstStreamEvent(long user) throws Exception {
        HttpRequest request =
                HttpRequest.newBuilder(
                                URI.create(stack.apiUri() + "/api/users/" + user + "/events"))
                        .header("Accept", "text/event-stream")
                        .timeout(Duration.ofSeconds(30))
                        .build();
        HttpResponse<InputStream> response =
                HTTP.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        try (InputStream body = response.body()) {
            StringBuilder line = new StringBuilder();
            for (int b = body.read(); b >= 0; b = body.read()) {
                if (b != '\n') {
                    line.append((char) b);
                } else if (line.toString().startsWith("data:")) {
                    return JSON.readTree(
                            line.substring("data:".length()).getBytes(StandardCharsets.UTF_8));
                } else {
                    line.setLength(0);
                }
            }
        }
        throw new AssertionError("the stream ended before its first event");
    }

    private static void publish(String topic, ChatEvent event) throws Exception {
        Map<String, Object> props =
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(
                            new ProducerRecord<>(
                                    topic, ChatEventJson.key(event), ChatEventJson.value(event)))
                    .get();
        }
    }

    /** The body of a GET that must answer 200. */
    private static JsonNode getOk(String url) throws Exception {
        HttpResponse<String> response = get(url);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
