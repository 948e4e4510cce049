package dev.unread.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.UnreadJob;
import dev.unread.api.ApiConfig;
import dev.unread.api.StateQueryApi;
import dev.unread.cli.JobApi;
import dev.unread.config.UnreadConfig;
import dev.unread.testing.BadRecords;
import dev.unread.testing.CapturedLog;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Observed;
import dev.unread.testing.TestRedis;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job and the API against a Kafka that refuses plaintext, unauthenticated clients, as managed
 * services do: a SASL_SSL listener with SCRAM-SHA-512 and a certificate made by keytool, reached
 * through a {@code --kafka-properties} file that takes the password from the environment with
 * Kafka's EnvVarConfigProvider. The password is in this JVM's environment (failsafe sets {@value
 * #PASSWORD_ENV}, see devkit/pom.xml), as it would be on every Flink and API machine. Redis and
 * MySQL are reached as users with passwords as well, so that no secret of the three shows in the
 * job's and the API's log.
 */
class SecuredKafkaITCase {

    static final String PASSWORD_ENV = "UNREAD_IT_KAFKA_PASSWORD";
    static final String USER = "unread-job";
    static final String PASSWORD = requiredEnv(PASSWORD_ENV);
    static final String WRONG_PASSWORD = "wrong-" + PASSWORD;

    @RegisterExtension static final KafkaBroker KAFKA = KafkaBroker.withSaslSsl(USER, PASSWORD);

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(30);

    @TempDir Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

    @Test
    void theJobAndTheApiCountAndPublishOverSaslSslWithoutLoggingASecret() throws Exception {
        long seed = JobHarness.seed("SecuredKafkaITCase");
        String context = JobHarness.context(seed);
        String prefix = JobHarness.prefix("sasl", seed);
        Path properties =
                KAFKA.writeClientProperties(
                        dir.resolve("client.properties"), "${env:" + PASSWORD_ENV + "}");

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
            JobHarness.Traffic traffic =
                    JobHarness.traffic(config, seed, 400, new BadRecords(seed, 4096).of(6));
            // As chat servers publish: over the plaintext listener, which the job never uses.
            KAFKA.produce(traffic.records());

            JobClient job =
                    JobHarness.start(
                            UnreadJob.forProduction(config),
                            config,
                            dir.resolve("checkpoints"),
                            "unread over SASL_SSL");
            try (StateQueryApi api = StateQueryApi.start(apiConfig(config))) {
                // Counted from the sources, dead letters written by the producer: all SASL_SSL.
                Observed.awaitAgreement(
                        traffic.oracle(), prefix, db, JobHarness.CONVERGENCE, context);
                JobHarness.assertDeadLetters(KAFKA, config, traffic.bad(), false, context);

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
        }
    }

    @Test
    void aWrongPasswordFailsTheJobAndTheApiWithAnAuthenticationError() throws Exception {
        Path properties =
                KAFKA.writeClientProperties(dir.resolve("client.properties"), WRONG_PASSWORD);

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

            try (StateQueryApi api = StateQueryApi.start(apiConfig(config))) {
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

    private static void assertNoSecretIn(String log) {
        assertThat(log)
                .as("the log")
                .doesNotContain(PASSWORD)
                .doesNotContain(KAFKA.truststorePassword());
    }

    private static ApiConfig apiConfig(UnreadConfig config) {
        return JobApi.config(config, Map.of()).port(0).build();
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
