package dev.unread.bench;

import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.Workload;
import dev.unread.kafka.EmbeddedKafka;
import dev.unread.kafka.TempDirs;
import dev.unread.minicluster.LocalCluster;
import dev.unread.ops.SavepointInspector;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.minicluster.MiniCluster;

/**
 * {@code unread bench}: the job and the designs it replaces, measured in one run on the same
 * generated events. See {@link #run} for the order of the steps and docs/benchmarks.md for what
 * each figure means.
 */
public final class Bench implements AutoCloseable {

    /** Records are stamped as if made at this rate: a steady day of chat, whatever the machine. */
    private static final double SYNTHETIC_RECORDS_PER_SECOND = 50_000;

    /** The synthetic clock starts here (2026-01-01T00:00:00Z); any fixed value would do. */
    static final long SYNTHETIC_START_MILLIS = 1_767_225_600_000L;

    /**
     * A {@code checkpoint-interval-ms} Flink takes as no periodic checkpoint: a run then has one
     * checkpoint, taken once its events are counted, instead of periodic ones, the first of which
     * Flink sets at a random moment within the first interval.
     */
    static final long NO_PERIODIC_CHECKPOINTS = Long.MAX_VALUE;

    private final BenchOptions options;
    private final Map<String, String> settings;
    private final Map<String, String> env;
    private final PrintStream progress;

    /** The prefix every Redis key of the bench starts with. */
    private final String prefix;

    /**
     * Reads every run's savepoint on one batch cluster, started with the first run and stopped by
     * {@link #close}: a cluster per savepoint cost seconds per run.
     */
    private SavepointInspector savepoints;

    /**
     * The cluster every run of the job runs on, one job after another, started with the first and
     * stopped by {@link #close}: a cluster of its own cost each run seconds to start and to stop.
     * The pass-throughs, which count another operator's input, start their own.
     */
    private MiniCluster cluster;

    private Path clusterDir;

    /**
     * @param settings job settings (flags); {@code kafka-bootstrap}, topics and group are the
     *     bench's own
     * @param env UNREAD_* variables and the JDBC password
     * @param progress where a line per step goes
     */
    public Bench(
            BenchOptions options,
            Map<String, String> settings,
            Map<String, String> env,
            PrintStream progress) {
        this.options = options;
        this.settings = settings;
        this.env = env;
        this.progress = progress;
        this.prefix = UnreadConfig.from(settings, env).redisKeyPrefix;
    }

