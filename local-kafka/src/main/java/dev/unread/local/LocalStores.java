package dev.unread.local;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;

/**
 * The Redis and the MySQL of the local stack and of the tests: the servers that answer at the
 * configured addresses, as they do wherever Redis and MariaDB are installed; where nothing answers
 * at an address of this machine, a Redis ({@link RedisProcess}) or a MariaDB ({@link
 * MariaDbProcess}) of its own, from the binaries Maven Central ships, started on that very port, so
 * that the configuration stays true and nothing but Java and Maven is needed. What this started,
 * {@link #close()} stops, and deletes its data.
 *
 * <p>An address elsewhere, a Redis Cluster or TLS is always left to the configured servers: a
 * server standing in for one of those would hide a mistake rather than help.
 */
public final class LocalStores implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LocalStores.class);

    /** A server on this machine accepts a connection at once; refused is the usual answer. */
    private static final int CONNECT_TIMEOUT_MS = 1000;

    private static final int REDIS_PORT = 6379;
    private static final int MYSQL_PORT = 3306;
    private static final Set<String> LOOPBACK = Set.of("127.0.0.1", "localhost", "::1", "[::1]");

    private final Path dir;

    /** Null when the configured Redis answered (or is not ours to stand in for). */
    private final RedisProcess redis;

    /** Null when the configured MySQL answered (or is not ours to stand in for). */
    private final MariaDbProcess mariaDb;

    private LocalStores(Path dir, RedisProcess redis, MariaDbProcess mariaDb) {
        this.dir = dir;
        this.redis = redis;
        this.mariaDb = mariaDb;
    }

    /**
     * Starts a Redis where {@code redisUrl} (null: a Redis Cluster is configured) names a port of
     * this machine that nothing answers on, with the URL's password (and user) if it has one, and a
     * MariaDB where {@code jdbcUrl} does, with the URL's database and {@code jdbcUser}, whose
     * password is {@code jdbcPassword}.
     */
    public static LocalStores start(
            String redisUrl, String jdbcUrl, String jdbcUser, String jdbcPassword)
            throws Exception {
        URI redisUri = redisUrl == null ? null : URI.create(redisUrl.trim());
        boolean startRedis =
                redisUri != null
                        && "redis".equals(redisUri.getScheme())
                        && unanswered(redisUri, REDIS_PORT);
        URI jdbcUri =
                jdbcUrl.startsWith("jdbc:mysql:") ? URI.create(jdbcUrl.substring(5).trim()) : null;
        boolean startMariaDb = jdbcUri != null && unanswered(jdbcUri, MYSQL_PORT);
        if (!startRedis && !startMariaDb) {
            return new LocalStores(null, null, null);
        }
        Path dir = RedisProcess.tempDir("unread-stores-");
        RedisProcess redis = null;
        MariaDbProcess mariaDb = null;
        try {
            if (startRedis) {
                int port = port(redisUri, REDIS_PORT);
                LOG.info(
                        "Nothing answers at {}:{}: starting a Redis there",
                        redisUri.getHost(),
                        port);
                redis =
                        RedisProcess.start(
                                port,
                                dir.resolve("redis"),
                                List.of("--port", String.valueOf(port)));
                grantRedis(port, redisUri.getRawUserInfo());
            }
            if (startMariaDb) {
                int port = port(jdbcUri, MYSQL_PORT);
                LOG.info(
                        "Nothing answers at {}:{}: starting a MariaDB there",
                        jdbcUri.getHost(),
                        port);
                mariaDb = MariaDbProcess.start(port, dir.resolve("mariadb"));
                grantMySql(mariaDb, database(jdbcUri), jdbcUser, jdbcPassword);
            }
            return new LocalStores(dir, redis, mariaDb);
        } catch (Exception | Error e) {
            new LocalStores(dir, redis, mariaDb).close();
            throw e;
        }
    }

    /** True when this started a Redis. */
    public boolean startedRedis() {
        return redis != null;
    }

    /** True when this started a MariaDB. */
    public boolean startedMariaDb() {
        return mariaDb != null;
    }

    /**
     * What this started, for a line a person reads, e.g. {@code Redis 7.0.15 at 127.0.0.1:6379 and
     * MariaDB 10.11.5 at 127.0.0.1:3306}; empty when the configured servers answered.
     */
    public String started() {
        List<String> started = new ArrayList<>();
        if (redis != null) {
            started.add("Redis " + Binaries.REDIS_VERSION + " at 127.0.0.1:" + redis.port);
        }
        if (mariaDb != null) {
            started.add("MariaDB " + Binaries.MARIADB_VERSION + " at 127.0.0.1:" + mariaDb.port);
        }
        return String.join(" and ", started);
    }

    /** Stops what this started and deletes its data; the configured servers are left alone. */
    @Override
    public void close() {
        try {
            if (redis != null) {
                redis.close();
            }
        } catch (InterruptedException e) {
            // Stopping goes on regardless; the caller's thread keeps its interrupt.
            Thread.currentThread().interrupt();
        }
        if (mariaDb != null) {
            mariaDb.close();
        }
        RedisProcess.delete(dir);
    }

    /** True when {@code uri} names a port of this machine that refuses connections. */
    private static boolean unanswered(URI uri, int defaultPort) {
        if (uri.getHost() == null || !LOOPBACK.contains(uri.getHost())) {
            return false;
        }
        try (Socket socket = new Socket()) {
            socket.connect(
                    new InetSocketAddress(uri.getHost(), port(uri, defaultPort)),
                    CONNECT_TIMEOUT_MS);
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private static int port(URI uri, int defaultPort) {
        return uri.getPort() < 0 ? defaultPort : uri.getPort();
    }

    /** {@code jdbc:mysql://host:port/db?...}'s {@code db}; empty when the URL names none. */
    private static String database(URI jdbcUri) {
        String path = jdbcUri.getPath() == null ? "" : jdbcUri.getPath();
        return path.startsWith("/") ? path.substring(1) : path;
    }

    /**
     * The URL's credentials on the new Redis: a password alone for the default user, a user with
     * its password for every key and channel. Set by commands, not flags, so that no process list
     * shows them.
     */
    private static void grantRedis(int port, String rawUserInfo) {
        if (rawUserInfo == null || rawUserInfo.isEmpty()) {
            return;
        }
        int colon = rawUserInfo.indexOf(':');
        String user = decode(rawUserInfo.substring(0, Math.max(colon, 0)));
        String password = decode(rawUserInfo.substring(colon + 1));
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            if (user.isEmpty() || user.equals("default")) {
                jedis.configSet("requirepass", password);
            } else {
                jedis.aclSetUser(user, "on", ">" + password, "~*", "&*", "+@all");
            }
        }
    }

    /** The configured database, and the configured user with its password and every privilege. */
    private static void grantMySql(
            MariaDbProcess mariaDb, String database, String user, String password)
            throws Exception {
        try (Connection c = mariaDb.root();
                Statement st = c.createStatement()) {
            if (!database.isEmpty()) {
                st.execute("CREATE DATABASE IF NOT EXISTS `" + database.replace("`", "``") + "`");
            }
            if (!user.equals("root") || !password.isEmpty()) {
                // The server resolves no names: a client of 127.0.0.1 is that host, not localhost.
                String account = "'" + literal(user) + "'@'127.0.0.1'";
                st.execute("CREATE USER IF NOT EXISTS " + account);
                st.execute("ALTER USER " + account + " IDENTIFIED BY '" + literal(password) + "'");
                st.execute("GRANT ALL PRIVILEGES ON *.* TO " + account + " WITH GRANT OPTION");
            }
        }
    }

    private static String literal(String text) {
        return text.replace("\\", "\\\\").replace("'", "''");
    }

    private static String decode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
