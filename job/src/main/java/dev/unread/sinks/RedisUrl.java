package dev.unread.sinks;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;

/**
 * Where the Redis sinks connect: {@code redis://[[user]:password@]host[:port][/db]}. The port
 * defaults to 6379 and the database to 0; user and password may be percent-encoded. A password
 * alone is written {@code :password@} (Redis' {@code default} user), so that a bare {@code
 * secret@} is never mistaken for a user name.
 *
 * @param user null for the {@code default} user
 * @param password null when the server needs none
 */
public record RedisUrl(String host, int port, String user, String password, int database) {

    static final int DEFAULT_PORT = 6379;

    public static RedisUrl parse(String url) {
        URI uri;
        try {
            uri = new URI(url.trim());
        } catch (URISyntaxException e) {
            throw invalid(url, "not a URL");
        }
        if (!"redis".equals(uri.getScheme())) {
            throw invalid(url, "the scheme must be redis:// (TLS is not supported)");
        }
        if (uri.getHost() == null) {
            throw invalid(url, "no host");
        }
        String user = null;
        String password = null;
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                throw invalid(url, "write the password as :password@ or user:password@");
            }
            user = colon == 0 ? null : decode(userInfo.substring(0, colon));
            password = decode(userInfo.substring(colon + 1));
        }
        return new RedisUrl(
                uri.getHost(),
                uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort(),
                user,
                password,
                database(url, uri.getPath()));
    }

    /** Settings for a connection to this server, named {@code clientName} in CLIENT LIST. */
    public JedisClientConfig clientConfig(String clientName, int timeoutMs) {
        return DefaultJedisClientConfig.builder()
                .user(user)
                .password(password)
                .database(database)
                .connectionTimeoutMillis(timeoutMs)
                .socketTimeoutMillis(timeoutMs)
                .clientName(clientName)
                // The server's default protocol (RESP2 unless it says otherwise), as every command
                // here expects; left to auto-negotiation, Jedis warns on every connection that it
                // cannot negotiate RESP3 and falls back to this anyway.
                .serverDefaultProtocol()
                .build();
    }

    /** A new single connection, for callers that pipeline on it themselves. */
    public Jedis connect(String clientName, int timeoutMs) {
        return connect(clientConfig(clientName, timeoutMs));
    }

    Jedis connect(JedisClientConfig config) {
        return new Jedis(new HostAndPort(host, port), config);
    }

    private static int database(String url, String path) {
        if (path == null || path.isEmpty() || path.equals("/")) {
            return 0;
        }
        int db;
        try {
            db = Integer.parseInt(path.substring(1));
        } catch (NumberFormatException e) {
            db = -1;
        }
        if (db < 0) {
            throw invalid(url, "the path must be a database number such as /0");
        }
        return db;
    }

    /** Percent-decoding only: in a URL's user info a '+' is a plus, not a space. */
    private static String decode(String raw) {
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static IllegalArgumentException invalid(String url, String why) {
        return new IllegalArgumentException(
                "invalid Redis URL " + mask(url) + ": " + why
                        + " (expected redis://[[user]:password@]host:port/db)");
    }

    /** The URL minus its user info, which may hold a password: messages end up in logs. */
    private static String mask(String url) {
        return url.replaceAll("//[^/@]*@", "//***@");
    }

    @Override
    public String toString() {
        return "redis://"
                + (password == null ? "" : (user == null ? "" : user) + ":***@")
                + host + ":" + port + "/" + database;
    }
}
