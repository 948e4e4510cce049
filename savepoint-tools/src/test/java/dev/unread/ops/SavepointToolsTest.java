package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The savepoint tools' command lines: what they accept, and what they refuse before any work. */
class SavepointToolsTest {

    @Test
    void toolFlagsSettingsAndPositionalArgumentsAreTakenApart() {
        CounterSavepoints.Args args = CounterSavepoints.Args.parse(
                new String[] {"--top", "5", "/tmp/sp", "--redis-url=redis://h:1/0"},
                Set.of("top"));

        assertThat(args.positional()).containsExactly("/tmp/sp");
        assertThat(args.toolFlags()).isEqualTo(Map.of("top", "5"));
        assertThat(args.settings()).isEqualTo(Map.of("redis-url", "redis://h:1/0"));
        assertThat(args.only("path")).isEqualTo("/tmp/sp");
    }

    @Test
    void aFlagWithoutItsValueIsRefused() {
        assertThatThrownBy(
                        () -> CounterSavepoints.Args.parse(new String[] {"--top"}, Set.of("top")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--top needs a value");
    }

    @Test
    void inspectWithoutAPathPrintsItsUsage() throws Exception {
        Run run = run(SavepointInspect::run);

        assertThat(run.exit).isEqualTo(2);
        assertThat(run.printed).contains("usage: unread savepoint inspect PATH");
    }

    @Test
    void inspectRefusesSettingsItDoesNotUse() throws Exception {
        Run run = run(SavepointInspect::run, "/tmp/sp", "--redis-url", "redis://h:1/0");

        assertThat(run.exit).isEqualTo(2);
        assertThat(run.printed).contains("unknown flags [redis-url]");
    }

    @Test
    void republishTakesOneSavepoint() throws Exception {
        Run run = run(SavepointRepublish::run, "/tmp/a", "/tmp/b");

        assertThat(run.exit).isEqualTo(2);
        assertThat(run.printed).contains("expected one savepoint path", "usage: unread savepoint");
    }

    @Test
    void republishRefusesAnUnknownSetting() throws Exception {
        Run run = run(SavepointRepublish::run, "/tmp/a", "--redis", "x");

        assertThat(run.exit).isEqualTo(2);
        assertThat(run.printed).contains("unknown setting --redis");
    }

    @Test
    void bootstrapNeedsAnOutputDirectory() throws Exception {
        Run run = run(Bootstrap::run, "--jdbc-url", "jdbc:mysql://h:3306/db");

        assertThat(run.exit).isEqualTo(2);
        assertThat(run.printed).contains("--output DIR is required", "usage: unread bootstrap");
    }

    @Test
    void bootstrapTakesOnlyAPlainTableName() throws Exception {
        for (String table : List.of("messages; DROP TABLE user_activity", "a.b.c", "1messages")) {
            Run run = run(Bootstrap::run, "--output", "/tmp/sp", "--messages-table", table);

            assertThat(run.exit).as(table).isEqualTo(2);
            assertThat(run.printed).contains("not a table name");
        }
        Run qualified = run(Bootstrap::run, "--output", "/tmp/sp",
                "--messages-table", "chat.messages", "--bogus", "1");
        assertThat(qualified.printed).doesNotContain("not a table name")
                .contains("unknown setting --bogus");
    }

    private record Run(int exit, String printed) {}

    @FunctionalInterface
    private interface Tool {
        int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err)
                throws Exception;
    }

    /** Runs {@code tool}; what it printed on stderr, where usage errors go. */
    private static Run run(Tool tool, String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = tool.run(args, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        return new Run(exit, err.toString(StandardCharsets.UTF_8));
    }
}
