package dev.unread.minicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import dev.unread.kafka.TempDirs;
import dev.unread.testing.Poll;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;

/**
 * The local cluster (what {@code unread local} and {@code unread bench} run the job on) gives
 * RocksDB the managed memory of one deployed TaskManager, not a MiniCluster's 128 MB: the bench
 * measures the job with the block cache it has in production.
 */
class LocalClusterMemoryITCase {

    /** Flink's defaults for what config.yaml leaves out: metaspace and the JVM's overhead. */
    private static final long METASPACE = MemorySize.parse("256m").getBytes();

    private static final double OVERHEAD_FRACTION = 0.1;
    private static final long OVERHEAD_MIN = MemorySize.parse("192m").getBytes();

    private static String get(URI uri) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    @Test
    void theTaskManagerHasTheDeployedManagedMemory() throws Exception {
        Configuration deployed = FlinkConf.load(FlinkConf.findDir(Path.of("")), Map.of());
        long process = deployed.get(TaskManagerOptions.TOTAL_PROCESS_MEMORY).getBytes();
        double fraction = deployed.get(TaskManagerOptions.MANAGED_MEMORY_FRACTION);
        long overhead = Math.max(OVERHEAD_MIN, (long) (process * OVERHEAD_FRACTION));
        long expected = (long) ((process - METASPACE - overhead) * fraction);

        Path dir = TempDirs.create("lcm");
        try (MiniCluster cluster = LocalCluster.start(UnreadConfig.with(Map.of()), 0, dir, 2)) {
            URI rest = cluster.getRestAddress().get();
            // Right after the start the REST API may still answer that its leader is being elected.
            JsonNode taskManagers =
                    Poll.until(
                            "the TaskManager in " + rest + "/taskmanagers",
                            Duration.ofMinutes(1),
                            () -> {
                                JsonNode list =
                                        new ObjectMapper()
                                                .readTree(get(rest.resolve("/taskmanagers")))
                                                .get("taskmanagers");
                                return list != null && list.size() > 0 ? list : null;
                            });

            assertThat(taskManagers).hasSize(1);
            long managed =
                    taskManagers.get(0).get("memoryConfiguration").get("managedMemory").asLong();
            assertThat(managed)
                    .as("the deployed TaskManager's, not a MiniCluster's 128 MB")
                    .isCloseTo(expected, within(MemorySize.parse("1m").getBytes()))
                    .isGreaterThan(MemorySize.parse("128m").getBytes());
        } finally {
            TempDirs.delete(dir);
        }
    }
}
