package dev.unread.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;

class RedisEndpointTest {

    private static RedisEndpoint url(String url) {
        return RedisEndpoint.of(url, "", "");
    }

    @Test
    void hostPortAndDatabaseComeFromTheUrl() {
        RedisEndpoint endpoint = url("redis://10.0.0.7:6380/3");
        assertThat(endpoint.node()).isEqualTo(new HostAndPort("10.0.0.7", 6380));
        assertThat(endpoint.clientConfig("t", 1000).getDatabase()).isEqualTo(3);
        assertThat(endpoint.isCluster()).isFalse();
        assertThat(endpoint.tls()).isFalse();
    }

    @Test
    void portAndDatabaseHaveDefaults() {
        for (String url : List.of("redis://redis", "redis://redis:6379/")) {
            assertThat(url(url).node()).isEqualTo(new HostAndPort("redis", 6379));
            assertThat(url(url).clientConfig("t", 1000).getDatabase()).isZero();
        }
    }

    @Test
    void aPasswordAloneIsForTheDefaultUser() {
        JedisClientConfig config = url("redis://:s3cret@cache:6379/2").clientConfig("t", 1000);
        assertThat(config.getUser()).isNull();
        assertThat(config.getPassword()).isEqualTo("s3cret");
    }

    @Test
    void anAclUserAndPasswordArePercentDecoded() {
        JedisClientConfig config =
                url("redis://unread:p%40ss%3Aw+rd@cache:6379/1").clientConfig("t", 1000);
        assertThat(config.getUser()).isEqualTo("unread");
        assertThat(config.getPassword()).isEqualTo("p@ss:w+rd");
    }

    @Test
    void redissMeansTlsWithTheHostNameChecked() {
        JedisClientConfig config = url("rediss://cache:6380/0").clientConfig("t", 1000);
        assertThat(config.isSsl()).isTrue();
        assertThat(config.getSslParameters().getEndpointIdentificationAlgorithm())
                .isEqualTo("HTTPS");
    }

    @Test
    void clusterNodesMakeItACluster() {
        RedisEndpoint endpoint =
                RedisEndpoint.of(
                        "rediss://unread:s3cret@ignored:1/0",
                        " 10.0.0.1:7000, 10.0.0.2:7001 ,",
                        "");
        assertThat(endpoint.isCluster()).isTrue();
        assertThat(endpoint.clusterNodes())
                .containsExactly(
                        new HostAndPort("10.0.0.1", 7000), new HostAndPort("10.0.0.2", 7001));
        assertThat(endpoint.clientConfig("t", 1000).getUser()).isEqualTo("unread");
        assertThat(endpoint.toString())
                .isEqualTo("rediss://unread:***@cluster[10.0.0.1:7000, 10.0.0.2:7001]");
    }

    @Test
    void toStringHidesThePassword() {
        assertThat(url("redis://unread:s3cret@cache:6379/1").toString())
                .isEqualTo("redis://unread:***@cache:6379/1");
        assertThat(url("redis://:s3cret@cache:6379/1").toString())
                .isEqualTo("redis://:***@cache:6379/1");
    }

    @Test
    void malformedSettingsAreRefusedWithoutEchoingThePassword() {
        assertThatThrownBy(() -> url("http://cache:6379/0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://");
        assertThatThrownBy(() -> url("redis://cache:6379/zero"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("database");
        assertThatThrownBy(() -> url("redis://s3cret@cache:6379/0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(":password@")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> url("redis://:s3cret@cache:6379/x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> RedisEndpoint.of("redis://:s3cret@c/1", "10.0.0.1:7000", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("database 0")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> RedisEndpoint.of("redis://c/0", "10.0.0.1", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("host:port");
        assertThatThrownBy(() -> RedisEndpoint.of("rediss://c/0", "", "/nonexistent/ca.pem"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/nonexistent/ca.pem");
    }
}
