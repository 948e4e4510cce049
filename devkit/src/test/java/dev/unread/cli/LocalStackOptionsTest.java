package dev.unread.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LocalStackOptionsTest {

    @Test
    void defaultsAreTheDocumentedPorts() {
        LocalStack.Options options = LocalStack.Options.parse(List.of(), Map.of());

        assertThat(options.kafkaPort()).isEqualTo(9092);
        assertThat(options.flinkUiPort()).isEqualTo(8081);
        assertThat(options.apiPort()).isEqualTo(8080);
        assertThat(options.generateRate()).isEqualTo(200);
        assertThat(options.durationSeconds()).isZero();
        assertThat(options.seed()).isEqualTo(1);
        assertThat(options.settings()).isEmpty();
    }

    @Test
    void ownFlagsAreTakenAndEveryOtherFlagIsAJobSetting() {
        LocalStack.Options options =
                LocalStack.Options.parse(
                        List.of(
                                "--kafka-port",
                                "19092",
                                "--flink-ui-port=18081",
                                "--api-port",
                                "18080",
                                "--generate",
                                "0",
                                "--duration",
                                "40",
                                "--seed=-7",
                                "--redis-key-prefix",
                                "dev:",
                                "--parallelism",
                                "1"),
                        Map.of());

        assertThat(options.kafkaPort()).isEqualTo(19092);
        assertThat(options.flinkUiPort()).isEqualTo(18081);
        assertThat(options.apiPort()).isEqualTo(18080);
        assertThat(options.generateRate()).isZero();
        assertThat(options.durationSeconds()).isEqualTo(40);
        assertThat(options.seed()).isEqualTo(-7);
        assertThat(options.settings())
                .containsOnly(Map.entry("redis-key-prefix", "dev:"), Map.entry("parallelism", "1"));
    }

    @Test
    void portZeroMeansAnyFreePortAndMayRepeat() {
        LocalStack.Options options =
                LocalStack.Options.parse(
                        List.of("--kafka-port", "0", "--flink-ui-port", "0", "--api-port", "0"),
                        Map.of());

        assertThat(options.kafkaPort()).isZero();
        assertThat(options.flinkUiPort()).isZero();
    }

    @Test
    void portsOutOfRangeOrNotNumbersAreRefused() {
        assertUsageError(List.of("--kafka-port", "65536"), "--kafka-port must be a port, 0..65535");
        assertUsageError(List.of("--flink-ui-port", "-1"), "--flink-ui-port must be a port");
        assertUsageError(List.of("--api-port", "http"), "'--api-port': 'http' is not an int");
    }

    @Test
    void twoServicesCannotShareAPort() {
        assertUsageError(List.of("--api-port", "9092"), "must differ, were 9092, 8081 and 9092");
    }

    @Test
    void negativeRatesAndDurationsAreRefused() {
        assertUsageError(
                List.of("--generate", "-1"),
                "--generate must be >= 0 (events per second; 0: none), was -1");
        assertUsageError(
                List.of("--duration", "-5"),
                "--duration must be >= 0 (seconds; 0: until Ctrl-C), was -5");
        assertUsageError(List.of("--seed", "x"), "'--seed': 'x' is not a long");
    }

    @Test
    void kafkaBootstrapIsRefusedBecauseLocalRunsItsOwnBroker() {
        assertUsageError(
                List.of("--kafka-bootstrap", "kafka:9092"),
                "local runs its own broker; see --kafka-port");
    }

    @Test
    void jobSettingsAreCheckedBeforeAnythingStarts() {
        assertUsageError(
                List.of("--checkpoint-interval-ms", "0"), "--checkpoint-interval-ms must be >= 1");
        assertUsageError(List.of("--no-such-setting", "1"), "Unknown option");
        assertUsageError(List.of("--no-such-setting", "1"), "'--no-such-setting'");
        assertUsageError(
                List.of("--kafka-port"), "Missing required parameter for option '--kafka-port'");
    }

    @Test
    void theEnvironmentIsCheckedToo() {
        assertThatThrownBy(
                        () ->
                                LocalStack.Options.parse(
                                        List.of(), Map.of("UNREAD_PARALLELISM", "two")))
                .isInstanceOf(UsageException.class)
                .hasMessageContaining("--parallelism must be a whole number, was two");
    }

    @Test
    void theApisEnvironmentIsCheckedToo() {
        assertThatThrownBy(
                        () ->
                                LocalStack.Options.parse(
                                        List.of(), Map.of("UNREAD_API_TIMEOUT_MS", "10")))
                .isInstanceOf(UsageException.class)
                .hasMessageContaining("timeout must be >= 250 ms, was 10");
    }

    private static void assertUsageError(List<String> args, String message) {
        assertThatThrownBy(() -> LocalStack.Options.parse(args, Map.of()))
                .isInstanceOf(UsageException.class)
                .hasMessageContaining(message);
    }
}
