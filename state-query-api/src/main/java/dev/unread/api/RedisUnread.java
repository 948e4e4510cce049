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

    /** Readers listed by {@code GET /api/conversations/{cid}/readers}; the count is exact. */
    static final int MAX_READERS = 100;

    /** Jetty serves many requests at once; more than Jedis' default 8 connections. */
    private static final int MAX_CONNECTIONS = 32;

    private final RedisClient client;
    private final String keyPrefix;

    RedisUnread(ApiConfig config) {
        URI uri = config.redisUri();
        DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(config.timeoutMs)
                .socketTimeoutMillis(config.timeoutMs)
                .database(JedisURIHelper.hasDbIndex(uri) ? JedisURIHelper.getDBIndex(uri) : 0)
                .ssl(JedisURIHelper.isRedisSSLScheme(uri))
                .clientName("unread-api");
        if (JedisURIHelper.getPassword(uri) != null) {
            client.user(JedisURIHelper.getUser(uri)).password(JedisURIHelper.getPassword(uri));
        }
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
            String badge = senders.get(i).get();
            Map<Long, Long> counts = new TreeMap<>();
            conversations.get(i).get()
                    .forEach((c, n) -> counts.put(Long.parseLong(c), Long.parseLong(n)));
            long unreadSenders = badge == null ? 0 : Long.parseLong(badge);
            result.add(new UserUnread(userIds[i], unreadSenders, counts));
        }
        return result;
    }

    /**
     * "Read by N" for {@code seq}: how many readers of the conversation have a cursor at or past
     * it, and the first {@link #MAX_READERS} of them by cursor, in one pipelined round trip.
     */
    ConversationReaders readers(long conversationId, long seq) {
        String key = RedisNames.readersKey(keyPrefix, conversationId);
        String min = Long.toString(seq);
        Response<Long> count;
        Response<List<String>> first;
        try (Pipeline pipeline = client.pipelined()) {
            count = pipeline.zcount(key, min, "+inf");
            first = pipeline.zrangeByScore(key, min, "+inf", 0, MAX_READERS);
            pipeline.sync();
        } catch (JedisDataException e) {
            throw e;
        } catch (JedisException e) {
            throw new DependencyException(DependencyException.REDIS, e);
        }
        List<Long> readers = new ArrayList<>(first.get().size());
        first.get().forEach(id -> readers.add(Long.parseLong(id)));
        return new ConversationReaders(conversationId, seq, count.get(), readers);
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

    /**
     * What {@code GET /api/conversations/{cid}/readers?seq=S} answers: how many participants
     * have read up to S or further, and up to {@link #MAX_READERS} of them, lowest cursor first.
     */
    record ConversationReaders(long conversationId, long seq, long readCount, List<Long> readers) {}
}
