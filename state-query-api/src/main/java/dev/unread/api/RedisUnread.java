package dev.unread.api;

import dev.unread.contract.RedisNames;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisURIHelper;

/** Reads the counts the job keeps in Redis (docs/contract.md, "Redis"). */
final class RedisUnread implements AutoCloseable {

    /** Jetty serves many requests at once; more than Jedis' default 8 connections. */
    private static final int MAX_CONNECTIONS = 32;

    private final RedisClient client;
    private final String keyPrefix;

    RedisUnread(ApiConfig config) {
        URI uri = config.redisUri();
        DefaultJedisClientConfig.Builder client = clientConfig(config, "unread-api");
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(MAX_CONNECTIONS);
        pool.setMaxIdle(MAX_CONNECTIONS);
        pool.setMaxWait(Duration.ofMillis(config.timeoutMs));
        this.client = RedisClient.builder()
                .hostAndPort(JedisURIHelper.getHostAndPort(uri))
                .clientConfig(client.build())
                .poolConfig(pool)
                .build();
        this.keyPrefix = config.redisKeyPrefix;
    }

    /**
     * The connection settings of {@code config}'s Redis URL: database, TLS, user and password,
     * with {@code config.timeoutMs} for connecting and reading.
     */
    static DefaultJedisClientConfig.Builder clientConfig(ApiConfig config, String clientName) {
        URI uri = config.redisUri();
        DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(config.timeoutMs)
                .socketTimeoutMillis(config.timeoutMs)
                .database(JedisURIHelper.hasDbIndex(uri) ? JedisURIHelper.getDBIndex(uri) : 0)
                .ssl(JedisURIHelper.isRedisSSLScheme(uri))
                .clientName(clientName);
        if (JedisURIHelper.getPassword(uri) != null) {
            client.user(JedisURIHelper.getUser(uri)).password(JedisURIHelper.getPassword(uri));
        }
        return client;
    }

    /**
     * A user's counts with the version of the latest change in them, for a stream's snapshot:
     * the version is read before the counts in the same pipeline, and the job writes it after
     * them, so the counts are at least as new as the version (0: no change for a day).
     */
    Snapshot snapshot(long userId) {
        Response<String> version;
        Response<String> senders;
        Response<Map<String, String>> conversations;
        try (Pipeline pipeline = client.pipelined()) {
            version = pipeline.get(RedisNames.versionKey(keyPrefix, userId));
            senders = pipeline.get(RedisNames.sendersKey(keyPrefix, userId));
            conversations = pipeline.hgetAll(RedisNames.conversationsKey(keyPrefix, userId));
            pipeline.sync();
        } catch (JedisDataException e) {
            throw e;
        } catch (JedisException e) {
            throw new DependencyException(DependencyException.REDIS, e);
        }
        return new Snapshot(
                version.get() == null ? 0 : Long.parseLong(version.get()),
                userUnread(userId, senders.get(), conversations.get()));
    }

    /**
     * The badge and the per-conversation counts of each user, in the order asked, read in one
     * pipelined round trip (a GET and an HGETALL per user).
     */
    List<UserUnread> read(long[] userIds) {
        List<Response<String>> senders = new ArrayList<>(userIds.length);
        List<Response<Map<String, String>>> conversations = new ArrayList<>(userIds.length);
        try (Pipeline pipeline = client.pipelined()) {
            for (long userId : userIds) {
                senders.add(pipeline.get(RedisNames.sendersKey(keyPrefix, userId)));
                conversations.add(pipeline.hgetAll(RedisNames.conversationsKey(keyPrefix, userId)));
            }
            pipeline.sync();
        } catch (JedisDataException e) {
            // Redis answered, with an error: not an outage, so a 500 rather than a 503.
            throw e;
        } catch (JedisException e) {
            throw new DependencyException(DependencyException.REDIS, e);
        }
        List<UserUnread> result = new ArrayList<>(userIds.length);
        for (int i = 0; i < userIds.length; i++) {
            result.add(userUnread(userIds[i], senders.get(i).get(), conversations.get(i).get()));
        }
        return result;
    }

    private static UserUnread userUnread(
            long userId, String badge, Map<String, String> conversations) {
        Map<Long, Long> counts = new TreeMap<>();
        conversations.forEach((c, n) -> counts.put(Long.parseLong(c), Long.parseLong(n)));
        return new UserUnread(userId, badge == null ? 0 : Long.parseLong(badge), counts);
    }

    void ping() {
        try {
            client.ping();
        } catch (JedisException e) {
            throw new DependencyException(DependencyException.REDIS, e);
        }
    }

    @Override
    public void close() {
        client.close();
    }

    /**
     * What {@code GET /api/users/{userId}/unread} answers: distinct senders since the inbox was
     * last opened, and unread messages per conversation id (absent: 0).
     */
    record UserUnread(long userId, long unreadSenders, Map<Long, Long> conversations) {}

    /** A user's counts and the version of the latest change they hold. */
    record Snapshot(long version, UserUnread counts) {}
}
