package dev.unread.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
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
        assertThat(err()).contains("Usage: unread <command>").contains("local");
        assertThat(out()).isEmpty();
    }

    @Test
    void anUnknownCommandIsNamedWithTheUsageOnStderrAndExitsWithTwo() {
        assertThat(Unread.run(new String[] {"serve", "--x", "1"}, session)).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("unknown command 'serve'").contains("Usage: unread <command>");
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
        assertThat(out()).contains("Usage: unread <command>");
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
    void helpOfAnUnknownCommandIsAUsageError() {
        assertThat(Unread.run(new String[] {"help", "serve"}, session)).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("unread help: help takes one command name, got serve");
    }

    @Test
    void aBadFlagOfACommandIsReportedWithoutAStackTraceAndExitsWithTwo() {
        assertThat(Unread.run(new String[] {"local", "--generate", "100"}, session))
                .isEqualTo(Unread.USAGE);
        assertThat(err())
                .contains("unread local: --generate 100")
                .contains("Run 'unread help local'")
                .doesNotContain("Exception", "\tat ");
    }

    @Test
    void anUnknownSettingIsAUsageError() {
        assertThat(Unread.run(new String[] {"local", "--redis-ur", "redis://x"}, session))
                .isEqualTo(Unread.USAGE);
        assertThat(err()).contains("unknown setting --redis-ur");
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
