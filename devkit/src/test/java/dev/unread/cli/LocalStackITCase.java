package dev.unread.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.JobOutputs;
import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.contract.EventJson;
import dev.unread.contract.RedisNames;
import dev.unread.events.ChannelWrite;
import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.events.ConversationCursor;
import dev.unread.events.ConversationEvent;
import dev.unread.events.ConversationEventJson;
import dev.unread.events.InboxCursor;
import dev.unread.events.ReadReceipt;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.UnreadCount;
import dev.unread.sinks.KafkaDeadLetters;
import dev.unread.sources.KafkaRawRecords;
import dev.unread.testing.ListeningSockets;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Poll;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import redis.clients.jedis.Jedis;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * The local stack in this JVM on free ports, running the production job against the shared Redis
 * (under a key prefix of its own) and a MySQL database of its own, with the API and the traffic
 * generator. The tests share one stack: starting one takes a while. The generator's users are
 * 10001..20000; the tests that publish their own events use ids far from those. The badge test
 * stops the generator, so it goes last, and the threads test, which waits for the generator's
 * traffic, first.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocalStackITCase {

    private static final Duration STARTUP = Duration.ofMinutes(3);
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final List<String> FREE_PORTS =
            List.of("--kafka-port", "0", "--flink-ui-port", "0", "--api-port", "0");

    private static final String PREFIX = "unread-test:" + UUID.randomUUID() + ":";

    /** The stack that {@code run} starts writes here, apart from the shared stack's keys. */
    private static final String RUN_PREFIX = PREFIX + "run:";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A progress line of {@code unread local}; group 1 is the second of the minute. */
    private static final Pattern PROGRESS =
            Pattern.compile(
                    "\\[\\d+:(\\d\\d)\\] events in [1-9]\\d* \\(\\d+ malformed\\)"
                            + " \\| Redis \\d+ commands, \\d+ coalesced"
                            + " \\| dead letters \\d+"
                            + " \\| API: user 10001 badge \\d+, \\d+ unread in \\d+ conversations");

    private static MySqlTestDatabase mysql;
    private static LocalStack stack;

    /**
     * Whether this JVM gets SIGINT: not when it was started with SIGINT ignored, where the JVM
     * takes a handler without a word and keeps the signal ignored (it answers SIG_IGN).
     */
    private static final boolean INT_USABLE = handles("INT");

    private static boolean handles(String name) {
        try {
            Signal signal = new Signal(name);
            SignalHandler before = Signal.handle(signal, SignalHandler.SIG_DFL);
            Signal.handle(signal, before);
            return before != SignalHandler.SIG_IGN;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    @BeforeAll
    static void startStack() throws Exception {
        mysql = MySqlTestDatabase.create();
        stack = LocalStack.start(options(), env(), UnreadJob::forProduction);
        assertThat(stack.awaitRunning(STARTUP, new CountDownLatch(1))).isTrue();
        stack.startTraffic();
    }

    @AfterAll
    static void stopStack() throws Exception {
        if (stack != null) {
            stack.close();
        }
        if (mysql != null) {
            mysql.close();
        }
        try (Jedis jedis = new Jedis("127.0.0.1", 6379)) {
            for (String key : jedis.keys(PREFIX + "*")) {
                jedis.del(key);
            }
        }
    }

    /**
     * Free ports, a Redis prefix under this class's, its MySQL database, short intervals, and the
     * generator at 200 events a second.
     */
    private static List<String> args(String prefix) {
        List<String> args = new ArrayList<>(FREE_PORTS);
        args.addAll(
                List.of(
                        "--generate",
                        "200",
                        "--seed",
                        "5",
                        "--redis-key-prefix",
                        prefix,
                        "--jdbc-url",
                        mysql.jdbcUrl(),
                        "--jdbc-user",
                        mysql.name,
                        "--flush-interval-ms",
                        "50",
                        "--checkpoint-interval-ms",
                        "1000"));
        return args;
    }

    private static LocalStack.Options options() {
        return LocalStack.Options.parse(args(PREFIX), env());
    }

    /** The password comes only from the environment, as in production. */
    private static Map<String, String> env() {
        return Map.of(UnreadConfig.JDBC_PASSWORD_ENV, mysql.password);
    }

    @Test
    void theReadyLineNamesTheKafkaBootstrapAddressTheApiAndTheFlinkUi() throws Exception {
        assertThat(stack.jobStatus()).isEqualTo(JobStatus.RUNNING);
        assertThat(stack.bootstrapServers()).matches("127\\.0\\.0\\.1:\\d+");
        assertThat(stack.readyLine())
                .contains("Kafka bootstrap " + stack.bootstrapServers())
                .contains("API http://127.0.0.1:" + stack.apiUri().getPort())
                .contains(
                        "(inbox page http://127.0.0.1:"
                                + stack.apiUri().getPort()
                                + "/?user=10001)")
                .contains("Flink UI http://127.0.0.1:" + stack.flinkUi().getPort())
                .contains("generating 200 events/s for users 10001..20000");
    }

    @Test
    void theReadmeShowsTheReadyAndProgressLinesAsTheyArePrinted() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String quickStart =
                readme.substring(readme.indexOf("## Quick start"), readme.indexOf("## Contract"));
        // This stack runs on free ports; the README shows the default ones.
        String ready =
                stack.readyLine()
                        .replace(stack.bootstrapServers(), "127.0.0.1:9092")
                        .replace(stack.apiUri().toString(), "http://127.0.0.1:8080")
                        .replace(stack.flinkUi().toString(), "http://127.0.0.1:8081");

        assertThat(quickStart).contains("\n" + ready + "\n");
        assertThat(quickStart.lines().filter(line -> line.startsWith("[0:")))
                .isNotEmpty()
                .allSatisfy(line -> assertThat(line).matches(PROGRESS));
        for (String flag :
                List.of("--duration", "--generate", "--seed", "--kafka-port", "--api-port")) {
            assertThat(quickStart).contains(flag);
            assertThat(Unread.usage(LocalCommand.NAME)).contains(flag);
        }
    }

    @Test
    void healthIsUpWithTheFlinkCheckWhileTheJobRuns() throws Exception {
        HttpResponse<String> health = http("GET", stack.apiUri() + "/health");

        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(JSON.readTree(health.body()).path("checks").path("flink").asText())
                .isEqualTo("UP");
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void generatedTrafficShowsAsBadgesThroughTheApiAndAnInboxOpenThroughTheApiResetsOne()
            throws Exception {
        long user = stack.mostActiveReceiver();
        String unread = stack.apiUri() + "/api/users/" + user + "/unread";
        JsonNode badge =
                Poll.until(
                        "a badge and conversation counts of user " + user + " through the API",
                        DEADLINE,
                        () -> {
                            JsonNode body = JSON.readTree(get(unread));
                            return body.path("unreadSenders").asLong() > 0
                                            && body.path("conversations").size() > 0
                                    ? body
                                    : null;
                        });
        assertThat(badge.path("userId").asLong()).isEqualTo(user);

        // No more messages, so that the open leaves nothing behind it.
        stack.stopGenerator();
        HttpResponse<String> opened =
                http("POST", stack.apiUri() + "/api/users/" + user + "/inbox/opened");
        assertThat(opened.statusCode()).as(opened.body()).isEqualTo(202);

        Poll.until(
                "the badge of user " + user + " back to 0 through the job",
                DEADLINE,
                () -> JSON.readTree(get(unread)).path("unreadSenders").asLong() == 0 ? true : null);
        try (Jedis jedis = new Jedis("127.0.0.1", 6379)) {
            assertThat(jedis.exists(Count.SENDERS.key(PREFIX, user))).isFalse();
        }
    }

    /** Issue 25: a newcomer sees thread counts, so the generated traffic has followed threads. */
    @Test
    @Order(1)
    void generatedTrafficShowsFollowedThreadsThroughTheApi() throws Exception {
        String pattern = PREFIX + RedisNames.THREADS + "*";
        String key =
                Poll.until(
                        "a user's followed threads in Redis",
                        DEADLINE,
                        () -> {
                            try (Jedis jedis = new Jedis("127.0.0.1", 6379)) {
                                return jedis.keys(pattern).stream().findFirst().orElse(null);
                            }
                        });
        long user = Long.parseLong(key.substring((PREFIX + RedisNames.THREADS).length()));
        JsonNode body = JSON.readTree(get(stack.apiUri() + "/api/users/" + user + "/unread"));
        // The API may read after the job wrote a thread back to 0; the key held one a moment ago.
        assertThat(body.path("threads").isObject()).as(body.toString()).isTrue();
        body.path("threads")
                .fieldNames()
                .forEachRemaining(
                        field -> assertThat(field).as(body.toString()).matches("[0-9]+:[0-9]+"));
    }

    @Test
    void theJobRunsOnRocksDbAndCompletesCheckpoints() throws Exception {
        assertThat(stack.executionGraph().getStateBackendName())
                .hasValueSatisfying(name -> assertThat(name).containsIgnoringCase("rocksdb"));

        String checkpoints = stack.flinkUi() + "/jobs/" + stack.jobId() + "/checkpoints";
        Pattern completed = Pattern.compile("\"completed\":([1-9]\\d*)");
        Poll.until(
                "a completed checkpoint",
                DEADLINE,
                () -> {
                    Matcher counts = completed.matcher(get(checkpoints));
                    return counts.find() ? counts.group(1) : null;
                });
    }

    @Test
    void theFlinkUiShowsTheRunningJob() throws Exception {
        assertThat(get(stack.flinkUi() + "/jobs/overview"))
                .contains(stack.jobId().toString())
                .contains("\"state\":\"RUNNING\"");
    }

    @Test
    void nothingListensBeyondLoopback() {
        assumeThat(ListeningSockets.available()).as("Linux /proc").isTrue();
        List<InetSocketAddress> listening = ListeningSockets.ofThisProcess();

        assertThat(listening)
                .extracting(InetSocketAddress::getPort)
                .contains(
                        stack.flinkUi().getPort(),
                        port(stack.bootstrapServers()),
                        stack.apiUri().getPort());
        assertThat(listening)
                .allSatisfy(
                        a ->
                                assertThat(a.getAddress().isLoopbackAddress())
                                        .as(a.toString())
                                        .isTrue());
    }

    @Test
    void aMessagePublishedToTheLocalBrokerBecomesTheReceiversBadgeInRedis() throws Exception {
        long receiver = 900_010_086L;
        ChatEvent message = ChatEvent.message(900_010_087L, receiver, System.currentTimeMillis());
        publish(
                stack.config().messagesTopic,
                ChatEventJson.key(message),
                ChatEventJson.value(message));

        String key = Count.SENDERS.key(PREFIX, receiver);
        try (Jedis jedis = new Jedis("127.0.0.1", 6379)) {
            assertThat(Poll.until(key + " in Redis", DEADLINE, () -> jedis.get(key)))
                    .isEqualTo("1");
        }
    }

    /**
     * A channel through Kafka, the job and the API: counted once per message, sending reads, a
     * thread followed by its root's sender and by a member named in it, the badge from mentions by
     * id alone.
     */
    @Test
    void aChannelIsCountedOnceAndTheApiAnswersWithTheRecipe() throws Exception {
        long channel = 900_090_001L;
        long alice = 900_030_001L;
        long bob = 900_030_002L;
        long carol = 900_030_003L;
        long t = System.currentTimeMillis();
        List<ConversationEvent> records =
                List.of(
                        ConversationEvent.channel(channel),
                        ConversationEvent.joined(channel, alice, 1),
                        ConversationEvent.joined(channel, bob, 2),
                        ConversationEvent.joined(channel, carol, 3),
                        ConversationEvent.message(channel, 4, alice, t, bob),
                        allMentioned(ConversationEvent.message(channel, 5, alice, t + 1)),
                        ConversationEvent.reply(channel, 6, 4, carol, t + 2, bob));
        for (ConversationEvent record : records) {
            publish(
                    stack.config().conversationsTopic,
                    EventJson.key(channel).getBytes(UTF_8),
                    ConversationEventJson.text(record, t).getBytes(UTF_8));
        }

        String thread = channel + ":4";
        String c = Long.toString(channel);
        // The badge and the channel's counts come through two sinks, each flushing on its own.
        JsonNode bobs =
                answerOnce(
                        bob,
                        body ->
                                body.path("threads").path(thread).asLong() == 1
                                        && body.path("unreadSenders").asLong() == 2);
        assertThat(bobs.path("conversations").path(c).asLong()).as(bobs.toString()).isEqualTo(2);
        assertThat(bobs.path("mentions").path(c).asLong()).isEqualTo(2);
        assertThat(bobs.path("threadMentions").path(thread).asLong()).isEqualTo(1);

        JsonNode alices =
                answerOnce(alice, body -> body.path("threads").path(thread).asLong() == 1);
        assertThat(alices.path("conversations").has(c)).as(alices.toString()).isFalse();
        assertThat(alices.path("unreadSenders").asLong()).isZero();

        JsonNode carols =
                answerOnce(carol, body -> body.path("conversations").path(c).asLong() == 2);
        assertThat(carols.path("channelMentions").path(c).asLong())
                .as(carols.toString())
                .isEqualTo(1);
        assertThat(carols.path("threads").has(thread)).isFalse();
    }

    /** The user's answer from the API once it satisfies {@code done}. */
    private static JsonNode answerOnce(long user, Predicate<JsonNode> done) throws Exception {
        return Poll.until(
                "user " + user + "'s channel counts through the API",
                DEADLINE,
                () -> {
                    JsonNode body = JSON.readTree(get(unreadOf(user)));
                    return done.test(body) ? body : null;
                });
    }

    private static ConversationEvent allMentioned(ConversationEvent message) {
        message.mentionsAll = true;
        return message;
    }

    private static String unreadOf(long user) {
        return stack.apiUri() + "/api/users/" + user + "/unread";
    }

    @Test
    void aReadPublishedToTheLocalBrokerBecomesTheCursorInMySql() throws Exception {
        ChatEvent read =
                ChatEvent.conversationRead(
                        900_020_001L, 900_080_001L, 1038, System.currentTimeMillis());
        publish(stack.config().readsTopic, ChatEventJson.key(read), ChatEventJson.value(read));

        String query =
                "SELECT last_read_seq FROM conversation_member"
                        + " WHERE conversation_id = 900080001 AND user_id = 900020001";
        assertThat(
                        Poll.until(
                                "the cursor in MySQL",
                                DEADLINE,
                                () -> mysql.rows(query).stream().findFirst().orElse(null)))
                .containsExactly("1038");
    }

    @Test
    void aJobThatFailsWhileStartingIsReportedWithItsCauseAndHealthSaysSo() throws Exception {
        List<String> args = new ArrayList<>(FREE_PORTS);
        args.addAll(List.of("--generate", "0"));
        LocalStack.Options options = LocalStack.Options.parse(args, Map.of());

        try (LocalStack failing =
                LocalStack.start(options, Map.of(), LocalStackITCase::withFailingCounts)) {
            assertThatThrownBy(() -> failing.awaitRunning(STARTUP, new CountDownLatch(1)))
                    .hasMessage("the job failed while starting")
                    .hasStackTraceContaining("Redis is unreachable");
            assertThat(failing.readyLine()).contains("no generator");

            // The job restarts and fails again; between two tries it may be RUNNING for a moment.
            HttpResponse<String> health =
                    Poll.until(
                            "/health DOWN naming the job",
                            DEADLINE,
                            () -> {
                                HttpResponse<String> r = http("GET", failing.apiUri() + "/health");
                                return r.statusCode() == 503 ? r : null;
                            });
            JsonNode body = JSON.readTree(health.body());
            assertThat(body.path("checks").path("flink").asText()).startsWith("DOWN: job is ");
            assertThat(body.path("error").asText()).isEqualTo("unavailable: flink");
        }
    }

    @Test
    void printsProgressEveryFiveSecondsAndCtrlCStopsTheStackWithZero() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Unread.Session session =
                new Unread.Session(
                        env(), new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        ExecutorService runner = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> exit =
                    runner.submit(
                            () ->
                                    LocalStack.run(
                                            LocalStack.Options.parse(args(RUN_PREFIX), env()),
                                            session));
            String ready =
                    Poll.until(
                            "the ready line",
                            STARTUP,
                            () -> {
                                if (exit.isDone()) {
                                    throw new AssertionError(
                                            "local ended before it was ready: " + exit.get());
                                }
                                return out.toString(StandardCharsets.UTF_8)
                                        .lines()
                                        .filter(line -> line.contains("Kafka bootstrap"))
                                        .findFirst()
                                        .orElse(null);
                            });
            Matcher bootstrap =
                    Pattern.compile("Kafka bootstrap 127\\.0\\.0\\.1:(\\d+) ").matcher(ready);
            assertThat(bootstrap.find()).as(ready).isTrue();
            // Every five seconds from the ready line; a line may say the API did not answer in
            // time on a loaded machine, so the first one with a badge is checked.

            String progress =
                    Poll.until(
                            "a progress line with a badge",
                            DEADLINE,
                            () ->
                                    out.toString(StandardCharsets.UTF_8)
                                            .lines()
                                            .filter(l -> PROGRESS.matcher(l).matches())
                                            .findFirst()
                                            .orElse(null));
            Matcher seconds = PROGRESS.matcher(progress);
            assertThat(seconds.matches()).isTrue();
            assertThat(Integer.parseInt(seconds.group(1)) % 5).as(progress).isZero();

            // Ctrl-C, unless this JVM was started with SIGINT ignored (a background job of a
            // shell without job control): there no Ctrl-C can arrive, and SIGTERM, which takes
            // the same path, stands in for it.
            Signal.raise(new Signal(INT_USABLE ? "INT" : "TERM"));

            assertThat(exitWithin(exit, DEADLINE)).isEqualTo(Unread.OK);
            // The broker is gone: its port can be bound again.
            try (ServerSocket socket =
                    new ServerSocket(
                            Integer.parseInt(bootstrap.group(1)),
                            1,
                            InetAddress.getByName("127.0.0.1"))) {
                assertThat(socket.isBound()).isTrue();
            }
        } finally {
            runner.shutdownNow();
        }
    }

    /**
     * The stack's exit status; past {@code deadline}, a failure that shows what every thread of
     * this JVM is doing, so a stop that hangs names where.
     */
    private static int exitWithin(Future<Integer> exit, Duration deadline) throws Exception {
        try {
            return exit.get(deadline.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            StringBuilder dump = new StringBuilder();
            Thread.getAllStackTraces()
                    .forEach(
                            (thread, stack) -> {
                                dump.append('"')
                                        .append(thread.getName())
                                        .append("\" ")
                                        .append(thread.getState())
                                        .append('\n');
                                for (StackTraceElement frame : stack) {
                                    dump.append("    at ").append(frame).append('\n');
                                }
                            });
            throw new AssertionError(
                    "Ctrl-C did not stop the stack within " + deadline + "; threads:\n" + dump, e);
        }
    }

    /** The job with a counts sink that fails as soon as its task starts. */
    private static UnreadJob withFailingCounts(UnreadConfig config) {
        return job(config, new FailingSink(), new DiscardingSink<>());
    }

    private static UnreadJob job(
            UnreadConfig config, Sink<UnreadCount> counts, Sink<ReadReceipt> receipts) {
        return new UnreadJob(
                KafkaRawRecords.source(config, config.messagesTopic),
                KafkaRawRecords.source(config, config.readsTopic),
                KafkaRawRecords.source(config, config.conversationsTopic),
                new JobOutputs(
                        counts,
                        receipts,
                        new DiscardingSink<InboxCursor>(),
                        new DiscardingSink<ConversationCursor>(),
                        new DiscardingSink<ReaderUpdate>(),
                        KafkaDeadLetters.sink(config),
                        new DiscardingSink<ChannelWrite>()));
    }

    private static final class FailingSink implements Sink<UnreadCount> {
        @Override
        public SinkWriter<UnreadCount> createWriter(WriterInitContext context) {
            throw new IllegalStateException("Redis is unreachable");
        }
    }

    private static void publish(String topic, byte[] key, byte[] value) throws Exception {
        Map<String, Object> props =
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, key, value)).get();
        }
    }

    private static String get(String url) throws Exception {
        HttpResponse<String> response = http("GET", url);
        assertThat(response.statusCode()).as(url).isEqualTo(200);
        return response.body();
    }

    private static HttpResponse<String> http(String method, String url) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(url))
                                .method(method, HttpRequest.BodyPublishers.noBody())
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private static int port(String hostAndPort) {
        return Integer.parseInt(hostAndPort.substring(hostAndPort.lastIndexOf(':') + 1));
    }
}
