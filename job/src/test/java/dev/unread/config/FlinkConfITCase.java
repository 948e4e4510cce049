package dev.unread.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.testing.Poll;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployed configuration runs: a Flink cluster started with flink-conf/config.yaml (only paths
 * and ports overridden) runs a keyed job on RocksDB and serves Prometheus metrics.
 */
class FlinkConfITCase {

    @Test
    void aClusterOnTheDeployedConfigurationRunsKeyedStateAndServesMetrics(@TempDir Path data)
            throws Exception {
        int metricsPort = freePort();
        Map<String, String> overrides = new HashMap<>(FlinkConf.localPaths(data));
        overrides.put("metrics.reporter.prom.port", String.valueOf(metricsPort));
        overrides.put(RestOptions.PORT.key(), "0");
        Configuration conf = FlinkConf.load(FlinkConf.findDir(), overrides);

        try (MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(conf)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(2)
                                .build())) {
            cluster.start();

            StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, 2);
            List<Long> counts = new ArrayList<>();
            try (CloseableIterator<Long> out =
                    env.fromSequence(1, 1000)
                            .keyBy(n -> n % 10, Types.LONG)
                            .map(new CountPerKey())
                            .executeAndCollect("flink-conf smoke")) {
                out.forEachRemaining(counts::add);
            }
            // Each of 10 keys saw 100 numbers: the keyed state kept a count per key.
            assertThat(counts).hasSize(1000);
            assertThat(counts.stream().mapToLong(Long::longValue).max()).hasValue(100);

            String metrics = scrape(metricsPort, "flink_jobmanager_numRegisteredTaskManagers");
            assertThat(metrics).contains("flink_taskmanager_Status_JVM_Memory_Heap_Used");
        }
    }

    /** Emits, per element, how many elements its key has seen so far. */
    private static final class CountPerKey extends RichMapFunction<Long, Long> {
        private transient ValueState<Long> seen;

        @Override
        public void open(OpenContext openContext) {
            seen = getRuntimeContext().getState(new ValueStateDescriptor<>("seen", Types.LONG));
        }

        @Override
        public Long map(Long value) throws Exception {
            long count = seen.value() == null ? 1 : seen.value() + 1;
            seen.update(count);
            return count;
        }
    }

    private static String scrape(int port, String expected) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest request =
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build();
        return Poll.until(
                expected + " on port " + port,
                Duration.ofSeconds(30),
                () -> {
                    try {
                        String body =
                                http.send(request, HttpResponse.BodyHandlers.ofString()).body();
                        return body.contains(expected) ? body : null;
                    } catch (IOException notYetListening) {
                        // The reporter starts with the cluster's metric registry.
                        return null;
                    }
                });
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
