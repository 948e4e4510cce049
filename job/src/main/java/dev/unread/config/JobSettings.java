package dev.unread.config;

import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;

/** The Flink settings of the unread job, from its own settings. */
public final class JobSettings {

    private JobSettings() {}

    /**
     * Flink settings the job relies on. A cluster's config.yaml may set more; these win because the
     * job is not correct or not upgradeable without them.
     */
    public static Configuration of(UnreadConfig config) {
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        conf.set(
                CheckpointingOptions.CHECKPOINTING_INTERVAL,
                Duration.ofMillis(config.checkpointIntervalMs));
        conf.set(
                CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                CheckpointingMode.EXACTLY_ONCE);
        // Barriers overtake the records in flight instead of waiting behind them, so a
        // checkpoint under load no longer holds the counting task until every channel's barrier
        // arrived (the p99 of the latency run). Savepoints stay aligned.
        conf.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        // A network buffer leaves half-full after 20 ms rather than Flink's 100: at a few
        // thousand events a second per channel that wait was most of the way to Redis; under
        // load buffers fill long before either.
        conf.set(ExecutionOptions.BUFFER_TIMEOUT, Duration.ofMillis(20));
        // Savepoints (canonical, what an upgrade restores) and full snapshots are Snappy-compressed
        // per key group; the format says so, so savepoints taken without it restore as before.
        // Incremental checkpoints are RocksDB's own files, compressed by RocksDB either way.
        conf.set(ExecutionOptions.SNAPSHOT_COMPRESSION, true);
        conf.set(PipelineOptions.MAX_PARALLELISM, config.maxParallelism);
        // Every state and event type must have an explicit serializer: a Kryo fallback could not
        // be checked for compatibility when a savepoint is restored.
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        // No function keeps a reference to a record after emitting or receiving it.
        conf.set(PipelineOptions.OBJECT_REUSE, true);
        if (config.parallelism > 0) {
            conf.set(CoreOptions.DEFAULT_PARALLELISM, config.parallelism);
        }
        return conf;
    }
}
