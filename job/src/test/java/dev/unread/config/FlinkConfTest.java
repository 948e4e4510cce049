package dev.unread.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DelegatingConfiguration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * flink-conf/config.yaml read back through Flink 2.2's typed options: a key Flink does not know,
 * misspelt or renamed in a Flink upgrade, would otherwise be ignored without a word.
 */
class FlinkConfTest {

    private static final String PROM = "metrics.reporter.prom.";

    /** The Prometheus reporter's port, a raw key of its factory (no typed option exists). */
    private static final ConfigOption<String> PROM_PORT =
            ConfigOptions.key("port").stringType().noDefaultValue();

    private final Configuration conf = FlinkConf.load(FlinkConf.findDir(), Map.of());
    private final Set<String> checked = new TreeSet<>();

    @Test
    void everyKeyInTheFileIsAFlinkOptionWithTheIntendedValue() {
        expect(StateBackendOptions.STATE_BACKEND, "rocksdb");
        expect(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        expect(CheckpointingOptions.CHECKPOINTS_DIRECTORY, "file:///flink-data/checkpoints");
        expect(CheckpointingOptions.SAVEPOINT_DIRECTORY, "file:///flink-data/savepoints");
        expect(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
        expect(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(10));
        expect(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        expect(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 3);
        expect(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, Duration.ofSeconds(5));
        expect(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofMinutes(10));
        expect(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, 3);
        expect(CheckpointingOptions.ENABLE_UNALIGNED, true);
        expect(ExecutionOptions.SNAPSHOT_COMPRESSION, true);
        expect(ExecutionOptions.BUFFER_TIMEOUT, Duration.ofMillis(20));
        expect(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, true);

        expect(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
        expect(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
                Duration.ofSeconds(1));
        expect(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF,
                Duration.ofMinutes(1));
        expect(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER, 2.0);
        expect(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD,
                Duration.ofMinutes(10));
        expect(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR, 0.1);

        expect(RocksDBOptions.USE_MANAGED_MEMORY, true);
        expect(RocksDBOptions.WRITE_BUFFER_RATIO, 0.5);
        expect(RocksDBOptions.HIGH_PRIORITY_POOL_RATIO, 0.1);
        expect(TaskManagerOptions.MANAGED_MEMORY_FRACTION, 0.4f);
        expect(TaskManagerOptions.TOTAL_PROCESS_MEMORY, MemorySize.parse("2048m"));
        expect(TaskManagerOptions.NUM_TASK_SLOTS, 2);
        expect(JobManagerOptions.TOTAL_PROCESS_MEMORY, MemorySize.parse("1600m"));
        expect(JobManagerOptions.EXECUTION_FAILOVER_STRATEGY, "region");
        expect(CoreOptions.DEFAULT_PARALLELISM, 2);

        expect(CoreOptions.FLINK_JVM_OPTIONS, System.getProperty("flink.jvm.options"));

        expect(PipelineOptions.MAX_PARALLELISM, 128);
        expect(PipelineOptions.GENERIC_TYPES, false);

        expect(WebOptions.SUBMIT_ENABLE, false);
        expect(WebOptions.CANCEL_ENABLE, false);
        expect(WebOptions.RESCALE_ENABLE, false);
        expect(WebOptions.ACCESS_CONTROL_ALLOW_ORIGIN, "http://127.0.0.1:8081");

        expect(MetricOptions.REPORTERS_LIST, "prom");
        expectReporter(
                MetricOptions.REPORTER_FACTORY_CLASS,
                "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        expectReporter(PROM_PORT, "9249");

        assertThat(conf.keySet())
                .as("keys in config.yaml that this test does not check")
                .containsExactlyInAnyOrderElementsOf(checked);
    }

    @Test
    void theJobsOwnSettingsAgreeWithTheFile() {
        Configuration job = JobSettings.of(UnreadConfig.with(Map.of()));
        for (ConfigOption<?> option :
                new ConfigOption<?>[] {
                    StateBackendOptions.STATE_BACKEND,
                    CheckpointingOptions.INCREMENTAL_CHECKPOINTS,
                    CheckpointingOptions.CHECKPOINTING_INTERVAL,
                    CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                    PipelineOptions.MAX_PARALLELISM,
                    PipelineOptions.GENERIC_TYPES,
                    CheckpointingOptions.ENABLE_UNALIGNED,
                    ExecutionOptions.SNAPSHOT_COMPRESSION,
                    ExecutionOptions.BUFFER_TIMEOUT
                }) {
            assertThat(job.get(option)).as(option.key()).isEqualTo(conf.get(option));
        }
    }

    /** The web UI of the compose stack, published at 127.0.0.1:8081, is every other one's. */
    @Test
    void theWebUiTakesNoJarAndAllowsNoOtherOrigin() {
        Map<String, String> web = FlinkConf.webUi(FlinkConf.uiOrigin("127.0.0.1", 8081));
        assertThat(conf.toMap()).containsAllEntriesOf(web);
        assertThat(conf.get(RestOptions.PORT)).isEqualTo(8081);
    }

    @Test
    void overridesReplaceOnlyTheKeysTheyName(@TempDir Path data) {
        Configuration local = FlinkConf.load(FlinkConf.findDir(), FlinkConf.localPaths(data));

        assertThat(local.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
                .isEqualTo(data.resolve("checkpoints").toUri().toString());
        assertThat(local.get(CheckpointingOptions.SAVEPOINT_DIRECTORY))
                .isEqualTo(data.resolve("savepoints").toUri().toString());
        Map<String, String> rest = local.toMap();
        rest.remove(CheckpointingOptions.CHECKPOINTS_DIRECTORY.key());
        rest.remove(CheckpointingOptions.SAVEPOINT_DIRECTORY.key());
        Map<String, String> deployed = conf.toMap();
        deployed.remove(CheckpointingOptions.CHECKPOINTS_DIRECTORY.key());
        deployed.remove(CheckpointingOptions.SAVEPOINT_DIRECTORY.key());
        assertThat(rest).isEqualTo(deployed);
    }

    @Test
    void theDirectoryIsFoundFromAnyDirectoryInsideTheRepository() {
        Path fromModule = FlinkConf.findDir(Path.of("src/main/java"));
        Path fromRoot = FlinkConf.findDir(Path.of("..").toAbsolutePath().normalize());

        assertThat(fromModule.normalize()).isEqualTo(fromRoot.normalize());
        assertThat(fromModule.resolve(FlinkConf.FILE_NAME)).isRegularFile();
        assertThat(fromModule.resolve("log4j-console.properties")).isRegularFile();
    }

    @Test
    void aDirectoryWithoutConfigYamlIsRefused(@TempDir Path empty) throws Exception {
        Files.writeString(empty.resolve("flink-conf.yaml"), "parallelism.default: 3\n");

        assertThatThrownBy(() -> FlinkConf.load(empty, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("config.yaml");
    }

    private <T> void expect(ConfigOption<T> option, T value) {
        assertThat(conf.containsKey(option.key())).as("config.yaml sets " + option.key()).isTrue();
        assertThat(conf.get(option)).as(option.key()).isEqualTo(value);
        checked.add(option.key());
    }

    private <T> void expectReporter(ConfigOption<T> option, T value) {
        Configuration reporter = new DelegatingConfiguration(conf, PROM);
        assertThat(reporter.containsKey(option.key()))
                .as("config.yaml sets " + PROM + option.key())
                .isTrue();
        assertThat(reporter.get(option)).as(PROM + option.key()).isEqualTo(value);
        checked.add(PROM + option.key());
    }
}
