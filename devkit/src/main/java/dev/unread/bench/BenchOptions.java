package dev.unread.bench;

import dev.unread.generator.Workload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What {@link Bench} runs.
 *
 * @param badgeWorkload traffic without conversations: what the naive worker counts too
 * @param fullWorkload traffic with conversations, for the job alone, and its latency run
 * @param records records generated per workload
 * @param parallelism the job's parallelism
 * @param workers the naive worker's modes to run, on the badge-only records
 * @param sqlRows table sizes for the SQL baseline; empty skips it
 * @param sqlQueries badge queries timed per table size and index
 * @param latency how long the latency run lasts; zero skips it
 * @param latencyRecordsPerSecond its background traffic; 0 for half the measured rate
 * @param probesPerSecond latency probes per second
 * @param groups group traffic published once against the producer's fan-out; null skips it
 * @param live SSE streams on one API instance under the full traffic; null skips it
 * @param redisCluster whether the job also runs the full records on a Redis Cluster
 * @param warmUpEvents events of the full records the job takes in, unmeasured, before any measured
 *     run, so that the first measured run is not the one the JIT compiles; 0 skips it
 * @param latencyWarmUp how long the latency run goes on before its measured part: probes sent then
 *     are reported apart, as the time right after a restore
 * @param profileDir where each measured run of the job and of the pass-throughs writes a JFR
 *     recording of its span ({@link Profile}); null records none
 * @param sparseWorkload the full traffic over as many receivers as a run has records, so that
 *     nothing coalesces ({@link SparseBench}); null skips it
 * @param sparseRecords records of the sparse regime's warm-up, and as many again measured
 * @param channels channels of any size beside a group ({@link ChannelBench}); null skips them
 */
public record BenchOptions(
        Workload badgeWorkload,
        Workload fullWorkload,
        long records,
        int parallelism,
        List<NaiveWorker.Mode> workers,
        List<Long> sqlRows,
        int sqlQueries,
        Duration latency,
        double latencyRecordsPerSecond,
        double probesPerSecond,
        GroupBench.Options groups,
        LiveLoad.Options live,
        boolean redisCluster,
        long warmUpEvents,
        Duration latencyWarmUp,
        Workload deletedWorkload,
        double liveShare,
        Duration sustainWindow,
        Workload allReadWorkload,
        Workload editedWorkload,
        Path profileDir,
        boolean trackRootSendersRun,
        Workload sparseWorkload,
        long sparseRecords,
        ChannelBench.Options channels) {}
