package dev.unread.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.api.ApiConfig;
import dev.unread.contract.Setting;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class UnreadTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Unread.Session session =
            new Unread.Session(
                    Map.of(),
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));

    @Test
    void noCommandPrintsUsageOnStderrAndExitsWithTwo() {
        assertThat(Unread.run(new String[0], session)).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("Usage: unread").contains("local", "api");
        assertThat(out()).isEmpty();
    }

    @Test
    void anUnknownCommandIsNamedWithTheUsageOnStderrAndExitsWithTwo() {
        assertThat(Unread.run(new String[] {"serve", "--x", "1"}, session)).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("unknown command 'serve'").contains("Usage: unread");
        assertThat(out()).isEmpty();
    }

    @Test
    void helpListsEveryCommandAndEverySettingOnStdout() {
        assertThat(Unread.run(new String[] {"help"}, session)).isEqualTo(Unread.OK);
        assertThat(out())
                .contains("local", "help")
                .contains("--redis-url", "UNREAD_REDIS_URL", "--checkpoint-interval-ms");
        assertThat(err()).isEmpty();
    }

    @Test
    void dashDashHelpIsHelp() {
        assertThat(Unread.run(new String[] {"--help"}, session)).isEqualTo(Unread.OK);
        assertThat(out()).contains("Usage: unread", "Commands:");
    }

    @Test
    void helpOfACommandShowsItsOwnFlags() {
        assertThat(Unread.run(new String[] {"help", "local"}, session)).isEqualTo(Unread.OK);
        assertThat(out())
                .contains(
                        "--kafka-port",
                        "--flink-ui-port",
                        "--api-port",
                        "--generate",
                        "--redis-url");
    }

    @Test
    void aCommandWithDashDashHelpShowsItsUsageAndRunsNothing() {
        assertThat(Unread.run(new String[] {"local", "--kafka-port", "1", "--help"}, session))
                .isEqualTo(Unread.OK);
        assertThat(out()).contains("Usage: unread local");
    }

    @Test
    void helpOfApiShowsItsPortFlagAndEveryVariableTheApiReads() {
        assertThat(Unread.run(new String[] {"api", "--help"}, session)).isEqualTo(Unread.OK);
        // Once by name: these three were missing from a list kept by hand.
        assertThat(out())
                .contains(
                        "Usage: unread api",
                        "--port",
                        "UNREAD_KAFKA_PROPERTIES",
                        "UNREAD_REDIS_CA_FILE",
                        "UNREAD_REDIS_CLUSTER_NODES");
        for (Setting<?> setting : ApiConfig.SETTINGS) {
            String value = setting.defaultValue();
            assertThat(out())
                    .containsPattern(
                            Pattern.quote(setting.env())
                                    + " +"
                                    + Pattern.quote(value.isEmpty() ? "(empty)" : value)
                                    + "\\R");
        }
        assertThat(out()).contains(ApiConfig.SECRETS);
    }

    @Test
    void apiRefusesFlagsOtherThanPortWithoutStartingAnything() {
        assertThat(Unread.run(new String[] {"api", "--redis-url", "redis://x:1"}, session))
                .isEqualTo(Unread.USAGE);
        assertThat(err()).contains("unread api: Unknown option", "'--redis-url'");
    }

    @Test
    void apiReportsABadEnvironmentAsAUsageError() {
        Unread.Session badEnv =
                new Unread.Session(
                        Map.of("UNREAD_API_PORT", "eighty"),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(Unread.run(new String[] {"api"}, badEnv)).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("UNREAD_API_PORT must be a whole number, was eighty");
    }

    @Test
    void apiTakesItsPortFromTheFlagBeforeTheEnvironment() {
        assertThat(ApiCommand.config(18080, Map.of("UNREAD_API_PORT", "1")).port).isEqualTo(18080);
        assertThat(ApiCommand.config(null, Map.of("UNREAD_API_PORT", "1")).port).isEqualTo(1);
        assertThat(ApiCommand.config(null, Map.of()).port).isEqualTo(8080);
    }

    @Test
    void helpOfAnUnknownCommandIsAUsageError() {
        assertThat(Unread.run(new String[] {"help", "serve"}, session)).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("Unknown subcommand 'serve'");
    }

    @Test
    void aBadFlagOfACommandIsReportedWithoutAStackTraceAndExitsWithTwo() {
        assertThat(Unread.run(new String[] {"local", "--generate", "-100"}, session))
                .isEqualTo(Unread.USAGE);
        assertThat(err())
                .contains("unread local: --generate must be >= 0")
                .contains("Run 'unread local --help'")
                .doesNotContain("Exception", "\tat ");
    }

    @Test
    void anUnknownSettingIsAUsageError() {
        assertThat(Unread.run(new String[] {"local", "--redis-ur", "redis://x"}, session))
                .isEqualTo(Unread.USAGE);
        assertThat(err()).contains("Unknown option", "'--redis-ur'");
    }

    @Test
    void helpOfACommandListsTheDefaultsOfItsOneDeclaration() {
        assertThat(Unread.run(new String[] {"help", "local"}, session)).isEqualTo(Unread.OK);
        assertThat(out())
                .contains("--kafka-port=PORT", "(default 9092; 0: any free port)")
                .contains("UNREAD_JDBC_USER (default: root)", "UNREAD_PARALLELISM (default: 0)")
                .doesNotContain("--kafka-bootstrap");
    }

    @Test
    void aCommandThatFailsExitsWithOneAndNamesTheCause() {
        String missing = "/nonexistent/unread-savepoint";

        assertThat(Unread.run(new String[] {"savepoint", "inspect", missing}, session))
                .isEqualTo(Unread.FAILED);
        assertThat(err()).startsWith("unread savepoint inspect: ").contains(missing);
    }

    @Test
    void failureMessagesNameEveryCause() {
        Exception e =
                new IllegalStateException(
                        "the job failed while starting",
                        new RuntimeException(
                                "sink", new java.net.ConnectException("Connection refused")));

        assertThat(Unread.causes(e))
                .isEqualTo(
                        "the job failed while starting"
                                + "\n  caused by: java.lang.RuntimeException: sink"
                                + "\n  caused by: java.net.ConnectException: Connection refused");
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
