package dev.unread.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * The command lines of {@code unread savepoint inspect|republish} and {@code unread bootstrap}:
 * what they take, and what they refuse (status 2) before any work.
 */
class SavepointCommandTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Unread.Session session =
            new Unread.Session(
                    Map.of(),
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));

    @Test
    void toolFlagsSettingsAndPositionalArgumentsAreTakenApart() {
        CommandLine republish =
                tool("savepoint", "republish", "--redis-url=redis://h:1/0", "/tmp/sp");
        assertThat(((SavepointCommand.Republish) republish.getCommand()).path).isEqualTo("/tmp/sp");
        assertThat(CommandFlags.given(republish.getCommandSpec()))
                .isEqualTo(Map.of("redis-url", "redis://h:1/0"));

        CommandLine inspect = tool("savepoint", "inspect", "--top", "5", "/tmp/sp");
        assertThat(((SavepointCommand.Inspect) inspect.getCommand()).top).isEqualTo(5);
        assertThat(((SavepointCommand.Inspect) inspect.getCommand()).path).isEqualTo("/tmp/sp");
        CommandLine byDefault = tool("savepoint", "inspect", "/tmp/sp");
        assertThat(((SavepointCommand.Inspect) byDefault.getCommand()).top).isEqualTo(10);
    }

    @Test
    void inspectTakesAUserToAskAbout() {
        CommandLine inspect = tool("savepoint", "inspect", "/tmp/sp", "--user", "10086");
        assertThat(((SavepointCommand.Inspect) inspect.getCommand()).user).isEqualTo(10086L);
        assertThat(
                        ((SavepointCommand.Inspect)
                                        tool("savepoint", "inspect", "/tmp/sp").getCommand())
                                .user)
                .isNull();
        assertRefused(
                List.of("savepoint", "inspect", "/tmp/sp", "--user", "0"),
                "--user must be > 0, was 0");
    }

    @Test
    void aFlagWithoutItsValueIsRefused() {
        assertRefused(
                List.of("savepoint", "inspect", "/tmp/sp", "--top"),
                "Missing required parameter for option '--top'");
    }

    @Test
    void savepointWithoutAToolNamesThem() {
        assertRefused(List.of("savepoint"), "unread savepoint: needs a tool: inspect or republish");
    }

    @Test
    void inspectWithoutAPathSaysWhereItsUsageIs() {
        assertRefused(List.of("savepoint", "inspect"), "Missing required parameter: 'PATH'");
        assertThat(err()).contains("Run 'unread savepoint inspect --help'");
    }

    @Test
    void inspectRefusesSettingsItDoesNotUse() {
        assertRefused(
                List.of("savepoint", "inspect", "/tmp/sp", "--redis-url", "redis://h:1/0"),
                "Unknown option");
        assertThat(err()).contains("'--redis-url'");
    }

    @Test
    void republishTakesOneSavepoint() {
        assertRefused(List.of("savepoint", "republish", "/tmp/a", "/tmp/b"), "'/tmp/b'");
    }

    @Test
    void republishRefusesAnUnknownSetting() {
        assertRefused(List.of("savepoint", "republish", "/tmp/a", "--redis", "x"), "'--redis'");
    }

    @Test
    void republishChecksTheSettingsBeforeAnyWork() {
        assertRefused(
                List.of("savepoint", "republish", "/tmp/a", "--flush-interval-ms", "0"),
                "--flush-interval-ms must be >= 1, was 0");
    }

    @Test
    void bootstrapNeedsAnOutputDirectory() {
        assertRefused(
                List.of("bootstrap", "--jdbc-url", "jdbc:mysql://h:3306/db"),
                "Missing required option: '--output=DIR'");
    }

    @Test
    void bootstrapTakesOnlyAPlainTableName() {
        for (String flag :
                List.of(
                        "--messages-table",
                        "--group-messages-table",
                        "--membership-table",
                        "--channels-table")) {
            for (String table :
                    List.of("messages; DROP TABLE user_activity", "a.b.c", "1messages")) {
                assertRefused(
                        List.of("bootstrap", "--output", "/tmp/sp", flag, table),
                        flag + ": not a table name");
            }
        }
        assertRefused(
                List.of(
                        "bootstrap",
                        "--output",
                        "/tmp/sp",
                        "--messages-table",
                        "chat.messages",
                        "--bogus",
                        "1"),
                "'--bogus'");
        assertThat(err()).doesNotContain("not a table name");
    }

    /** The command line of the tool {@code args} names, parsed. */
    private CommandLine tool(String... args) {
        ParseResult parsed = Unread.commandLine(session).parseArgs(args);
        return parsed.subcommand().subcommand().commandSpec().commandLine();
    }

    private void assertRefused(List<String> args, String message) {
        err.reset();
        assertThat(Unread.run(args.toArray(String[]::new), session))
                .as(err())
                .isEqualTo(Unread.USAGE);
        assertThat(err()).contains(message).doesNotContain("Exception", "\tat ");
        assertThat(out.size()).isZero();
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
