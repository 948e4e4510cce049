package dev.unread.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.generator.Workload;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** {@code unread bench}'s flags: every mistake is refused before a broker or cluster starts. */
class BenchCommandTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void anEmptyKeyPrefixIsRefusedSinceTheBenchDeletesWhatIsUnderIt() {
        assertThat(run(Map.of(), "--redis-key-prefix", "")).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("--redis-key-prefix must not be empty");
    }

    @Test
    void anEmptyKeyPrefixFromTheEnvironmentIsRefusedToo() {
        assertThat(run(Map.of("UNREAD_REDIS_KEY_PREFIX", ""))).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("--redis-key-prefix must not be empty");
    }

    @Test
    void anUnknownWorkerModeIsNamed() {
        assertThat(run(Map.of(), "--workers", "per-event,batched")).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("--workers: unknown mode batched");
    }

    @Test
    void badNumbersAndAForeignBrokerAreRefused() {
        assertThat(run(Map.of(), "--records", "0")).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("--records must be >= 1");
        assertThat(run(Map.of(), "--sql-rows", "1000,x")).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("'--sql-rows' (N,N): 'x' is not a long");
        assertThat(run(Map.of(), "--redundancy", "1.5")).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("redundancy must be in 0..1");
        assertThat(run(Map.of(), "--channel-mention-share", "1.5")).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("shares must be within 0..1, was 1.5");
        assertThat(run(Map.of(), "--channel-members", "1")).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("a channel of the bench has 2 members or more");
        assertThat(run(Map.of(), "--kafka-bootstrap", "kafka:9092")).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("the bench runs its own broker");
        assertThat(out.size()).isZero();
    }

    @Test
    void helpShowsTheBenchsOwnDefaultsForTheJobSettingsAndTheGeneratorsForItsWorkload() {
        assertThat(run(Map.of(), "--help")).isEqualTo(Unread.OK);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("UNREAD_REDIS_KEY_PREFIX (default: bench:)")
                .contains("UNREAD_CHECKPOINT_INTERVAL_MS (default: 5000)")
                .contains("(default " + Workload.defaults().receivers() + ")")
                .doesNotContain("--kafka-bootstrap");
    }

    @Test
    void helpListsTheBenchsFlags() {
        assertThat(run(Map.of(), "--help")).isEqualTo(Unread.OK);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("Usage: unread bench", "--records", "--workers", "--sql-rows", "--out")
                .contains("--channel-members", "(default 100000)", "--channel-messages");
    }

    @Test
    void seqsPrintsARowPerPatternWithTheSetsBytesAgainstRoaring() {
        assertThat(run(Map.of(), "seqs", "--messages", "300")).isEqualTo(Unread.OK);
        String table = out.toString(StandardCharsets.UTF_8);
        assertThat(table)
                .contains("| pattern | messages | ns per message |", "set / Roaring |")
                .contains("| consecutive, never read | 300 |")
                .contains("| one seq per 2^16 (each message opens a chunk) | 300 |");
        assertThat(table.lines().filter(l -> l.contains(" | 300 | ")).count()).isEqualTo(6);
    }

    @Test
    void seqsRefusesNoMessages() {
        assertThat(run(Map.of(), "seqs", "--messages", "0")).isEqualTo(Unread.USAGE);
        assertThat(err()).contains("--messages must be >= 1");
    }

    @Test
    void theReportShowsTheCommandLineAsTyped() {
        CommandLine cli =
                Unread.commandLine(
                        new Unread.Session(
                                Map.of(),
                                new PrintStream(out, true, StandardCharsets.UTF_8),
                                new PrintStream(err, true, StandardCharsets.UTF_8)));
        cli.parseArgs(BenchCommand.NAME, "--records", "5000", "--workers", "per-event");
        CommandSpec bench = cli.getSubcommands().get(BenchCommand.NAME).getCommandSpec();
        assertThat(BenchCommand.typed(bench))
                .isEqualTo("unread bench --records 5000 --workers per-event");
    }

    private int run(Map<String, String> env, String... flags) {
        String[] args = new String[flags.length + 1];
        args[0] = BenchCommand.NAME;
        System.arraycopy(flags, 0, args, 1, flags.length);
        return Unread.run(
                args,
                new Unread.Session(
                        env,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8)));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
