package dev.unread.bench;

import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.minicluster.FlinkRest;
import dev.unread.minicluster.InProcessMetrics;
import dev.unread.minicluster.LocalCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The production job ({@link UnreadJob#forProduction}) on the bench's MiniCluster, or a
 * pass-through on a MiniCluster of its own, with RocksDB and checkpoints as configured, reading
 * topics that already hold the benchmark's records. The counting operator's input count ({@link
 * InProcessMetrics}) tells when the last event arrived; checkpoint statistics come from the REST
 * API, as an operator would read them.
 */
final class JobRun implements AutoCloseable {

    private static final long POLL_MILLIS = 5;

    /**
     * How often the polls look for a failed or ended job: that look copies the whole execution
     * graph on the job master's thread, and once per {@link #POLL_MILLIS} it took a tenth of the
     * process's CPU samples during the full run, CPU the job under measure then lacked.
     */
    private static final long FAILURE_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private static final Duration STOP_TIMEOUT = Duration.ofMinutes(2);

    /** How long {@link #close} waits for a checkpoint in flight to end before it cancels. */
    private static final Duration CHECKPOINT_SETTLE = Duration.ofSeconds(15);

    /** How long a run's job may take to have every task running. */
    static final Duration START_TIMEOUT = Duration.ofMinutes(2);

    /** How long a run may take to count its records. */
    static final Duration RUN_TIMEOUT = Duration.ofMinutes(20);

    /**
     * When the first and the last of a run's measured events reached the counting operator, the CPU
     * time this process (the job, the broker and the bench) used in between, the share of the
     * machine's time stolen meanwhile ({@link CpuTime.Machine}), the milliseconds of that CPU the
     * JIT spent compiling ({@link CpuTime#compilingMillis}), the share of the run's events the span
     * measured, and the time from the run's first event to its last (the same span unless the first
     * events were left out).
     */
    record Span(
            long firstNanos,
            long lastNanos,
            long cpuNanos,
            double stolenShare,
            long compilingMillis,
            double measuredShare,
            long wholeNanos) {
        long nanos() {
            return lastNanos - firstNanos;
        }
    }

    private final MiniCluster cluster;
    private final JobID job;
    private final FlinkRest rest;

    /** Whether {@link #close} stops the cluster too, not only the job. */
    private final boolean ownsCluster;

    /** When {@link #failIfEnded} last looked. */
    private long lastFailureCheck;

    private boolean failureChecked;

    /**
     * When the job was submitted, and this process's CPU time and the machine's then: before it,
     * the job took in nothing.
     */
    private final long submittedNanos;

    private final CpuTime.Sample submittedCpu;

    private JobRun(
            MiniCluster cluster,
            JobID job,
            boolean ownsCluster,
            long submittedNanos,
            CpuTime.Sample submittedCpu)
            throws Exception {
        this.cluster = cluster;
        this.job = job;
        this.submittedNanos = submittedNanos;
        this.submittedCpu = submittedCpu;
        this.rest = new FlinkRest(cluster.getRestAddress().get());
        this.ownsCluster = ownsCluster;
    }

    /**
     * Submits the job to {@code cluster}, started with {@link LocalCluster#start} counting {@link
     * UnreadJob#COUNTER_NAME}'s input, from {@code savepoint} if set; the cluster outlives the run.
     * The run's figures start from 0: the metrics of the jobs before it on the cluster are dropped.
     */
    static JobRun on(MiniCluster cluster, UnreadConfig config, int parallelism, String savepoint)
            throws Exception {
        InProcessMetrics.reset();
        long submitted = System.nanoTime();
        CpuTime.Sample submittedCpu = CpuTime.Sample.now();
        JobID job =
                LocalCluster.submit(
                        cluster,
                        UnreadJob.forProduction(config)::build,
                        config,
                        parallelism,
                        savepoint);
        return new JobRun(cluster, job, false, submitted, submittedCpu);
    }

    /**
     * The job's pass-through ceiling ({@link PassThroughJobs#passThrough}) on the same sources; its
     * discarding operator's input is what {@link #awaitEvents} counts.
     */
    static JobRun passThrough(UnreadConfig config, int parallelism, Path dataDir) throws Exception {
        return start(
                config,
                parallelism,
                dataDir,
                PassThroughJobs.PASS_THROUGH_NAME,
                env -> PassThroughJobs.passThrough(UnreadJob.forProduction(config), env));
    }

    /**
     * The pass-through with a RocksDB read and write per event ({@link
     * PassThroughJobs#statefulPassThrough}); its stateful operator's input is what {@link
     * #awaitEvents} counts.
     */
    static JobRun statefulPassThrough(UnreadConfig config, int parallelism, Path dataDir)
            throws Exception {
        return start(
                config,
                parallelism,
                dataDir,
                PassThroughJobs.STATEFUL_PASS_THROUGH_NAME,
                env -> PassThroughJobs.statefulPassThrough(UnreadJob.forProduction(config), env));
    }

    private static JobRun start(
            UnreadConfig config,
            int parallelism,
            Path dataDir,
            String countedOperator,
            Consumer<StreamExecutionEnvironment> build)
            throws Exception {
        MiniCluster cluster = LocalCluster.start(config, 0, dataDir, parallelism, countedOperator);
        try {
            long submitted = System.nanoTime();
            CpuTime.Sample submittedCpu = CpuTime.Sample.now();
            JobID job = LocalCluster.submit(cluster, build, config, parallelism, null);
            return new JobRun(cluster, job, true, submitted, submittedCpu);
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * Waits until the counting operator has taken in {@code events} records in all, and returns
     * when its input first moved (the last look that saw none, else the job's submission) and when
     * it reached that count, to within {@link #POLL_MILLIS}.
     */
    Span awaitEvents(long events, Duration timeout) throws Exception {
        return awaitEvents(null, events, timeout);
    }

    /**
     * The same on the input of the operator named {@code operator} (null: the counting operator's):
     * a job on the bench's cluster whose records end elsewhere than in the counter.
     */
    Span awaitEvents(String operator, long events, Duration timeout) throws Exception {
        return awaitEvents(operator, 0, events, timeout);
    }

    /**
     * The same, measured from the first look that saw at least {@code unmeasured} events (0: from
     * the run's first event), so that what the first events cost once (the JIT compiling the code
     * they meet, caches filling) is left out of the rate; below {@code events}. A run whose
     * operator took in the rest before the next look (a short one: the stage takes its input in
     * bursts of network buffers) is measured whole.
     */
    Span awaitEvents(String operator, long unmeasured, long events, Duration timeout)
            throws Exception {
        if (unmeasured < 0 || unmeasured >= events) {
            throw new IllegalArgumentException(
                    "unmeasured events must be within [0, " + events + "), was " + unmeasured);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        long first = 0;
        CpuTime.Sample firstCpu = null;
        long from = 0;
        long fromIn = 0;
        CpuTime.Sample fromCpu = null;
        long idle = 0;
        CpuTime.Sample idleCpu = submittedCpu;
        long last = -1;
        long seen = -1;
        while (true) {
            long in = operator == null ? counterRecordsIn() : recordsIn(operator);
            long now = System.nanoTime();
            if (in == 0) {
                idle = now;
                idleCpu = CpuTime.Sample.now();
            } else if (first == 0) {
                // From the last look that saw no input: a fast run may take in much between looks,
                // or all of its input before the first (then from the submission, a bound).
                first = idle != 0 ? idle : submittedNanos;
                firstCpu = idleCpu;
                if (unmeasured == 0) {
                    from = first;
                    fromCpu = firstCpu;
                }
            }
            if (from == 0 && unmeasured > 0 && in >= unmeasured) {
                if (in >= events) {
                    from = first;
                    fromCpu = firstCpu;
                } else {
                    from = now;
                    fromIn = in;
                    fromCpu = CpuTime.Sample.now();
                }
            }
            if (in >= events && from != 0) {
                CpuTime.Sample lastCpu = CpuTime.Sample.now();
                return new Span(
                        from,
                        now,
                        lastCpu.processNanos() - fromCpu.processNanos(),
                        lastCpu.machine().stolenSince(fromCpu.machine()),
                        lastCpu.compilingMillis() - fromCpu.compilingMillis(),
                        (double) (in - fromIn) / in,
                        now - first);
            }
            if (in != seen) {
                seen = in;
                last = now;
            }
            if (now - deadline > 0) {
                throw new IllegalStateException(
                        "the job took in "
                                + seen
                                + " of "
                                + events
                                + " events in "
                                + timeout
                                + " (last progress "
                                + TimeUnit.NANOSECONDS.toSeconds(now - last)
                                + " s ago)");
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /** The input of the operator named {@code operator} so far in this run. */
    private long recordsIn(String operator) throws Exception {
        failIfEnded();
        return InProcessMetrics.recordsIn(operator);
    }

    /** The counting operator's input so far in this run. */
    long counterRecordsIn() throws Exception {
        failIfEnded();
        return InProcessMetrics.recordsIn();
    }

    /**
     * Waits for a checkpoint that began after this call to complete, so that every sink has flushed
     * what it held, and returns the job's checkpoint statistics.
     */
    FlinkRest.Checkpoints awaitNextCheckpoint(Duration timeout) throws Exception {
        long before = rest.checkpoints(job).completed();
        long deadline = System.nanoTime() + timeout.toNanos();
        // Completed + 2: the next one may already be under way with part of the input.
        while (true) {
            FlinkRest.Checkpoints now = rest.checkpoints(job);
            if (now.completed() >= before + 2) {
                return now;
            }
            failIfEnded();
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no checkpoint completed in " + timeout);
            }
            Thread.sleep(POLL_MILLIS * 20);
        }
    }

    /**
     * Takes a checkpoint now and waits until it completed, so that every sink has flushed what it
     * held of the events taken in before this call, and returns the job's checkpoint statistics.
     */
    FlinkRest.Checkpoints checkpointNow(Duration timeout) throws Exception {
        long before = rest.checkpoints(job).completed();
        long deadline = System.nanoTime() + timeout.toNanos();
        cluster.triggerCheckpoint(job).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        // The statistics may come a moment after the checkpoint.
        while (true) {
            FlinkRest.Checkpoints now = rest.checkpoints(job);
            if (now.completed() > before) {
                return now;
            }
            failIfEnded();
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no checkpoint completed in " + timeout);
            }
            Thread.sleep(POLL_MILLIS * 20);
        }
    }

    FlinkRest.Checkpoints checkpoints() throws IOException, InterruptedException {
        return rest.checkpoints(job);
    }

    List<FlinkRest.CheckpointTime> checkpointHistory() throws IOException, InterruptedException {
        return rest.checkpointHistory(job);
    }

    /** Stops the job with a canonical savepoint under {@code dir}; returns its path. */
    String stopWithSavepoint(Path dir) throws Exception {
        return cluster.stopWithSavepoint(
                        job, dir.toUri().toString(), false, SavepointFormatType.CANONICAL)
                .get(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    /** Waits until every task runs. */
    void awaitRunning(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!LocalCluster.allRunning(cluster, job, "while starting")) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the job is not running after " + timeout);
            }
            Thread.sleep(POLL_MILLIS * 20);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            awaitNoCheckpointInFlight();
            LocalCluster.cancel(cluster, job, STOP_TIMEOUT);
        } finally {
            if (ownsCluster) {
                cluster.close();
            }
        }
    }

    /**
     * Waits, at most {@link #CHECKPOINT_SETTLE}, until no checkpoint of the job is in flight: Flink
     * logs a checkpoint that a cancel aborts as a failure, with its stack trace, and a run that
     * succeeds prints none (issue 46). A checkpoint may still start between the look and the
     * cancel; with one every few seconds, and each done in about a second, that is rare.
     */
    private void awaitNoCheckpointInFlight() throws Exception {
        if (cluster.getJobStatus(job)
                .get(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .isGloballyTerminalState()) {
            return;
        }
        long deadline = System.nanoTime() + CHECKPOINT_SETTLE.toNanos();
        try {
            while (rest.checkpointsInFlight(job) > 0 && System.nanoTime() - deadline < 0) {
                Thread.sleep(POLL_MILLIS * 20);
            }
        } catch (IOException e) {
            // The wait only spares the log a stack trace; the job is cancelled all the same.
            return;
        }
    }

    /**
     * Throws when the job has failed or ended: the bench's runs end only when it stops them. Looks
     * at most once per {@link #FAILURE_CHECK_NANOS}.
     */
    private void failIfEnded() throws Exception {
        long now = System.nanoTime();
        if (failureChecked && now - lastFailureCheck < FAILURE_CHECK_NANOS) {
            return;
        }
        LocalCluster.allRunning(cluster, job, "during the run");
        failureChecked = true;
        lastFailureCheck = now;
    }
}