    /**
     * Runs the steps in this order, on a broker of its own, and returns the report:
     *
     * <ol>
     *   <li>publishes both workloads to topics of their own: badge-only traffic (all the seed
     *       worker counts) and the full traffic with conversations;
     *   <li>runs the job on each, from the first record to the last, then stops it with a savepoint
     *       and reads its state from the savepoint;
     *   <li>runs the naive worker in each {@link NaiveWorker.Mode} on the badge-only topics;
     *   <li>restores the job from the full workload's savepoint and measures latency under traffic
     *       at a fixed rate;
     *   <li>fills MySQL for the SQL baseline and times its badge query against a Redis GET of the
     *       job's counts.
     * </ol>
     *
     * Redis keys under the bench's prefix are deleted before and after.
     */
    public BenchReport run() throws Exception {
        Path dataDir = TempDirs.create("unread-bench-");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(0)) {
            UnreadConfig badgeConfig = config(kafka, "badge");
            UnreadConfig fullConfig = config(kafka, "full");
            long removed = RedisKeys.deleteUnder(badgeConfig.redisEndpoint(), prefix);
            say("removed %d Redis keys left under %s", removed, prefix);

            say("publishing %,d records of badge-only traffic", options.records());
            TrafficGenerator badgeTraffic = generator(options.badgeWorkload());
            Traffic badge = publish(kafka, badgeConfig, "badge-only", badgeTraffic);
            say("publishing %,d records of full traffic", options.records());
            TrafficGenerator fullTraffic = generator(options.fullWorkload());
            Traffic full = publish(kafka, fullConfig, "full", fullTraffic);

            if (options.warmUpEvents() > 0) {
                warmUp(config(kafka, "full", "warm-up", Map.of()), full);
            }
            List<JobFigures> jobs = new ArrayList<>();
            jobs.add(runJob(badgeConfig, badge, dataDir.resolve("badge")));
            JobFigures fullJob = runJob(fullConfig, full, dataDir.resolve("full"));
            jobs.add(fullJob);
            jobs.addAll(BesideFull.run(this, kafka, full, fullTraffic, dataDir));
            SparseBench.Result sparse =
                    options.sparseWorkload() == null
                            ? null
                            : SparseBench.run(this, kafka, dataDir.resolve("sparse"));
            List<JobFigures> liveJobs = new ArrayList<>();
            if (options.liveShare() > 0) {
                liveJobs.add(
                        BesideFull.runLive(
                                this, kafka, "badge", badge, dataDir.resolve("badge-live")));
                liveJobs.add(
                        BesideFull.runLive(
                                this, kafka, "full", full, dataDir.resolve("full-live")));
            }
            GroupBench.Result groups =
                    options.groups() == null
                            ? null
                            : GroupBench.run(
                                    this, options.groups(), kafka, dataDir.resolve("groups"));
            ChannelBench.Result channels =
                    options.channels() == null
                            ? null
                            : ChannelBench.run(
                                    this, options.channels(), kafka, dataDir.resolve("channels"));
            ClusterBench.Result cluster =
                    options.redisCluster()
                            ? ClusterBench.run(this, kafka, full, dataDir.resolve("cluster"))
                            : null;
            Rivals.Result rivals =
                    Rivals.run(
                            // A group of its own: the job's run committed the end offsets.
                            config(kafka, "badge", "ceiling", Map.of()),
                            config(kafka, "badge", "ceiling-state", Map.of()),
                            badge,
                            options.parallelism(),
                            dataDir.resolve("rivals"),
                            options.profileDir(),
                            line -> say("%s", line));

            List<NaiveWorker.Result> workers = new ArrayList<>();
            for (NaiveWorker.Mode mode : options.workers()) {
                say("naive worker, %s, on the badge-only records", mode);
                workers.add(
                        NaiveWorker.run(
                                kafka.bootstrapServers(),
                                badgeConfig.messagesTopic,
                                badgeConfig.readsTopic,
                                badge.records(),
                                badgeConfig.redisUrl,
                                badgeConfig.redisKeyPrefix,
                                mode));
                NaiveWorker.deleteKeys(badgeConfig.redisUrl, badgeConfig.redisKeyPrefix);
            }

            double rate =
                    options.latencyRecordsPerSecond() > 0
                            ? options.latencyRecordsPerSecond()
                            : Math.max(
                                    1000, Math.round(fullJob.eventsPerSecond() / 2 / 1000) * 1000);
            Latency.Result latency = null;
            Latency.Result lighterLatency = null;
            if (!options.latency().isZero()) {
                LatencyRun.Measured measured =
                        LatencyRun.run(this, kafka, fullTraffic, rate, fullJob);
                latency = measured.result();
                lighterLatency = measured.lighter();
                rate = latency.recordsPerSecond();
            }

            LiveLoad.Measured live =
                    options.live() == null
                            ? null
                            : LiveLoad.run(
                                    this,
                                    options.live(),
                                    fullConfig,
                                    fullTraffic,
                                    rate,
                                    lighterLatency == null ? 0 : lighterLatency.recordsPerSecond(),
                                    fullJob.savepoint(),
                                    dataDir.resolve("live"));

            SqlBaseline.Result sql = null;
            if (!options.sqlRows().isEmpty()) {
                say("SQL baseline at %s rows", options.sqlRows());
                sql =
                        SqlBaseline.run(
                                fullConfig.jdbcUrl,
                                fullConfig.jdbcUser,
                                fullConfig.jdbcPassword,
                                options.sqlRows(),
                                options.fullWorkload(),
                                options.sqlQueries(),
                                fullConfig.redisUrl,
                                fullConfig.redisKeyPrefix);
            }
            RedisKeys.deleteUnder(badgeConfig.redisEndpoint(), prefix);
            return new BenchReport(
                    options,
                    fullConfig,
                    jobs,
                    workers,
                    rivals,
                    latency,
                    lighterLatency,
                    sql,
                    Instant.now().truncatedTo(ChronoUnit.SECONDS),
                    groups,
                    cluster,
                    live == null ? null : live.result(),
                    live == null ? null : live.lighter(),
                    liveJobs,
                    sparse,
                    channels);
        } finally {
            TempDirs.delete(dataDir);
        }
    }

    /**
     * Runs the job on the first of {@code traffic}'s events and drops it: every measured run, the
     * pass-through's included, then meets code the JIT has compiled, as a job that has run for a
     * while does. Its keys are under a prefix of their own, deleted with the bench's.
     */
    private void warmUp(UnreadConfig config, Traffic traffic) throws Exception {
        long events = Math.min(options.warmUpEvents(), traffic.counterEvents());
        say(
                "warming up: the job on %,d events of the %s records, not measured",
                events, traffic.name());
        try (JobRun job = startJob(config, null)) {
            job.awaitRunning(JobRun.START_TIMEOUT);
            job.awaitEvents(events, JobRun.RUN_TIMEOUT);
        }
    }

    /**
     * Submits the job with {@code config} to the bench's cluster, from {@code savepoint} if set.
     */
    JobRun startJob(UnreadConfig config, String savepoint) throws Exception {
        if (cluster == null) {
            clusterDir = TempDirs.create("unread-bench-cluster-");
            cluster =
                    LocalCluster.start(
                            config, 0, clusterDir, options.parallelism(), UnreadJob.COUNTER_NAME);
        }
        return JobRun.on(cluster, config, options.parallelism(), savepoint);
    }

    JobFigures runJob(UnreadConfig config, Traffic traffic, Path dataDir) throws Exception {
        return runJob(config, traffic, traffic.counterEvents(), dataDir);
    }

    JobFigures runJob(UnreadConfig config, Traffic traffic, long counterEvents, Path dataDir)
            throws Exception {
        return runJob(config, traffic, counterEvents, dataDir, null);
    }

    /**
     * The job on {@code traffic}'s topics until its counting operator took in {@code counterEvents}
     * (more than the records when the job fans group messages out itself, and by the copies of
     * messages for their senders), restored from {@code savepoint} (null: from empty state).
     */
    JobFigures runJob(
            UnreadConfig config,
            Traffic traffic,
            long counterEvents,
            Path dataDir,
            String savepoint)
            throws Exception {
        return runJob(config, traffic, null, 0, counterEvents, dataDir, savepoint);
    }

    /**
     * The same, measured until the operator named {@code operator} (null: the counting operator)
     * took in {@code events}, from when it had taken in {@code unmeasured} (0: from its first).
     */
    JobFigures runJob(
            UnreadConfig config,
            Traffic traffic,
            String operator,
            long unmeasured,
            long events,
            Path dataDir,
            String savepoint)
            throws Exception {
        if (savepoints == null) {
            savepoints = SavepointInspector.start();
        }
        return MeasuredJob.run(
                this,
                savepoints,
                config,
                traffic,
                operator,
                unmeasured,
                events,
                dataDir,
                savepoint);
    }

    /**
     * Runs the job, unmeasured, until the operator named {@code operator} (null: the counting
     * operator) took in {@code events}, and stops it with a savepoint, which flushes its sinks;
     * returns the savepoint's path.
     */
    String runToSavepoint(UnreadConfig config, String operator, long events, Path dataDir)
            throws Exception {
        try (JobRun job = startJob(config, null)) {
            job.awaitRunning(JobRun.START_TIMEOUT);
            job.awaitEvents(operator, events, JobRun.RUN_TIMEOUT);
            return job.stopWithSavepoint(dataDir.resolve("savepoints"));
        }
    }

    /** The job's settings for one workload: its own topics, consumer group and Redis keys. */
    UnreadConfig config(EmbeddedKafka kafka, String workload) {
        return config(kafka, workload, workload, Map.of());
    }

    /**
     * The job's settings for reading {@code workload}'s topics as a run of its own, {@code run}
     * (its consumer group and Redis keys), with {@code extra} settings on top.
     */
    UnreadConfig config(
            EmbeddedKafka kafka, String workload, String run, Map<String, String> extra) {
        Map<String, String> own = new HashMap<>(settings);
        own.put("kafka-bootstrap", kafka.bootstrapServers());
        own.put("messages-topic", "bench-" + workload + "-messages");
        own.put("reads-topic", "bench-" + workload + "-reads");
        own.put("conversations-topic", "bench-" + workload + "-conversations");
        own.put("dead-letter-topic", "bench-dead-letters");
        own.put("group-id", "unread-bench-" + run);
        own.put("redis-key-prefix", prefix + run + ":");
        own.putAll(extra);
        UnreadConfig config = UnreadConfig.from(own, env);
        kafka.createTopics(
                config.messagesTopic,
                config.readsTopic,
                config.conversationsTopic,
                config.deadLetterTopic);
        return config;
    }

    /** The records a workload gives in every run: the same seed on the same synthetic clock. */
    static TrafficGenerator generator(Workload workload) {
        return TrafficGenerator.synthetic(
                workload, SYNTHETIC_START_MILLIS, SYNTHETIC_RECORDS_PER_SECOND);
    }

    Traffic publish(
            EmbeddedKafka kafka, UnreadConfig config, String name, TrafficGenerator generator)
            throws InterruptedException {
        return Traffic.publish(kafka, config, name, generator, options.records());
    }

    BenchOptions options() {
        return options;
    }

    Map<String, String> env() {
        return env;
    }

    /** Stops the clusters the runs ran on and read their savepoints on. */
    @Override
    public void close() throws Exception {
        try {
            if (cluster != null) {
                cluster.close();
            }
        } finally {
            try {
                if (savepoints != null) {
                    savepoints.close();
                }
            } finally {
                if (clusterDir != null) {
                    TempDirs.delete(clusterDir);
                }
            }
        }
    }

    void say(String format, Object... args) {
        progress.println("bench: " + String.format(format, args));
        progress.flush();
    }
}
