package dev.unread.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The ports picked for a local Redis Cluster's nodes are distinct, bus ports included. */
class FreePortsTest {

    @Test
    void manyPortsAtOnceAreDistinct() {
        // A fifth of the range: picked at random without the check, some would repeat.
        int[] ports = RedisProcess.freePorts(2_000);
        assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(ports.length);
        for (int port : ports) {
            assertThat(port).isBetween(20_000, 29_999);
        }
    }
}
