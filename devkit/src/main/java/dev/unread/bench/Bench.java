package dev.unread.bench;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.RedisNames;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.TrafficProducer;
import dev.unread.generator.Workload;
import dev.unread.kafka.EmbeddedKafka;
import dev.unread.kafka.TempDirs;
import dev.unread.minicluster.FlinkRest;
import dev.unread.minicluster.InProcessMetrics;
import dev.unread.ops.SavepointBytes;
import dev.unread.ops.SavepointInspect;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code unread bench}: the job and the designs it replaces, measured in one run on the same
 * generated events. See {@link #run} for the order of the steps and docs/benchmarks.md for what
 * each figure means.
 */
public final class Bench {

    /** Records are stamped as if made at this rate: a steady day of chat, whatever the machine. */
    private static final double SYNTHETIC_RECORDS_PER_SECOND = 50_000;

    /** The synthetic clock starts here (2026-01-01T00:00:00Z); any fixed value would do. */
    private static final long SYNTHETIC_START_MILLIS = 1_767_225_600_000L;

    /** Keys whose memory is measured per kind: enough for an average, quick to ask. */
    private static final int MEMORY_SAMPLE = 2000;

    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(20);

    /** The latency run's checkpoint interval, whatever the throughput runs use: issue 15's. */
    static final long LATENCY_CHECKPOINT_INTERVAL_MS = 10_000;

    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration CHECKPOINT_TIMEOUT = Duration.ofMinutes(2);

    /**
     * A {@code checkpoint-interval-ms} Flink takes as no periodic checkpoint: a run then has one
     * checkpoint, taken once its events are counted, instead of periodic ones, the first of which
     * Flink sets at a random moment within the first interval.
     */
    static final long NO_PERIODIC_CHECKPOINTS = Long.MAX_VALUE;

    /**
     * What to run.
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
     * @param warmUpEvents events of the full records the job takes in, unmeasured, before any
     *     measured run, so that the first measured run is not the one the JIT compiles; 0 skips it
     * @param latencyWarmUp how long the latency run goes on before its measured part: probes sent
     *     then are reported apart, as the time right after a restore
     * @param profileDir where each measured run of the job and of the pass-throughs writes a JFR
     *     recording of its span ({@link Profile}); null records none
     * @param sparseWorkload the full traffic over as many receivers as a run has records, so that
     *     nothing coalesces ({@link SparseBench}); null skips it
     * @param sparseRecords records of the sparse regime's warm-up, and as many again measured
     */
    public record Options(
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
            long sparseRecords) {}

    /** One workload's records as published: the counts the figures are divided by. */
    public record Traffic(
            String name,
            Workload workload,
            long records,
            long messages,
            long redundantMessages,
            long inboxOpens,
            long conversationReads,
            long malformed,
            long ownCopies) {
        long validEvents() {
            return records - malformed;
        }

        /**
         * What the counting operator takes in: the valid records and the copies the job makes of
         * the replies (every message with a conversation, with {@code --track-root-senders}) for
         * their senders (TrafficGenerator#ownCopies), which count toward nothing but tell the
         * sender's thread state who wrote.
         */
        long counterEvents() {
            return validEvents() + ownCopies;
        }

        long readEvents() {
            return inboxOpens + conversationReads;
        }

        /** The same records under another name, for a run that reads them again. */
        Traffic named(String newName) {
            return named(newName, ownCopies);
        }

        /**
         * The same records under another name, for a run whose job copies {@code copies} of them to
         * their senders.
         */
        Traffic named(String newName, long copies) {
            return new Traffic(
                    newName,
                    workload,
                    records,
                    messages,
                    redundantMessages,
                    inboxOpens,
                    conversationReads,
                    malformed,
                    copies);
        }
    }

    /** The job's figures on one workload. */
    public record JobFigures(
            Traffic traffic,
            long nanos,
            long redisCommands,
            long redisUnchanged,
            long redisFlushes,
            long redisRoundTrips,
            long mysqlStatements,
            FlinkRest.Checkpoints checkpoints,
            String savepoint,
            long savepointBytes,
            long rawSavepointBytes,
            SavepointInspect.Summary state,
            RedisKeys.Memory badgeKeys,
            RedisKeys.Memory conversationKeys,
            long cpuNanos,
            Map<String, Long> commandsBySink,
            Map<String, Long> callsByCommand,
            long redisCpuNanos) {
        double messagesPerSecond() {
            return traffic.messages() * 1e9 / nanos;
        }

        /** Per CPU-second of this process (the job, the broker and the bench's polling). */
        double messagesPerCpuSecond() {
            return traffic.messages() * 1e9 / cpuNanos;
        }

        double eventsPerSecond() {
            return traffic.validEvents() * 1e9 / nanos;
        }

        double commandsPerMessage() {
            return (double) redisCommands / traffic.messages();
        }

        /**
         * Removals Redis answered with 0 (the sinks' commands that changed nothing), per message.
         */
        double unchangedPerMessage() {
            return (double) redisUnchanged / traffic.messages();
        }

        /** Redis server CPU per message, in microseconds (0 on a cluster, which is not asked). */
        double redisCpuMicrosPerMessage() {
            return redisCpuNanos / 1e3 / traffic.messages();
        }

        double roundTripsPerFlush() {
            return redisFlushes == 0 ? 0 : (double) redisRoundTrips / redisFlushes;
        }

        double statementsPerReadEvent() {
            return traffic.readEvents() == 0 ? 0 : (double) mysqlStatements / traffic.readEvents();
        }

        /** Savepoint bytes over all entries: a user's inbox, a sender, a conversation. */
        double bytesPerEntry() {
            return entries() == 0 ? 0 : (double) savepointBytes / entries();
        }

        /** The same without snapshot compression ({@link SavepointBytes}). */
        double rawBytesPerEntry() {
            return entries() == 0 ? 0 : (double) rawSavepointBytes / entries();
        }

        /** The counter's state bytes alone over the same entries, which are all the counter's. */
        double counterBytesPerEntry() {
            return entries() == 0 ? 0 : (double) state.bytes().counter() / entries();
        }

        private long entries() {
            return state.users() + state.senders() + state.conversations();
        }
    }

    private final Options options;
    private final Map<String, String> settings;
    private final Map<String, String> env;
    private final PrintStream progress;

    /** The prefix every Redis key of the bench starts with. */
    private final String prefix;

    /**
     * @param settings job settings (flags); {@code kafka-bootstrap}, topics and group are the
     *     bench's own
     * @param env UNREAD_* variables and the JDBC password
     * @param progress where a line per step goes
     */
    public Bench(
            Options options,
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
                warmUp(config(kafka, "full", "warm-up", Map.of()), full, dataDir.resolve("warm"));
            }
            List<JobFigures> jobs = new ArrayList<>();
            jobs.add(runJob(badgeConfig, badge, dataDir.resolve("badge")));
            JobFigures fullJob = runJob(fullConfig, full, dataDir.resolve("full"));
            jobs.add(fullJob);
            Workload deleted = options.deletedWorkload();
            if (deleted != null) {
                String what = percent(deleted.deletedShare()) + " of conversation messages deleted";
                jobs.add(runBeside(kafka, "deleted", DELETED_RUN, deleted, what, dataDir));
            }
            Workload allRead = options.allReadWorkload();
            if (allRead != null) {
                String what = percent(allRead.allReadShare()) + " of read steps ALL_READ";
                jobs.add(runBeside(kafka, "all-read", ALL_READ_RUN, allRead, what, dataDir));
            }
            Workload edited = options.editedWorkload();
            if (edited != null) {
                String what =
                        percent(edited.editShare())
                                + " of conversation messages edited and as many mentioning the"
                                + " whole channel";
                jobs.add(runBeside(kafka, "edited", EDITED_RUN, edited, what, dataDir));
            }
            if (options.trackRootSendersRun()) {
                jobs.add(runTrackingRootSenders(kafka, full, fullTraffic, dataDir));
            }
            SparseBench.Result sparse =
                    options.sparseWorkload() == null
                            ? null
                            : SparseBench.run(this, kafka, dataDir.resolve("sparse"));
            List<JobFigures> liveJobs = new ArrayList<>();
            if (options.liveShare() > 0) {
                liveJobs.add(runLive(kafka, "badge", badge, dataDir.resolve("badge-live")));
                liveJobs.add(runLive(kafka, "full", full, dataDir.resolve("full-live")));
            }
            GroupBench.Result groups =
                    options.groups() == null
                            ? null
                            : GroupBench.run(
                                    this, options.groups(), kafka, dataDir.resolve("groups"));
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
            if (!options.latency().isZero()) {
                say(
                        "latency: for %d s after %d s, restored from the full run's savepoint, at"
                                + " %s",
                        options.latency().toSeconds(),
                        options.latencyWarmUp().toSeconds(),
                        options.latencyRecordsPerSecond() > 0 || options.sustainWindow().isZero()
                                ? String.format(Locale.ROOT, "%,.0f records/s", rate)
                                : "0.8x the rate the job sustains");
                latency =
                        measureLatency(
                                config(
                                        kafka,
                                        "full",
                                        "full",
                                        Map.of(
                                                "checkpoint-interval-ms",
                                                Long.toString(LATENCY_CHECKPOINT_INTERVAL_MS))),
                                fullTraffic,
                                rate,
                                fullJob,
                                dataDir.resolve("latency"));
                rate = latency.recordsPerSecond();
            }

            LiveLoad.Result live =
                    options.live() == null
                            ? null
                            : LiveLoad.run(
                                    this,
                                    options.live(),
                                    fullConfig,
                                    fullTraffic,
                                    rate,
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
                    sql,
                    Instant.now().truncatedTo(ChronoUnit.SECONDS),
                    groups,
                    cluster,
                    live,
                    liveJobs,
                    sparse);
        } finally {
            TempDirs.delete(dataDir);
        }
    }

    /**
     * Runs the job on the first of {@code traffic}'s events and drops it: every measured run, the
     * pass-through's included, then meets code the JIT has compiled, as a job that has run for a
     * while does. Its keys are under a prefix of their own, deleted with the bench's.
     */
    private void warmUp(UnreadConfig config, Traffic traffic, Path dataDir) throws Exception {
        long events = Math.min(options.warmUpEvents(), traffic.counterEvents());
        say(
                "warming up: the job on %,d events of the %s records, not measured",
                events, traffic.name());
        try (JobRun job = JobRun.start(config, options.parallelism(), dataDir, null)) {
            job.awaitRunning(START_TIMEOUT);
            job.awaitEvents(events, RUN_TIMEOUT);
        }
    }

    /**
     * Runs the job on all of {@code traffic}'s events, unmeasured, and stops it with a savepoint,
     * which flushes its sinks; returns the savepoint's path.
     */
    String runToSavepoint(UnreadConfig config, Traffic traffic, Path dataDir) throws Exception {
        try (JobRun job = JobRun.start(config, options.parallelism(), dataDir, null)) {
            job.awaitRunning(START_TIMEOUT);
            job.awaitEvents(traffic.counterEvents(), RUN_TIMEOUT);
            return job.stopWithSavepoint(dataDir.resolve("savepoints"));
        }
    }

    /**
     * The full records with one thing more ({@code workload}, {@code what} it adds), published to
     * topics of their own and run as {@code run}, for what that thing costs beside the full run.
     * The counting operator takes a deletion in once per participant or member, not as the one
     * record published.
     */
    private JobFigures runBeside(
            EmbeddedKafka kafka,
            String topics,
            String run,
            Workload workload,
            String what,
            Path dataDir)
            throws Exception {
        UnreadConfig config = config(kafka, topics);
        TrafficGenerator generator = generator(workload);
        say("publishing %,d records of full traffic, %s", options.records(), what);
        Traffic traffic = publish(kafka, config, run, generator);
        return runJob(
                config,
                traffic,
                traffic.counterEvents() - generator.deletions() + generator.deletionDeliveries(),
                dataDir.resolve(topics));
    }

    /**
     * The full records again with {@code --track-root-senders}, version 3's way for producers whose
     * replies cannot name their root's sender: every conversation message also reaches its sender's
     * state, where only replies do otherwise (issue 35).
     */
    private JobFigures runTrackingRootSenders(
            EmbeddedKafka kafka, Traffic full, TrafficGenerator generator, Path dataDir)
            throws Exception {
        UnreadConfig config =
                config(kafka, "full", "full-tracked", Map.of("track-root-senders", "true"));
        return runJob(
                config,
                full.named(TRACKED_RUN, ownCopies(generator, config)),
                dataDir.resolve("tracked"));
    }

    /**
     * The job on {@code workload}'s records again, with {@link Options#liveShare} of the receivers
     * registered live before it starts: what users with a live stream cost beside the run with
     * none, whose counts wait for the background flush.
     */
    JobFigures runLive(EmbeddedKafka kafka, String workload, Traffic traffic, Path dataDir)
            throws Exception {
        UnreadConfig config = config(kafka, workload, workload + "-live", Map.of());
        int users =
                RedisKeys.registerLive(
                        config.redisEndpoint(),
                        config.redisKeyPrefix,
                        traffic.workload(),
                        options.liveShare());
        say("%,d users live (%.0f%% of the receivers)", users, options.liveShare() * 100);
        return runJob(
                config,
                traffic.named(
                        String.format(
                                Locale.ROOT,
                                "%s, %.0f%% live",
                                traffic.name(),
                                options.liveShare() * 100)),
                dataDir);
    }

    /**
     * The names of the runs beside the full one, as their figures carry them and the report finds
     * them.
     */
    static final String DELETED_RUN = "full, deleted";

    static final String ALL_READ_RUN = "full, all read";

    static final String EDITED_RUN = "full, edited";

    static final String TRACKED_RUN = "full, --track-root-senders";

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
        say("the job on the %s records (parallelism %d)", traffic.name(), options.parallelism());
        long statementsBefore = MySqlStatements.written(config);
        Map<String, Long> callsBefore = RedisKeys.calls(config.redisEndpoint());
        long redisCpuBefore = RedisKeys.cpuNanos(config.redisEndpoint());
        try (JobRun job = JobRun.start(config, options.parallelism(), dataDir, savepoint)) {
            job.awaitRunning(START_TIMEOUT);
            JobRun.Span span;
            try (Profile profile = Profile.start(options.profileDir(), traffic.name())) {
                span = job.awaitEvents(counterEvents, RUN_TIMEOUT);
            }
            say(
                    "  %,d events in %.1f s; waiting for the sinks' checkpoint",
                    counterEvents, span.nanos() / 1e9);
            FlinkRest.Checkpoints checkpoints =
                    config.checkpointIntervalMs == NO_PERIODIC_CHECKPOINTS
                            ? job.checkpointNow(CHECKPOINT_TIMEOUT)
                            : job.awaitNextCheckpoint(CHECKPOINT_TIMEOUT);
            // The run's own cluster: its metrics start from 0 (InProcessMetrics.reset).
            long commands = InProcessMetrics.redisCommands();
            long unchanged = InProcessMetrics.redisUnchanged();
            long flushes = InProcessMetrics.redisFlushes();
            long roundTrips = InProcessMetrics.redisRoundTrips();
            Map<String, Long> commandsBySink = InProcessMetrics.redisCommandsByOperator();
            Map<String, Long> callsByCommand =
                    RedisKeys.callsBetween(callsBefore, RedisKeys.calls(config.redisEndpoint()));
            long redisCpuNanos = RedisKeys.cpuNanos(config.redisEndpoint()) - redisCpuBefore;
            long statements = MySqlStatements.written(config) - statementsBefore;
            String saved = job.stopWithSavepoint(dataDir.resolve("savepoints"));
            SavepointInspect.Summary state = SavepointInspect.inspect(saved, 0);
            long savedBytes = treeSize(Path.of(URI.create(saved)));
            SavepointBytes.Keyed keyed = SavepointBytes.keyed(saved);
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
                    commandsBySink,
                    callsByCommand,
                    redisCpuNanos);
        }
    }

    private Latency.Result measureLatency(
            UnreadConfig config,
            TrafficGenerator traffic,
            double rate,
            JobFigures full,
            Path dataDir)
            throws Exception {
        try (JobRun job = JobRun.start(config, options.parallelism(), dataDir, full.savepoint())) {
            job.awaitRunning(START_TIMEOUT);
            double sustained = Double.NaN;
            if (options.latencyRecordsPerSecond() == 0 && !options.sustainWindow().isZero()) {
                Traffic published = full.traffic();
                sustained =
                        SustainedRate.find(
                                job,
                                config,
                                traffic,
                                published.records() * 1e9 / full.nanos(),
                                (double) published.counterEvents() / published.records(),
                                options.sustainWindow(),
                                line -> say("%s", line));
                rate = SustainedRate.LATENCY_SHARE * sustained;
                say("latency at %,.0f records/s", rate);
            }
            long firstProbeUser =
                    options.fullWorkload().firstUserId()
                            + options.fullWorkload().receivers()
                            + 1000;
            return Latency.measure(
                    config,
                    traffic,
                    rate,
                    options.probesPerSecond(),
                    options.latencyWarmUp(),
                    options.latency(),
                    firstProbeUser,
                    sustained,
                    job::checkpointHistory);
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
        return publish(kafka, config, name, generator, options.records());
    }

    /** Publishes the generator's next {@code count} records to {@code config}'s topics. */
    Traffic publish(
            EmbeddedKafka kafka,
            UnreadConfig config,
            String name,
            TrafficGenerator generator,
            long count)
            throws InterruptedException {
        long records = generator.records();
        long opens = generator.inboxOpens();
        long reads = generator.conversationReads();
        long malformed = generator.malformedRecords();
        long redundant = generator.redundantMessages();
        long ownCopies = ownCopies(generator, config);
        try (TrafficProducer producer =
                new TrafficProducer(
                        kafka.bootstrapServers(),
                        config.messagesTopic,
                        config.readsTopic,
                        config.conversationsTopic)) {
            producer.publish(generator, count);
            if (producer.failed() > 0) {
                throw new IllegalStateException(
                        producer.failed()
                                + " records could not be published to "
                                + kafka.bootstrapServers(),
                        producer.firstFailure());
            }
        }
        records = generator.records() - records;
        opens = generator.inboxOpens() - opens;
        reads = generator.conversationReads() - reads;
        malformed = generator.malformedRecords() - malformed;
        return new Traffic(
                name,
                generator.workload(),
                records,
                records - malformed - opens - reads,
                generator.redundantMessages() - redundant,
                opens,
                reads,
                malformed,
                ownCopies(generator, config) - ownCopies);
    }

    /**
     * The copies a job with {@code config} makes of the generator's records so far for their
     * senders' keys: of the replies, or with {@code --track-root-senders} of every message with a
     * conversation.
     */
    static long ownCopies(TrafficGenerator generator, UnreadConfig config) {
        return config.trackRootSenders ? generator.trackedOwnCopies() : generator.ownCopies();
    }

    Options options() {
        return options;
    }

    Map<String, String> env() {
        return env;
    }

    void say(String format, Object... args) {
        progress.println("bench: " + String.format(format, args));
        progress.flush();
    }

    private static String percent(double share) {
        return String.format(Locale.ROOT, "%.0f%%", share * 100);
    }

    private static long treeSize(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(Bench::size).sum();
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
