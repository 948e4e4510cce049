package dev.unread.local;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One MariaDB server, the one Maven Central ships ({@link Binaries#mariaDbBase()}), on 127.0.0.1
 * with a fresh data directory under {@code dir}: root without a password, as Debian's MariaDB
 * answers over TCP to the tests. Started in the foreground so that the caller holds its process;
 * {@link #close()} shuts it down. The caller deletes {@code dir}.
 */
public final class MariaDbProcess implements AutoCloseable {

    private static final Duration INSTALL = Duration.ofMinutes(2);
    private static final Duration START = Duration.ofSeconds(60);
    private static final Duration STOP = Duration.ofSeconds(30);

    public final int port;
    private final Path dir;
    private final Process process;

    private MariaDbProcess(int port, Path dir, Process process) {
        this.port = port;
        this.dir = dir;
        this.process = process;
    }

    /**
     * Creates the system tables in {@code dir}/data (mariadb-install-db), starts the server on
     * {@code port} and waits until root can connect.
     */
    public static MariaDbProcess start(int port, Path dir) throws Exception {
        Path base = Binaries.mariaDbBase();
        Path data = dir.resolve("data");
        Files.createDirectories(dir);
        // mariadbd refuses to run as root unless told to; as anyone else the flag only warns.
        String user = "--user=" + System.getProperty("user.name");
        List<String> common =
                List.of(
                        "--no-defaults",
                        "--basedir=" + base,
                        "--datadir=" + data,
                        // No reverse lookups: a machine or namespace without DNS starts as fast.
                        "--skip-name-resolve",
                        user);
        Path installLog = dir.resolve("install.log");
        List<String> installCommand =
                new ArrayList<>(
                        List.of(
                                "sh",
                                base.resolve("scripts/mariadb-install-db").toString(),
                                "--auth-root-authentication-method=normal",
                                "--skip-test-db"));
        installCommand.addAll(common);
        Process install =
                new ProcessBuilder(installCommand)
                        .redirectErrorStream(true)
                        .redirectOutput(installLog.toFile())
                        .start();
        if (!install.waitFor(INSTALL.toSeconds(), TimeUnit.SECONDS)) {
            install.destroyForcibly();
            throw new IllegalStateException("mariadb-install-db did not finish, see " + installLog);
        }
        if (install.exitValue() != 0) {
            throw new IllegalStateException(
                    "mariadb-install-db failed: " + Files.readString(installLog));
        }
        Path log = dir.resolve("mariadb.log");
        List<String> serverCommand =
                new ArrayList<>(List.of(base.resolve("bin/mariadbd").toString()));
        serverCommand.addAll(common);
        serverCommand.addAll(
                List.of(
                        "--port=" + port,
                        "--bind-address=127.0.0.1",
                        "--socket=" + dir.resolve("mariadb.sock"),
                        "--log-error=" + log));
        Process server =
                new ProcessBuilder(serverCommand)
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("mariadb.out").toFile())
                        .start();
        MariaDbProcess mariaDb = new MariaDbProcess(port, dir, server);
        try {
            Await.until(
                    "MariaDB " + port + " accepting connections (see " + log + ")",
                    START,
                    () -> {
                        if (!server.isAlive()) {
                            throw new IllegalStateException(
                                    "mariadbd "
                                            + port
                                            + " exited: "
                                            + (Files.exists(log) ? Files.readString(log) : ""));
                        }
                        try (Connection c = mariaDb.root()) {
                            return true;
                        } catch (SQLException e) {
                            return null;
                        }
                    });
            return mariaDb;
        } catch (Exception | Error e) {
            mariaDb.close();
            throw e;
        }
    }

    /** {@code jdbc:mysql://127.0.0.1:port/}. */
    public String serverUrl() {
        return "jdbc:mysql://127.0.0.1:" + port + "/";
    }

    /** A connection as root, to create what the configured settings name. */
    public Connection root() throws SQLException {
        return DriverManager.getConnection(serverUrl(), "root", "");
    }

    /**
     * Shuts the server down (SIGTERM, as its service would), killing it if that takes too long or
     * the caller is interrupted: no server outlives its caller.
     */
    @Override
    public void close() {
        process.destroy();
        try {
            if (process.waitFor(STOP.toSeconds(), TimeUnit.SECONDS)) {
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
    }

    @Override
    public String toString() {
        return "MariaDB " + Binaries.MARIADB_VERSION + " at 127.0.0.1:" + port + " (" + dir + ")";
    }
}
