package dev.unread.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/unread} as a user runs it, on the build {@code mvn verify} has just packaged (so the
 * script finds it up to date and does not build again).
 */
class BinUnreadITCase {

    private static final Path SCRIPT = repositoryRoot().resolve("bin/unread");

    @TempDir Path elsewhere;

    @Test
    void helpFromAnotherDirectoryListsTheCommandsAndExitsWithZero() throws Exception {
        Result result = run(elsewhere, SCRIPT.toString(), "help");

        assertThat(result.status).isZero();
        assertThat(result.out).contains("Usage: unread <command>", "local", "--redis-url");
        assertThat(result.err).doesNotContain("building");
    }

    @Test
    void anUnknownCommandExitsWithTwoAndUsageOnStderr() throws Exception {
        Result result = run(elsewhere, SCRIPT.toString(), "serve");

        assertThat(result.status).isEqualTo(2);
        assertThat(result.out).isEmpty();
        assertThat(result.err).contains("unknown command 'serve'", "Usage: unread <command>");
    }

    @Test
    void aBadFlagOfLocalExitsWithTwoBeforeStartingAnything() throws Exception {
        Result result = run(elsewhere, SCRIPT.toString(), "local", "--generate", "50");

        assertThat(result.status).isEqualTo(2);
        assertThat(result.err).contains("--generate 50").doesNotContain("Exception");
    }

    @Test
    void worksThroughASymlink() throws Exception {
        Path link = Files.createSymbolicLink(elsewhere.resolve("unread"), SCRIPT);

        Result result = run(elsewhere, link.toString(), "help", "local");

        assertThat(result.status).isZero();
        assertThat(result.out).contains("Usage: unread local", "--kafka-port");
    }

    private record Result(int status, String out, String err) {}

    private static Result run(Path directory, String... command) throws Exception {
        Path out = Files.createTempFile("unread-out", ".txt");
        Path err = Files.createTempFile("unread-err", ".txt");
        try {
            Process process =
                    new ProcessBuilder(new ArrayList<>(List.of(command)))
                            .directory(directory.toFile())
                            .redirectOutput(out.toFile())
                            .redirectError(err.toFile())
                            .start();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError(
                        "bin/unread did not end within 2 minutes: " + List.of(command));
            }
            return new Result(
                    process.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** The directory holding {@code bin/unread}: the tests run in {@code job/}, or below it. */
    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("bin/unread"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no bin/unread above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }
}
