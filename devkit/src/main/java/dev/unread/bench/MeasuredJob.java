package dev.unread.bench;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.RedisNames;
import dev.unread.minicluster.FlinkRest;
import dev.unread.minicluster.InProcessMetrics;
import dev.unread.ops.SavepointBytes;
import dev.unread.ops.SavepointInspect;
import dev.unread.ops.SavepointInspector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A measured run of the job: its figures while it counts a workload's records, then its checkpoint,
 * savepoint, state and Redis memory.
 */
final class MeasuredJob {

    /** Keys whose memory is measured per kind: enough for an average, quick to ask. */
    private static final int MEMORY_SAMPLE = 2000;

    private static final Duration CHECKPOINT_TIMEOUT = Duration.ofMinutes(2);

    private MeasuredJob() {}

    /**
     * {@link Bench#runJob}, its savepoint read by {@code savepoints}: measured until the operator
     * named {@code operator} (null: the counting operator) took in {@code counterEvents}, from when
     * it had taken in {@code unmeasured} (0: from its first).
     */
    static JobFigures run(
            Bench bench,
            SavepointInspector savepoints,
            UnreadConfig config,
            Traffic traffic,
            String operator,
            long unmeasured,
            long counterEvents,
            Path dataDir,
            String savepoint)
            throws Exception {
        bench.say(
                "the job on the %s records (parallelism %d)",
                traffic.name(), bench.options().parallelism());
        long statementsBefore = MySqlStatements.written(config);
        Map<String, Long> callsBefore = RedisKeys.calls(config.redisEndpoint());
        long redisCpuBefore = RedisKeys.cpuNanos(config.redisEndpoint());
        try (JobRun job = bench.startJob(config, savepoint)) {
            job.awaitRunning(JobRun.START_TIMEOUT);
            JobRun.Span span;
            try (Profile profile = Profile.start(bench.options().profileDir(), traffic.name())) {
                span = job.awaitEvents(operator, unmeasured, counterEvents, JobRun.RUN_TIMEOUT);
            }
            bench.say(
                    "  %,d events in %.1f s; waiting for the sinks' checkpoint",
                    counterEvents, span.nanos() / 1e9);
            FlinkRest.Checkpoints checkpoints =
                    config.checkpointIntervalMs == Bench.NO_PERIODIC_CHECKPOINTS
                            ? job.checkpointNow(CHECKPOINT_TIMEOUT)
                            : job.awaitNextCheckpoint(CHECKPOINT_TIMEOUT);
            // The run's metrics start from 0 (JobRun#on).
            long commands = InProcessMetrics.redisCommands();
            long unchanged = InProcessMetrics.redisUnchanged();
            JobFigures.ChannelWrites channelWrites =
                    new JobFigures.ChannelWrites(
                            InProcessMetrics.channelIndexWrites(),
                            InProcessMetrics.channelTrackWrites());
            long flushes = InProcessMetrics.redisFlushes();
            long roundTrips = InProcessMetrics.redisRoundTrips();
            Map<String, Long> commandsBySink = InProcessMetrics.redisCommandsByOperator();
            Map<String, Long> callsByCommand =
                    RedisKeys.callsBetween(callsBefore, RedisKeys.calls(config.redisEndpoint()));
            long redisCpuNanos = RedisKeys.cpuNanos(config.redisEndpoint()) - redisCpuBefore;
            long statements = MySqlStatements.written(config) - statementsBefore;
            bench.say("  checkpointed; stopping with a savepoint");
            String saved = job.stopWithSavepoint(dataDir.resolve("savepoints"));
            bench.say("  reading the state in the savepoint");
            SavepointInspect.Summary state = savepoints.inspect(saved, 0);
            long savedBytes = treeSize(Path.of(URI.create(saved)));
            SavepointBytes.Keyed keyed = SavepointBytes.keyed(saved);
            bench.say("  sampling Redis memory");
            RedisKeys.Memory badgeKeys =
                    RedisKeys.memory(
                            config.redisEndpoint(),
                            config.redisKeyPrefix + RedisNames.SENDERS,
                            MEMORY_SAMPLE);
            RedisKeys.Memory conversationKeys =
                    RedisKeys.memory(
                            config.redisEndpoint(),
                            config.redisKeyPrefix + RedisNames.CONVERSATIONS,
                            MEMORY_SAMPLE);
            return new JobFigures(
                    traffic,
                    span.nanos(),
                    commands,
                    unchanged,
                    flushes,
                    roundTrips,
                    statements,
                    checkpoints,
                    saved,
                    savedBytes,
                    savedBytes - keyed.stored() + keyed.raw(),
                    state,
                    badgeKeys,
                    conversationKeys,
                    span.cpuNanos(),
                    span.stolenShare(),
                    span.compilingMillis(),
                    span.measuredShare(),
                    span.wholeNanos(),
                    commandsBySink,
                    callsByCommand,
                    redisCpuNanos,
                    channelWrites);
        }
    }

    private static long treeSize(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(MeasuredJob::size).sum();
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
