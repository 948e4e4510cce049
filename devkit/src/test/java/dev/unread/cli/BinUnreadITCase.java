package dev.unread.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.testing.KafkaBroker;
import dev.unread.testing.Poll;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/unread} as a user runs it, on the build {@code mvn verify} has just packaged (so the
 * script finds it up to date and does not build again). {@code bin/unread api} runs against the
 * local Redis and MySQL and a broker in this JVM.
 */
class BinUnreadITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    private static final Path SCRIPT = repositoryRoot().resolve("bin/unread");

    @TempDir Path elsewhere;

    @Test
    void helpFromAnotherDirectoryListsTheCommandsAndExitsWithZero() throws Exception {
        Result result = run(elsewhere, SCRIPT.toString(), "help");

        assertThat(result.status).isZero();
        assertThat(result.out).contains("Usage: unread", "local", "--redis-url");
        assertThat(result.err).doesNotContain("building");
    }

    @Test
    void anUnknownCommandExitsWithTwoAndUsageOnStderr() throws Exception {
        Result result = run(elsewhere, SCRIPT.toString(), "serve");

        assertThat(result.status).isEqualTo(2);
        assertThat(result.out).isEmpty();
        assertThat(result.err).contains("unknown command 'serve'", "Usage: unread");
    }

    @Test
    void aBadFlagOfLocalExitsWithTwoBeforeStartingAnything() throws Exception {
        Result result = run(elsewhere, SCRIPT.toString(), "local", "--generate", "-50");

        assertThat(result.status).isEqualTo(2);
        assertThat(result.err).contains("--generate must be >= 0").doesNotContain("Exception");
    }

    @Test
    void worksThroughASymlink() throws Exception {
        Path link = Files.createSymbolicLink(elsewhere.resolve("unread"), SCRIPT);

        Result result = run(elsewhere, link.toString(), "help", "local");

        assertThat(result.status).isZero();
        assertThat(result.out).contains("Usage: unread local", "--kafka-port");
    }

    @Test
    void theClasspathOfTheCliHoldsWhatOnlyRunsLikeKafkaClientsCodecs() throws Exception {
        // The dead-letter sink compresses with lz4, a runtime dependency of kafka-clients: without
        // it `unread local` fails at the first malformed record.
        Path target = SCRIPT.getParent().resolveSibling("devkit/target");
        String classpath =
                Files.readString(target.resolve("cli-classpath.txt"))
                        + ":"
                        + Files.readString(target.resolve("cli-runtime-classpath.txt"));

        assertThat(classpath)
                .contains("/lz4-java-", "/zstd-jni-", "/snappy-java-")
                .contains("/flink-runtime-", "/unread-state-query-api-", "/javalin-");
    }

    @Test
    void apiServesHealthWithEveryDependencyUpAndSigtermStopsItWithZero() throws Exception {
        try (Api api =
                Api.start(elsewhere, Map.of("UNREAD_KAFKA_BOOTSTRAP", KAFKA.bootstrapServers()))) {
            HttpResponse<String> health = api.get("/health");

            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
            assertThat(health.body())
                    .contains("\"redis\":\"UP\"", "\"mysql\":\"UP\"", "\"kafka\":\"UP\"");
            assertThat(api.get("/api/users/1/unread").statusCode()).isEqualTo(200);

            assertThat(api.stop()).as(api.err()).isZero();
        }
    }

    @Test
    void apiPointedAtAMissingKafkaAnswersHealthWith503NamingIt() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            closed = socket.getLocalPort();
        }
        try (Api api =
                Api.start(elsewhere, Map.of("UNREAD_KAFKA_BOOTSTRAP", "127.0.0.1:" + closed))) {
            HttpResponse<String> health = api.get("/health");

            assertThat(health.statusCode()).as(health.body()).isEqualTo(503);
            assertThat(health.body())
                    .contains(
                            "\"kafka\":\"DOWN: unreachable\"", "\"error\":\"unavailable: kafka\"");
        }
    }

    /** {@code bin/unread api --port 0} running, its output in files. */
    private static final class Api implements AutoCloseable {
        private final Process process;
        private final Path out;
        private final Path err;
        private final URI base;

        private Api(Process process, Path out, Path err, URI base) {
            this.process = process;
            this.out = out;
            this.err = err;
            this.base = base;
        }

        static Api start(Path directory, Map<String, String> env) throws Exception {
            Path out = Files.createTempFile("unread-api-out", ".txt");
            Path err = Files.createTempFile("unread-api-err", ".txt");
            ProcessBuilder builder =
                    new ProcessBuilder(SCRIPT.toString(), "api", "--port", "0")
                            .directory(directory.toFile())
                            .redirectOutput(out.toFile())
                            .redirectError(err.toFile());
            builder.environment().keySet().removeIf(name -> name.startsWith("UNREAD_"));
            builder.environment().putAll(env);
            Process process = builder.start();
            Pattern listening = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");
            try {
                String address =
                        Poll.until(
                                "the API's address on stdout",
                                Duration.ofMinutes(1),
                                () -> {
                                    if (!process.isAlive()) {
                                        throw new AssertionError(
                                                "bin/unread api ended with "
                                                        + process.exitValue()
                                                        + ": "
                                                        + Files.readString(err));
                                    }
                                    Matcher m = listening.matcher(Files.readString(out));
                                    return m.find() ? m.group(1) : null;
                                });
                return new Api(process, out, err, URI.create(address));
            } catch (Exception | Error e) {
                process.destroyForcibly();
                throw e;
            }
        }

        /**
         * The API bounds each of its checks by 2 s, but its first answer also loads and compiles
         * what the request touches, in a JVM that may share two cores with a Flink test: a clean CI
         * run once took more than 10 s here. The API's own log says where the time went.
         */
        HttpResponse<String> get(String path) throws Exception {
            try {
                return HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(base.resolve(path))
                                        .timeout(Duration.ofSeconds(45))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
            } catch (HttpTimeoutException e) {
                throw new AssertionError(
                        "GET " + path + " took more than 45 s; the API's log:\n" + err(), e);
            }
        }

        /** SIGTERM, as a service manager stops it; returns the exit status. */
        int stop() throws Exception {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError("bin/unread api did not stop within 30 s of SIGTERM");
            }
            return process.exitValue();
        }

        String err() throws Exception {
            return Files.readString(err);
        }

        @Override
        public void close() throws Exception {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
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
