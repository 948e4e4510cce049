package dev.unread.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.UnreadJob;
import dev.unread.api.ApiConfig;
import dev.unread.api.StateQueryApi;
import dev.unread.cli.JobApi;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.KafkaClientProperties;
import dev.unread.testing.BadRecords;
import dev.unread.testing.CapturedLog;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Observed;
import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job and the API against a Kafka that refuses plaintext, unauthenticated clients, as managed
 * services do: a SASL_SSL listener with SCRAM-SHA-512 and a certificate made by keytool, reached
 * through {@code --kafka-properties} files that take the passwords from the environment with
 * Kafka's EnvVarConfigProvider. The passwords are in this JVM's environment (failsafe sets {@value
 * #PASSWORD_ENV} and {@value #API_PASSWORD_ENV}, see devkit/pom.xml), as they would be on every
 * Flink and API machine. Redis and MySQL are reached as users with passwords as well, so that no
 * secret of the three shows in the job's and the API's log.
 *
 * <p>The broker enforces ACLs there, and the job, the API and the chat servers are each their own
 * principal with only the rights of {@link KafkaAcls}: whoever can write an input topic acts as any
 * user, so the job must work with no more, and the rest must be refused.
 */
class SecuredKafkaITCase {

    static final String PASSWORD_ENV = "UNREAD_IT_KAFKA_PASSWORD";
    static final String API_PASSWORD_ENV = "UNREAD_IT_KAFKA_API_PASSWORD";
    static final String PASSWORD = requiredEnv(PASSWORD_ENV);
    static final String API_PASSWORD = requiredEnv(API_PASSWORD_ENV);
    static final String WRONG_PASSWORD = "wrong-" + PASSWORD;

    /** Clients of the test itself: made up here, never in a file. */
    static final String CHAT_SERVER_PASSWORD = UUID.randomUUID().toString();

    /** A principal the broker knows and no ACL names, as any other service's would be. */
    static final String OUTSIDER = "other-service";

    static final String OUTSIDER_PASSWORD = UUID.randomUUID().toString();

    @RegisterExtension
    static final KafkaBroker KAFKA =
            KafkaBroker.withSaslSsl(
                    Map.of(
                            KafkaAcls.JOB,
                            PASSWORD,
                            KafkaAcls.API,
                            API_PASSWORD,
                            KafkaAcls.CHAT_SERVER,
                            CHAT_SERVER_PASSWORD,
                            OUTSIDER,
                            OUTSIDER_PASSWORD));

    private static final Duration ACL_TIMEOUT = Duration.ofSeconds(30);

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(30);

    @TempDir Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

    @Test
    void theJobAndTheApiCountAndPublishOverSaslSslWithoutLoggingASecret(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        long started = System.nanoTime();
        long seed = JobHarness.seed("SecuredKafkaITCase");
        String context = JobHarness.context(seed);
        String prefix = JobHarness.prefix("sasl", seed);
        Path properties =
                KAFKA.writeClientProperties(
                        dir.resolve("client.properties"),
                        KafkaAcls.JOB,
                        "${env:" + PASSWORD_ENV + "}");
        Path apiProperties =
                KAFKA.writeClientProperties(
                        dir.resolve("api-client.properties"),
                        KafkaAcls.API,
                        "${env:" + API_PASSWORD_ENV + "}");

        try (CapturedLog log = CapturedLog.start();
                MySqlTestDatabase db = MySqlTestDatabase.create();
                TestRedis.AclUser redisUser = new TestRedis.AclUser(prefix)) {
            // Every secret the job and the API hold: Redis and MySQL as users with passwords too.
            Map<String, String> settings = JobHarness.settings(prefix, db.jdbcUrl());
            settings.put("redis-url", redisUser.url());
            settings.put("jdbc-user", db.name);
            UnreadConfig config =
                    KAFKA.freshTopicsOverSaslSsl(
                            settings,
                            properties,
                            Map.of(UnreadConfig.JDBC_PASSWORD_ENV, db.password));
            grant(config);
            JobHarness.Traffic traffic =
                    JobHarness.traffic(config, seed, 400, new BadRecords(seed, 4096).of(6));
            // As chat servers publish: as their own principal, with only its grants.
            KAFKA.produceAs(KafkaAcls.CHAT_SERVER, CHAT_SERVER_PASSWORD, traffic.records());

            JobClient job =
                    JobHarness.start(
                            UnreadJob.forProduction(config),
                            config,
                            dir.resolve("checkpoints"),
                            "unread over SASL_SSL");
            int restarts;
            try (StateQueryApi api = StateQueryApi.start(apiConfig(config, apiProperties))) {
                // Counted from the sources, dead letters written by the producer: all SASL_SSL,
                // each with only the job's grants.
                Observed.awaitAgreement(
                        traffic.oracle(), prefix, db, JobHarness.CONVERGENCE, context);
                JobHarness.assertDeadLetters(KAFKA, config, traffic.bad(), false, context);
                // A right the job lacked would show as a restart (the restart strategy hides
                // the failure) or as offsets never committed (Flink only logs a failed commit).
                restarts = JobHarness.restarts(cluster, job.getJobID());
                assertThat(restarts).as("restarts of the job").isZero();
                awaitCommittedOffsets(config);

                HttpResponse<String> health = get(api, "/health");
                assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
                long userId = 424_242;
                HttpResponse<String> opened = post(api, "/api/users/" + userId + "/inbox/opened");
                assertThat(opened.statusCode()).as(opened.body()).isEqualTo(202);
                List<ConsumerRecord<byte[], byte[]>> reads = KAFKA.records(config.readsTopic);
                assertThat(reads)
                        .as("the API's read event in " + config.readsTopic)
                        .anySatisfy(
                                r ->
                                        assertThat(KafkaBroker.utf8(r.key()))
                                                .isEqualTo(String.valueOf(userId)));
            } finally {
                job.cancel().get();
                TestRedis.deleteKeys(prefix);
            }

            assertNoSecretIn(log.text());
            assertThat(log.text())
                    .as("the log")
                    .doesNotContain(redisUser.password)
                    .doesNotContain(db.password);
            // The capture saw the Kafka clients' own configuration dumps and the API's start with
            // the Redis URL, masked.
            assertThat(log.text())
                    .contains(
                            "sasl.jaas.config = [hidden]",
                            "kafkaProperties={",
                            redisUser.name + ":***@");
            JobHarness.summary(
                    "Kafka ACLs on, each client only its grants",
                    "job, API and chat servers as 3 SCRAM principals",
                    traffic,
                    restarts,
                    started,
                    seed);
        }
    }

    @Test
    void eachPrincipalIsRefusedTheTopicsItsGrantsDoNotName() throws Exception {
        UnreadConfig config = KAFKA.freshTopics(Map.of());
        grant(config);

        try (KafkaProducer<byte[], byte[]> api = KAFKA.producerAs(KafkaAcls.API, API_PASSWORD);
                KafkaProducer<byte[], byte[]> job = KAFKA.producerAs(KafkaAcls.JOB, PASSWORD);
                KafkaProducer<byte[], byte[]> chatServer =
                        KAFKA.producerAs(KafkaAcls.CHAT_SERVER, CHAT_SERVER_PASSWORD);
                KafkaProducer<byte[], byte[]> outsider =
                        KAFKA.producerAs(OUTSIDER, OUTSIDER_PASSWORD)) {
            // The API writes read events, so the refusals below are its grants, not its login.
            send(api, config.readsTopic, "allowed");
            // Else it could forge any user's messages and memberships.
            assertRefused(api, config.messagesTopic);
            assertRefused(api, config.conversationsTopic);
            // Knowing the broker's password is not enough: the topic must name the principal.
            assertRefused(outsider, config.readsTopic);
            // Reading a topic lets the job see it, not write it.
            assertRefused(job, config.readsTopic);
            // A dead letter is the job's word on a record; nobody else may write one.
            assertRefused(chatServer, config.deadLetterTopic);
        }

        // What the clients were told holds on the broker: not one refused record was kept.
        for (String topic :
                List.of(
                        config.messagesTopic,
                        config.conversationsTopic,
                        config.readsTopic,
                        config.deadLetterTopic)) {
            assertThat(KAFKA.records(topic))
                    .as(topic)
                    .noneSatisfy(r -> assertThat(KafkaBroker.utf8(r.key())).isEqualTo(REFUSED));
        }
    }

    @Test
    void aWrongPasswordFailsTheJobAndTheApiWithAnAuthenticationError() throws Exception {
        Path properties =
                KAFKA.writeClientProperties(
                        dir.resolve("client.properties"), KafkaAcls.JOB, WRONG_PASSWORD);

        try (CapturedLog log = CapturedLog.start();
                MySqlTestDatabase db = MySqlTestDatabase.create()) {
            String prefix = JobHarness.prefix("sasl-wrong", System.nanoTime());
            UnreadConfig config =
                    KAFKA.freshTopicsOverSaslSsl(
                            JobHarness.settings(prefix, db.jdbcUrl()), properties, Map.of());
            Configuration settings = JobHarness.flinkSettings(config, dir.resolve("checkpoints"));
            // On a cluster the job restarts with the same error each time; here it ends.
            settings.set(RestartStrategyOptions.RESTART_STRATEGY, "none");

            JobClient job =
                    JobHarness.start(
                            UnreadJob.forProduction(config),
                            settings,
                            "unread with a wrong password");
            assertThatThrownBy(() -> job.getJobExecutionResult().get(2, TimeUnit.MINUTES))
                    .satisfies(
                            e ->
                                    assertThat(ExceptionUtils.stringifyException(e))
                                            .contains(
                                                    "SaslAuthenticationException",
                                                    "invalid credentials"));

            try (StateQueryApi api = StateQueryApi.start(apiConfig(config, properties))) {
                HttpResponse<String> health = get(api, "/health");
                assertThat(health.statusCode()).isEqualTo(503);
                assertThat(health.body()).contains("DOWN: authentication failed");
                HttpResponse<String> opened = post(api, "/api/users/7/inbox/opened");
                assertThat(opened.statusCode()).as(opened.body()).isEqualTo(503);
            }

            assertNoSecretIn(log.text());
            assertThat(log.text()).contains("SaslAuthenticationException");
        }
    }

    private static final String REFUSED = "refused";

    /**
     * Creates the ACLs of {@link KafkaAcls} for {@code config}'s topics and group, and returns once
     * the broker's authorizer holds them: the controller acknowledges them before the broker has
     * applied them, and a client refused in between would fail the job for no fault of its grants.
     */
    private static void grant(UnreadConfig config) throws Exception {
        List<AclBinding> bindings = KafkaAcls.bindings(config);
        try (Admin admin = KAFKA.kafka().admin()) {
            admin.createAcls(bindings).all().get();
            long deadline = System.nanoTime() + ACL_TIMEOUT.toNanos();
            while (!admin.describeAcls(AclBindingFilter.ANY).values().get().containsAll(bindings)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the broker has not applied the ACLs " + bindings);
                }
                Thread.sleep(50);
            }
        }
    }

    /** Waits until the job's group has committed an offset in each of the three input topics. */
    private static void awaitCommittedOffsets(UnreadConfig config) throws Exception {
        Set<String> inputs =
                Set.of(config.messagesTopic, config.readsTopic, config.conversationsTopic);
        try (Admin admin = KAFKA.kafka().admin()) {
            Poll.until(
                    "offsets of group " + config.groupId + " in " + inputs,
                    JobHarness.CONVERGENCE,
                    () -> {
                        Set<String> committed =
                                admin
                                        .listConsumerGroupOffsets(config.groupId)
                                        .partitionsToOffsetAndMetadata()
                                        .get()
                                        .keySet()
                                        .stream()
                                        .map(TopicPartition::topic)
                                        .collect(Collectors.toSet());
                        return committed.containsAll(inputs) ? committed : null;
                    });
        }
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String topic, String key)
            throws Exception {
        producer.send(new ProducerRecord<>(topic, KafkaBroker.utf8(key), KafkaBroker.utf8("{}")))
                .get(ACL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static void assertRefused(KafkaProducer<byte[], byte[]> producer, String topic) {
        assertThatThrownBy(() -> send(producer, topic, REFUSED))
                .as("a write to " + topic)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(
                        TopicAuthorizationException.class,
                        e -> assertThat(e.unauthorizedTopics()).containsExactly(topic));
    }

    private static void assertNoSecretIn(String log) {
        assertThat(log)
                .as("the log")
                .doesNotContain(PASSWORD)
                .doesNotContain(API_PASSWORD)
                .doesNotContain(CHAT_SERVER_PASSWORD)
                .doesNotContain(KAFKA.truststorePassword());
    }

    /** The API beside the job, as its own Kafka principal: the one in {@code kafkaProperties}. */
    private static ApiConfig apiConfig(UnreadConfig config, Path kafkaProperties) {
        return JobApi.config(config, Map.of())
                .kafkaProperties(KafkaClientProperties.load(kafkaProperties.toString()))
                .port(0)
                .build();
    }

    private HttpResponse<String> get(StateQueryApi api, String path) throws Exception {
        return http.send(request(api, path).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(StateQueryApi api, String path) throws Exception {
        return http.send(
                request(api, path).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder request(StateQueryApi api, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path))
                .timeout(HTTP_TIMEOUT);
    }

    private static String requiredEnv(String name) {
        String value = System.getenv(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalStateException(
                    name + " is not set: failsafe sets it (devkit/pom.xml); set it to run here");
        }
        return value;
    }
}
