package dev.unread.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * {@link LocalStores} on ports where nothing listens starts a Redis and a MariaDB there, with the
 * configured database and credentials, and removes them on close; where something answers, it
 * starts nothing.
 */
class LocalStoresITCase {

    @Test
    void startsRedisAndMariaDbWhereNothingAnswersAndRemovesThemOnClose() throws Exception {
        int[] ports = RedisProcess.freePorts(2);
        int redisPort = ports[0];
        int mysqlPort = ports[1];
        try (LocalStores stores =
                LocalStores.start(
                        "redis://:red%40pw@127.0.0.1:" + redisPort + "/0",
                        "jdbc:mysql://127.0.0.1:" + mysqlPort + "/chat?useSSL=false",
                        "app",
                        "it's secret")) {
            assertThat(stores.startedRedis()).isTrue();
            assertThat(stores.startedMariaDb()).isTrue();
            assertThat(stores.started())
                    .isEqualTo(
                            "Redis 7.0.15 at 127.0.0.1:"
                                    + redisPort
                                    + " and MariaDB 10.11.5 at 127.0.0.1:"
                                    + mysqlPort);

            try (Jedis jedis = new Jedis("127.0.0.1", redisPort)) {
                assertThatThrownBy(() -> jedis.set("k", "v"))
                        .isInstanceOf(JedisDataException.class)
                        .hasMessageContaining("NOAUTH");
                jedis.auth("red@pw");
                // Sharded Pub/Sub, which the job uses on a Redis Cluster, came with Redis 7.0.
                assertThat(jedis.info("server")).contains("redis_version:7.0.15");
                assertThat(jedis.sendCommand(Protocol.Command.SPUBLISH, "channel", "m"))
                        .isEqualTo(0L);
            }

            try (Connection c =
                            DriverManager.getConnection(
                                    "jdbc:mysql://127.0.0.1:" + mysqlPort + "/chat",
                                    "app",
                                    "it's secret");
                    Statement st = c.createStatement()) {
                st.execute("CREATE TABLE t (id BIGINT PRIMARY KEY)");
                st.execute("INSERT INTO t VALUES (7)");
                try (ResultSet rs = st.executeQuery("SELECT id, VERSION() FROM t")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isEqualTo(7);
                    assertThat(rs.getString(2)).startsWith("10.11.5-MariaDB");
                }
            }
            assertThatThrownBy(
                            () ->
                                    DriverManager.getConnection(
                                            "jdbc:mysql://127.0.0.1:" + mysqlPort + "/chat",
                                            "app",
                                            "wrong"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("Access denied");
        }
        assertThat(listening(redisPort)).as("Redis stopped").isFalse();
        assertThat(listening(mysqlPort)).as("MariaDB stopped").isFalse();
    }

    @Test
    void startsNothingWhereSomethingAnswers() throws Exception {
        try (ServerSocket redis = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                ServerSocket mysql = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                LocalStores stores =
                        LocalStores.start(
                                "redis://127.0.0.1:" + redis.getLocalPort() + "/0",
                                "jdbc:mysql://127.0.0.1:" + mysql.getLocalPort() + "/chat",
                                "root",
                                "")) {
            assertThat(stores.startedRedis()).isFalse();
            assertThat(stores.startedMariaDb()).isFalse();
            assertThat(stores.started()).isEmpty();
        }
    }

    @Test
    void leavesAddressesElsewhereAndClustersToTheirServers() throws Exception {
        int port = RedisProcess.freePorts(1)[0];
        try (LocalStores stores =
                LocalStores.start(null, "jdbc:mysql://db.invalid:" + port + "/chat", "root", "")) {
            assertThat(stores.started()).isEmpty();
        }
        assertThat(listening(port)).isFalse();
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
