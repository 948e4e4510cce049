package dev.unread.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The broker's listeners get distinct ports: Kafka refuses two listeners on one port. */
class EmbeddedKafkaPortsTest {

    @Test
    void portsPickedTogetherAreDistinct() throws Exception {
        for (int i = 0; i < 200; i++) {
            int[] ports = EmbeddedKafka.freePorts(3);
            assertThat(Arrays.stream(ports).distinct().count())
                    .as("%s", Arrays.toString(ports))
                    .isEqualTo(3);
        }
    }
}
