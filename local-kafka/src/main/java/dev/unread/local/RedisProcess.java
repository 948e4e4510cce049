package dev.unread.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * One {@code redis-server}, the one Maven Central ships ({@link Binaries#redisServer()}), so the
 * same Redis on every machine whatever it has installed; started by a test, the benchmark or the
 * local stack on 127.0.0.1 with its data directory under /tmp, in the foreground so that the caller
 * holds its process: {@link #kill()} is a {@code kill -9}.
 */
public final class RedisProcess implements AutoCloseable {

    private static final Duration START = Duration.ofSeconds(20);

    public final int port;
    public final Path dir;
    private final List<String> args;
    private Process process;

    private RedisProcess(int port, Path dir, List<String> args) {
        this.port = port;
        this.dir = dir;
        this.args = args;
    }

    /**
     * Starts {@code redis-server} with {@code args} after those every test server has (loopback, no
     * persistence, {@code dir}, a log file in it) and waits until it accepts connections.
     */
    public static RedisProcess start(int port, Path dir, List<String> args) throws Exception {
        RedisProcess redis = new RedisProcess(port, dir, args);
        redis.start();
        return redis;
    }

    /** Starts the server again, with its data directory as it was left (e.g. nodes.conf). */
    public void start() throws Exception {
        Files.createDirectories(dir);
        Path log = dir.resolve("redis.log");
        Files.deleteIfExists(log);
        List<String> command =
                new ArrayList<>(
                        List.of(
                                Binaries.redisServer().toString(),
                                "--bind",
                                "127.0.0.1",
                                "--save",
                                "",
                                "--appendonly",
                                "no",
                                "--dir",
                                dir.toString(),
                                "--logfile",
                                log.toString()));
        command.addAll(args);
        process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("redis.out").toFile())
                        .start();
        Await.until(
                "redis-server " + port + " ready (see " + log + ")",
                START,
                () -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException(
                                "redis-server "
                                        + port
                                        + " exited: "
                                        + (Files.exists(log) ? Files.readString(log) : "")
                                        + Files.readString(dir.resolve("redis.out")));
                    }
                    return Files.exists(log) && Files.readString(log).contains("Ready to accept")
                            ? true
                            : null;
                });
    }

    public boolean alive() {
        return process != null && process.isAlive();
    }

    /** {@code kill -9}: no shutdown, no last words to the cluster. */
    public void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    /**
     * {@code n} distinct ports of 127.0.0.1 free now, each with its cluster bus port (+10000) free
     * too. The ports lie below 30,000 and the bus ports above, so distinct ports have distinct bus
     * ports.
     */
    public static int[] freePorts(int n) {
        int[] ports = new int[n];
        int found = 0;
        while (found < n) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 30_000);
            if (!taken(ports, found, port) && free(port) && free(port + 10_000)) {
                ports[found++] = port;
            }
        }
        return ports;
    }

    private static boolean taken(int[] ports, int found, int port) {
        for (int i = 0; i < found; i++) {
            if (ports[i] == port) {
                return true;
            }
        }
        return false;
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** A fresh directory under /tmp (short paths: Redis' unix paths and logs stay readable). */
    public static Path tempDir(String name) throws IOException {
        return Files.createTempDirectory(Path.of("/tmp"), name);
    }

    /** Deletes {@code dir} and everything in it. */
    public static void delete(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
