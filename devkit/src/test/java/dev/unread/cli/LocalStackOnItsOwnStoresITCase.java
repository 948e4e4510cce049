package dev.unread.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.local.RedisProcess;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Poll;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The local stack where nothing answers at the configured Redis and MySQL (free ports of 127.0.0.1,
 * as on a machine with neither installed): it starts a Redis and a MariaDB of its own on those
 * ports, says so in its ready line, the job counts into them and the API reads them as with the
 * machine's servers, and they are gone once the stack is.
 */
class LocalStackOnItsOwnStoresITCase {

    private static final Duration STARTUP = Duration.ofMinutes(3);
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final long ALICE = 900_400_001L;
    private static final long BOB = 900_400_002L;
    private static final long CAROL = 900_400_003L;
    private static final long CONVERSATION = 900_480_001L;

    @Test
    void startsItsOwnRedisAndMariaDbWhereNothingAnswersCountsIntoThemAndRemovesThem()
            throws Exception {
        int[] ports = RedisProcess.freePorts(2);
        int redisPort = ports[0];
        int mysqlPort = ports[1];
        String password = "local-" + System.nanoTime();
        Map<String, String> env = Map.of(UnreadConfig.JDBC_PASSWORD_ENV, password);
        List<String> args =
                List.of(
                        "--kafka-port", "0",
                        "--flink-ui-port", "0",
                        "--api-port", "0",
                        "--generate", "0",
                        "--redis-url", "redis://127.0.0.1:" + redisPort + "/0",
                        "--jdbc-url", "jdbc:mysql://127.0.0.1:" + mysqlPort + "/unread_local",
                        "--jdbc-user", "unread",
                        "--flush-interval-ms", "50",
                        "--checkpoint-interval-ms", "1000");
        assertThat(listening(redisPort) || listening(mysqlPort)).isFalse();

        try (LocalStack stack =
                LocalStack.start(
                        LocalStack.Options.parse(args, env), env, UnreadJob::forProduction)) {
            assertThat(stack.awaitRunning(STARTUP, new CountDownLatch(1))).isTrue();
            assertThat(stack.readyLine())
                    .contains(
                            ", Redis 7.0.15 at 127.0.0.1:"
                                    + redisPort
                                    + " and MariaDB 10.11.5 at 127.0.0.1:"
                                    + mysqlPort
                                    + " of its own (nothing answered there; deleted on exit), ");
            JsonNode health = JSON.readTree(get(stack.apiUri() + "/health"));
            assertThat(health.path("checks").path("redis").asText()).isEqualTo("UP");
            assertThat(health.path("checks").path("mysql").asText()).isEqualTo("UP");

            // Two senders in one conversation, then Bob reads its first message.
            long now = System.currentTimeMillis();
            publish(
                    stack,
                    stack.config().messagesTopic,
                    ChatEvent.message(ALICE, BOB, CONVERSATION, 1, now),
                    ChatEvent.message(CAROL, BOB, CONVERSATION, 2, now + 1));
            String unread = stack.apiUri() + "/api/users/" + BOB + "/unread";
            Poll.until(
                    "Bob's badge 2 and conversation count 2 through the API",
                    DEADLINE,
                    () -> {
                        JsonNode body = JSON.readTree(get(unread));
                        return body.path("unreadSenders").asLong() == 2
                                        && body.path("conversations")
                                                        .path(String.valueOf(CONVERSATION))
                                                        .asLong()
                                                == 2
                                ? true
                                : null;
                    });
            try (Jedis jedis = new Jedis("127.0.0.1", redisPort)) {
                assertThat(jedis.get(Count.SENDERS.key("", BOB))).isEqualTo("2");
            }

            publish(
                    stack,
                    stack.config().readsTopic,
                    ChatEvent.conversationRead(BOB, CONVERSATION, 1, now + 2));
            try (Connection c =
                    DriverManager.getConnection(
                            "jdbc:mysql://127.0.0.1:" + mysqlPort + "/unread_local",
                            "unread",
                            password)) {
                String cursor =
                        // No row yet reads as -1.
                        "SELECT COALESCE(MAX(last_read_seq), -1) FROM conversation_member"
                                + " WHERE conversation_id = "
                                + CONVERSATION
                                + " AND user_id = "
                                + BOB;
                assertThat(
                                Poll.until(
                                        "Bob's cursor in the stack's own MariaDB",
                                        DEADLINE,
                                        () -> {
                                            long seq = MySqlTestDatabase.queryLong(c, cursor);
                                            return seq == 1 ? seq : null;
                                        }))
                        .isEqualTo(1);
            }
            Poll.until(
                    "Bob's conversation count 1 after the read",
                    DEADLINE,
                    () ->
                            JSON.readTree(get(unread))
                                                    .path("conversations")
                                                    .path(String.valueOf(CONVERSATION))
                                                    .asLong()
                                            == 1
                                    ? true
                                    : null);
        }
        assertThat(listening(redisPort)).as("the stack's Redis stopped").isFalse();
        assertThat(listening(mysqlPort)).as("the stack's MariaDB stopped").isFalse();
    }

    private static void publish(LocalStack stack, String topic, ChatEvent... events)
            throws Exception {
        Map<String, Object> props =
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (ChatEvent event : events) {
                producer.send(
                                new ProducerRecord<>(
                                        topic,
                                        ChatEventJson.key(event),
                                        ChatEventJson.value(event)))
                        .get();
            }
        }
    }

    private static String get(String url) throws Exception {
        HttpResponse<String> response =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(URI.create(url))
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(url + ": " + response.body()).isEqualTo(200);
        return response.body();
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return socket.isConnected();
        } catch (IOException e) {
            return false;
        }
    }
}
