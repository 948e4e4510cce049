package dev.unread.sinks;

import dev.unread.testing.TestRedis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisUrlTest {

    @Test
    void hostPortAndDatabaseAreRead() {
        assertThat(RedisUrl.parse("redis://10.0.0.7:6380/3"))
                .isEqualTo(new RedisUrl("10.0.0.7", 6380, null, null, 3));
    }

    @Test
    void portAndDatabaseDefaultTo6379And0() {
        RedisUrl defaults = new RedisUrl("redis", 6379, null, null, 0);
        assertThat(RedisUrl.parse("redis://redis")).isEqualTo(defaults);
        assertThat(RedisUrl.parse("redis://redis:6379/")).isEqualTo(defaults);
    }

    @Test
    void aPasswordAloneIsForTheDefaultUser() {
        assertThat(RedisUrl.parse("redis://:s3cret@cache:6379/2"))
                .isEqualTo(new RedisUrl("cache", 6379, null, "s3cret", 2));
    }

    @Test
    void userAndPasswordAreReadAndPercentDecoded() {
        assertThat(RedisUrl.parse("redis://unread:p%40ss%3Aw+rd@cache:6379/1"))
                .isEqualTo(new RedisUrl("cache", 6379, "unread", "p@ss:w+rd", 1));
    }

    @Test
    void theTextFormNeverShowsThePassword() {
        assertThat(RedisUrl.parse("redis://unread:s3cret@cache:6379/1").toString())
                .isEqualTo("redis://unread:***@cache:6379/1");
        assertThat(RedisUrl.parse("redis://:s3cret@cache:6379/1").toString())
                .isEqualTo("redis://:***@cache:6379/1");
    }

    @Test
    void malformedUrlsAreRefusedWithoutEchoingThePassword() {
        assertThatThrownBy(() -> RedisUrl.parse("rediss://cache:6379/0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TLS");
        assertThatThrownBy(() -> RedisUrl.parse("http://cache:6379/0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://");
        assertThatThrownBy(() -> RedisUrl.parse("redis://cache:6379/zero"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("database");
        assertThatThrownBy(() -> RedisUrl.parse("redis://s3cret@cache:6379/0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(":password@")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> RedisUrl.parse("redis://:s3cret@cache:6379/x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void aBadUrlFailsWhenTheSinkIsBuiltNotInTheTask() {
        assertThatThrownBy(() -> new RedisCounts(TestRedis.config("redis://cache:port/0", "", 200)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RedisReceipts(TestRedis.config("cache:6379", "", 200)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
