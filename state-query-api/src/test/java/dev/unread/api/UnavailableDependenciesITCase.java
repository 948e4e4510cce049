package dev.unread.api;

import static dev.unread.api.Http.assertError;
import static dev.unread.api.Http.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.unread.contract.RedisNames;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.RedisClient;

/**
 * Redis, MySQL and Kafka all pointed at a closed port: the API still starts, every request that
 * needs one of them gets 503 within the timeout, and /health names all three.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnavailableDependenciesITCase {

    private static final int TIMEOUT_MS = 1000;

    private StateQueryApi api;
    private Http http;

    @BeforeAll
    void startApi() throws IOException {
        int closed = closedPort();
        api =
                StateQueryApi.start(
                        ApiConfig.builder()
                                .port(0)
                                .timeoutMs(TIMEOUT_MS)
                                .redisUrl("redis://127.0.0.1:" + closed + "/0")
                                .jdbcUrl("jdbc:mysql://127.0.0.1:" + closed + "/test")
                                .kafkaBootstrap("127.0.0.1:" + closed)
                                .build());
        http = new Http(api);
    }

    @AfterAll
    void stopApi() {
        if (api != null) {
            api.close();
        }
    }

    @Test
    void countsGet503WhenRedisIsDown() {
        assertThat(assertError(http.get("/api/users/1/unread"), 503))
                .isEqualTo("redis unavailable");
        assertThat(assertError(http.get("/api/unread?userIds=1,2"), 503))
                .isEqualTo("redis unavailable");
    }

    @Test
    void cursorsGet503WhenMySqlIsDown() {
        assertThat(assertError(http.get("/api/users/1/cursors"), 503))
                .isEqualTo("mysql unavailable");
    }

    @Test
    void readEventsGet503WithinTheTimeoutWhenTheirStampOrKafkaIsDown() {
        long start = System.nanoTime();

        // The action stamp comes from Redis before Kafka is asked (docs/contract.md).
        assertThat(assertError(http.post("/api/users/1/inbox/opened", ""), 503))
                .isEqualTo("redis unavailable");
        String read = "{\"userId\":1,\"readSeq\":2}";
        assertThat(assertError(http.post("/api/conversations/1/read", read), 503))
                .isEqualTo("redis unavailable");

        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(millis).isLessThan(2 * (TIMEOUT_MS + 1500));
    }

    @Test
    void readEventsGet503WhenOnlyKafkaIsDown() throws IOException {
        String prefix = "test:" + UUID.randomUUID() + ":";
        try (StateQueryApi kafkaDown =
                StateQueryApi.start(
                        ApiConfig.builder()
                                .port(0)
                                .timeoutMs(TIMEOUT_MS)
                                .redisUrl(TestStores.REDIS_URL)
                                .redisKeyPrefix(prefix)
                                .jdbcUrl("jdbc:mysql://127.0.0.1:" + closedPort() + "/test")
                                .kafkaBootstrap("127.0.0.1:" + closedPort())
                                .build())) {
            assertThat(assertError(new Http(kafkaDown).post("/api/users/1/inbox/opened", ""), 503))
                    .isEqualTo("kafka unavailable");
        } finally {
            try (RedisClient redis = RedisClient.create(TestStores.REDIS_URL)) {
                redis.del(RedisNames.actionStampKey(prefix, 1));
            }
        }
    }

    @Test
    void validationStillComesFirst() {
        assertError(http.get("/api/users/0/unread"), 400);
        assertError(http.post("/api/conversations/1/read", "{}"), 400);
    }

    @Test
    void healthIs503NamingEveryDependencyDown() {
        HttpResponse<String> response = http.get("/health");

        assertThat(response.statusCode()).isEqualTo(503);
        JsonNode body = json(response);
        assertThat(body.get("status").asText()).isEqualTo("DOWN");
        assertThat(body.get("error").asText()).isEqualTo("unavailable: redis, mysql, kafka");
        assertThat(body.get("checks").get("redis").asText()).startsWith("DOWN");
        assertThat(body.get("checks").get("mysql").asText()).startsWith("DOWN");
        assertThat(body.get("checks").get("kafka").asText()).startsWith("DOWN");
        assertThat(response.body()).doesNotContain("Exception").doesNotContain("127.0.0.1");
    }

    @Test
    void dependencyErrorsAreCountedPerDependency() {
        http.get("/api/users/5/unread");
        http.get("/api/users/5/cursors");

        String metrics = http.get("/metrics").body();

        assertThat(value(metrics, "unread_api_dependency_errors_total{dependency=\"redis\"}"))
                .isGreaterThanOrEqualTo(1);
        assertThat(value(metrics, "unread_api_dependency_errors_total{dependency=\"mysql\"}"))
                .isGreaterThanOrEqualTo(1);
    }

    private static double value(String metrics, String series) {
        return metrics.lines()
                .filter(l -> l.startsWith(series + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError(series + " missing from\n" + metrics));
    }

    /** A port nothing listens on: bound, then released. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
