package dev.unread.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.kafka.TempDirs;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.PrimitiveIterator;
import java.util.stream.IntStream;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;

/**
 * The UI's port is chosen before the cluster starts; a socket that takes it in between (an outgoing
 * connection of a Kafka or Redis client, another test's server) must not fail the start.
 */
class LocalClusterPortITCase {

    @Test
    void aChosenPortTakenBeforeTheStartIsReplacedByTheNext() throws Exception {
        Path dir = TempDirs.create("lcp");
        try (ServerSocket taken =
                new ServerSocket(0, 1, InetAddress.getByName(LocalCluster.HOST))) {
            int free = LocalCluster.freePort();
            PrimitiveIterator.OfInt ports = IntStream.of(taken.getLocalPort(), free).iterator();
            try (MiniCluster cluster =
                    LocalCluster.start(
                            UnreadConfig.with(Map.of()),
                            ports::nextInt,
                            2,
                            dir,
                            1,
                            UnreadJob.COUNTER_NAME)) {
                URI rest = cluster.getRestAddress().get();
                assertThat(rest.getPort()).isEqualTo(free);
            }
        } finally {
            TempDirs.delete(dir);
        }
    }
}
