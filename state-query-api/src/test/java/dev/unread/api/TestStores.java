package dev.unread.api;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.UUID;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The shared Redis and MariaDB on 127.0.0.1, isolated for one test class: Redis keys under a random
 * prefix and a database of its own with the job's tables (docs/contract.md), both removed by {@link
 * #close()}. Other helpers' tests use the same servers at the same time.
 */
final class TestStores implements AutoCloseable {

    static final String REDIS_URL = "redis://127.0.0.1:6379/0";
    private static final String SERVER = "jdbc:mysql://127.0.0.1:3306/";

    final String keyPrefix = "test:" + UUID.randomUUID() + ":";
    final String database =
            "unread_api_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    final RedisClient redis = RedisClient.create(REDIS_URL);

    TestStores() throws SQLException {
        sql("CREATE DATABASE " + database);
        sql(
                "CREATE TABLE "
                        + database
                        + ".user_activity ("
                        + " user_id BIGINT PRIMARY KEY,"
                        + " last_read_at DATETIME(3) NOT NULL,"
                        + " updated_at DATETIME(3) NOT NULL)");
        sql(
                "CREATE TABLE "
                        + database
                        + ".conversation_member ("
                        + " conversation_id BIGINT NOT NULL,"
                        + " user_id BIGINT NOT NULL,"
                        + " last_read_seq BIGINT NOT NULL DEFAULT 0,"
                        + " unread_count INT NOT NULL DEFAULT 0,"
                        + " PRIMARY KEY (conversation_id, user_id),"
                        + " KEY ix_conversation_member_user (user_id))");
    }

    String jdbcUrl() {
        return SERVER + database;
    }

    /**
     * Settings pointing at these stores and the in-JVM broker, on a free port; without rate limits:
     * every test calls from 127.0.0.1 and faster than any user (RateLimitsITCase turns them on).
     */
    ApiConfig.Builder config(String readsTopic) {
        return ApiConfig.builder()
                .port(0)
                .userWritesPerSecond(0)
                .userStreamOpensPerMinute(0)
                .addressRequestsPerSecond(0)
                .redisUrl(REDIS_URL)
                .redisKeyPrefix(keyPrefix)
                .jdbcUrl(jdbcUrl())
                .kafkaBootstrap(KafkaBroker.bootstrapServers())
                .readsTopic(readsTopic);
    }

    /** Redis settings alone, under this class's key prefix: for the parts that need no server. */
    ApiConfig redisConfig() {
        return ApiConfig.builder().redisUrl(REDIS_URL).redisKeyPrefix(keyPrefix).build();
    }

    /** The API's Redis reads and writes under this class's key prefix; the caller closes it. */
    RedisUnread redisUnread() {
        return new RedisUnread(redisConfig(), new ApiMetrics());
    }

    void sql(String statement) throws SQLException {
        try (Connection c = DriverManager.getConnection(SERVER, "root", "");
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            String cursor = ScanParams.SCAN_POINTER_START;
            ScanParams match = new ScanParams().match(keyPrefix + "*").count(1000);
            do {
                ScanResult<String> page = redis.scan(cursor, match);
                Set<String> keys = Set.copyOf(page.getResult());
                if (!keys.isEmpty()) {
                    redis.del(keys.toArray(new String[0]));
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            redis.close();
        } finally {
            sql("DROP DATABASE IF EXISTS " + database);
        }
    }
}
