package dev.unread.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UnreadConfigTest {

    @Test
    void defaultsPointAtThisMachine() {
        UnreadConfig c = UnreadConfig.with(Map.of());
        assertThat(c.kafkaBootstrap).isEqualTo("127.0.0.1:9092");
        assertThat(c.redisUrl).isEqualTo("redis://127.0.0.1:6379/0");
        assertThat(c.jdbcUrl).startsWith("jdbc:mysql://127.0.0.1:3306/");
        assertThat(c.redisKeyPrefix).isEmpty();
    }

    @Test
    void aFlagWinsOverTheEnvironmentWhichWinsOverTheDefault() {
        UnreadConfig c =
                UnreadConfig.fromArgs(
                        new String[] {"--flush-interval-ms", "50", "--group-id=g1"},
                        Map.of("UNREAD_FLUSH_INTERVAL_MS", "70", "UNREAD_REDIS_KEY_PREFIX", "p:"));
        assertThat(c.flushIntervalMs).isEqualTo(50);
        assertThat(c.groupId).isEqualTo("g1");
        assertThat(c.redisKeyPrefix).isEqualTo("p:");
    }

    @Test
    void thePasswordComesOnlyFromTheEnvironment() {
        assertThat(
                        UnreadConfig.from(Map.of(), Map.of("UNREAD_JDBC_PASSWORD", "s3cret"))
                                .jdbcPassword)
                .isEqualTo("s3cret");
        assertThatThrownBy(
                        () ->
                                UnreadConfig.fromArgs(
                                        new String[] {"--jdbc-password", "x"}, Map.of()))
                .hasMessageContaining("unknown setting --jdbc-password");
    }

    @Test
    void badValuesAreRefusedWithTheirName() {
        assertThatThrownBy(() -> UnreadConfig.with(Map.of("flush-interval-ms", "soon")))
                .hasMessageContaining("--flush-interval-ms must be a whole number");
        assertThatThrownBy(() -> UnreadConfig.with(Map.of("max-parallelism", "0")))
                .hasMessageContaining("--max-parallelism must be >= 1");
        assertThatThrownBy(() -> UnreadConfig.fromArgs(new String[] {"--group-id"}, Map.of()))
                .hasMessageContaining("needs a value");
    }

    @Test
    void aParallelismFlinkWouldRefuseIsRefusedAtParseTime() {
        assertThatThrownBy(() -> UnreadConfig.with(Map.of("max-parallelism", "32769")))
                .hasMessageContaining("--max-parallelism must be at most 32768, was 32769");
        assertThatThrownBy(() -> UnreadConfig.with(Map.of("parallelism", "4294967297")))
                .hasMessageContaining(
                        "--parallelism must be at most --max-parallelism (128), was 4294967297");
        assertThatThrownBy(
                        () ->
                                UnreadConfig.with(
                                        Map.of("parallelism", "300", "max-parallelism", "256")))
                .hasMessageContaining(
                        "--parallelism must be at most --max-parallelism (256), was 300");
        UnreadConfig highest =
                UnreadConfig.with(Map.of("parallelism", "32768", "max-parallelism", "32768"));
        assertThat(highest.parallelism).isEqualTo(32768);
        assertThat(highest.maxParallelism).isEqualTo(32768);
    }

    @Test
    void idleDaysATimerCannotHoldAreRefusedAtParseTime() {
        assertThatThrownBy(
                        () ->
                                UnreadConfig.with(
                                        Map.of("idle-state-days", Long.toString(Long.MAX_VALUE))))
                .hasMessageContaining("--idle-state-days must be at most 36500 (100 years)")
                .hasMessageContaining("0 keeps state forever");
        assertThat(UnreadConfig.with(Map.of("idle-state-days", "36500")).idleStateDays)
                .isEqualTo(36500);
    }

    @Test
    void futureTimesAreBoundedByADayUnlessSetOtherwise() {
        assertThat(UnreadConfig.with(Map.of()).maxFutureSkewMs).isEqualTo(86_400_000L);
        assertThat(
                        UnreadConfig.from(Map.of(), Map.of("UNREAD_MAX_FUTURE_SKEW_MS", "0"))
                                .maxFutureSkewMs)
                .isZero();
        assertThat(
                        UnreadConfig.fromArgs(
                                        new String[] {"--max-future-skew-ms", "60000"}, Map.of())
                                .maxFutureSkewMs)
                .isEqualTo(60_000L);
        assertThatThrownBy(() -> UnreadConfig.with(Map.of("max-future-skew-ms", "-1")))
                .hasMessageContaining("--max-future-skew-ms must be >= 0");
    }

    @Test
    void toStringHidesTheRedisPassword() {
        UnreadConfig c = UnreadConfig.with(Map.of("redis-url", "redis://:hunter2@10.0.0.1:6379/0"));
        assertThat(c.toString()).doesNotContain("hunter2").contains(":***@");
    }

    @Test
    void kafkaClientSettingsComeFromTheFileAndToStringHidesTheirSecrets(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(
                file,
                "security.protocol=SASL_SSL\n"
                        + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule"
                        + " required username=\"unread\" password=\"hunter2\";\n"
                        + "ssl.truststore.password=hunter3\n");

        UnreadConfig c =
                UnreadConfig.from(Map.of(), Map.of("UNREAD_KAFKA_PROPERTIES", file.toString()));

        assertThat(c.kafkaProperties).containsEntry("security.protocol", "SASL_SSL").hasSize(3);
        assertThat(c.kafkaClientProperties()).containsEntry("ssl.truststore.password", "hunter3");
        assertThat(c.toString())
                .doesNotContain("hunter")
                .contains("security.protocol=SASL_SSL", "sasl.jaas.config=***");
        assertThat(UnreadConfig.with(Map.of()).kafkaProperties).isEmpty();
    }

    @Test
    void theReadmeListsEverySettingWithItsVariableAndDefault() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        UnreadConfig.defaults()
                .forEach(
                        (name, value) -> {
                            String row =
                                    "| `--"
                                            + name
                                            + "` | `"
                                            + UnreadConfig.envName(name)
                                            + "` | "
                                            + (value.isEmpty() ? "(empty)" : "`" + value + "`");
                            assertThat(readme).as("README row for --" + name).contains(row);
                        });
        assertThat(readme).contains("`" + UnreadConfig.JDBC_PASSWORD_ENV + "`");
    }
}
