package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.events.UnreadCount;
import dev.unread.testing.TestRedis;
import dev.unread.testing.TlsRedisServer;
import java.io.IOException;
import java.util.Map;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * The counts sink on a Redis that speaks only TLS and knows only an ACL user: it writes with the
 * right user, password and CA, and a wrong password or an untrusted certificate is an error that
 * says so, after the usual retries rather than a hang.
 */
class RedisTlsTest {

    @RegisterExtension static final TlsRedisServer TLS = new TlsRedisServer();

    private static UnreadConfig config(String url, String caFile) {
        return UnreadConfig.with(
                Map.of(
                        "redis-url", url,
                        "redis-ca-file", caFile,
                        "redis-key-prefix", TestRedis.uniquePrefix()));
    }

    @Test
    void theSinkWritesOverTlsAsAnAclUser() throws Exception {
        UnreadConfig config = config(TLS.url(), TLS.caFile().toString());
        try (SinkWriter<UnreadCount> writer =
                new RedisCounts(config).createWriter(new TestWriterContext())) {
            writer.write(UnreadCount.senders(10086, 3), null);
            writer.flush(false);
        }
        try (Jedis redis = config.redisEndpoint().connect("test", 5000)) {
            String key = Count.SENDERS.key(config.redisKeyPrefix, 10086);
            assertThat(redis.get(key)).isEqualTo("3");
            assertThat(redis.aclWhoAmI()).isEqualTo(TlsRedisServer.USER);
            redis.del(key);
        }
    }

    @Test
    @Timeout(60)
    void aWrongPasswordIsAClearErrorWithoutThePassword() throws Exception {
        String wrong = "not-" + TLS.password();
        UnreadConfig config = config(TLS.url(wrong), TLS.caFile().toString());
        try (SinkWriter<UnreadCount> writer =
                new RedisCounts(config).createWriter(new TestWriterContext())) {
            writer.write(UnreadCount.senders(10086, 3), null);
            assertThatThrownBy(() -> writer.flush(false))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("WRONGPASS")
                    .hasMessageNotContaining(wrong)
                    .hasMessageContaining(TlsRedisServer.USER + ":***@");
        }
    }

    @Test
    @Timeout(60)
    void aServerCertificateNoTrustedCaSignedIsRefused() throws Exception {
        UnreadConfig config = config(TLS.url(), "");
        try (SinkWriter<UnreadCount> writer =
                new RedisCounts(config).createWriter(new TestWriterContext())) {
            writer.write(UnreadCount.senders(10086, 3), null);
            assertThatThrownBy(() -> writer.flush(false))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("PKIX");
        }
    }
}
