package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.testing.TestRedis;
import org.junit.jupiter.api.Test;

class RedisSinkSettingsTest {

    @Test
    void aBadUrlFailsWhenTheSinkIsBuiltNotInTheTask() {
        assertThatThrownBy(() -> new RedisCounts(TestRedis.config("redis://cache:port/0", "", 200)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RedisReceipts(TestRedis.config("cache:6379", "", 200)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
