package dev.unread.cli;

import dev.unread.UnreadJob;
import dev.unread.api.ApiConfig;
import dev.unread.api.HealthCheck;
import dev.unread.api.StateQueryApi;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.Settings;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.TrafficProducer;
import dev.unread.generator.Workload;
import dev.unread.kafka.EmbeddedKafka;
import dev.unread.kafka.TempDirs;
import dev.unread.local.LocalStores;
import dev.unread.minicluster.LocalCluster;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * {@code unread local}: the whole stack in one process, for development and demos. Apache Kafka's
 * broker with the job's topics ({@link EmbeddedKafka}), a Flink MiniCluster with RocksDB,
 * checkpoints and its web UI, the production job reading that broker and writing to the Redis and
 * MySQL the {@code UNREAD_*} environment names, the HTTP API ({@link StateQueryApi}) on the same
 * Redis, MySQL and broker, and a traffic generator ({@link TrafficGenerator}) publishing to the
 * broker. Where nothing answers at the configured Redis or MySQL on this machine, it starts a Redis
 * and a MariaDB of its own there ({@link LocalStores}), so that Java and Maven are all it needs.
 * Everything listens on 127.0.0.1 only, and all data lives in temp directories deleted on exit:
 * each run starts with empty topics and state (a Redis and a MySQL that answered keep what the job
 * wrote).
 */
public final class LocalStack implements AutoCloseable {

    public static final String NAME = "local";

    private static final Logger LOG = LoggerFactory.getLogger(LocalStack.class);

    private static final String HOST = LocalCluster.HOST;

    /** Parallelism when {@code --parallelism} is 0: keyed state spread over two subtasks. */
    private static final int DEFAULT_PARALLELISM = 2;

    /**
     * Share of the generator's message steps published once on chat-conversations (groups of 3 to
     * 2,000 members, fanned out by the job) beside the producer-fanned groups of 8.
     */
    private static final double PUBLISHED_GROUP_SHARE = 0.05;

    /** The published groups of at least this many members are channels: the largest few. */
    private static final int CHANNEL_MIN_SIZE = 1_000;

    /** Share of the conversation messages deleted right after them, so deletions show too. */
    private static final double DELETED_SHARE = 0.02;

    /** Edits and @channel messages among them: the inbox shows mentions come and go. */
    private static final double EDIT_SHARE = 0.02;

    /**
     * Share of the conversation messages that reply in a thread, with thread reads and follows
     * among the read steps, so that a newcomer sees thread counts on the inbox page.
     */
    private static final double REPLY_SHARE = 0.3;

    /** Of the read steps, the share that mark everything read. */
    private static final double ALL_READ_SHARE = 0.02;

    private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    /** How often {@code unread local} prints a progress line. */
    static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);

    /** A health probe asks the cluster for the job's status; it must answer quickly. */
    private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(2);

    /**
     * What {@code unread local} was asked to run. A port of 0 means any free port; a generator rate
     * of 0 (records per second) no generator; a duration of 0 seconds until Ctrl-C.
     */
    public record Options(
            int kafkaPort,
            int flinkUiPort,
            int apiPort,
            long generateRate,
            long durationSeconds,
            long seed,
            Map<String, String> settings) {

        /** Reads the flags of {@code unread local}, as {@link LocalCommand} declares them. */
        public static Options parse(List<String> args, Map<String, String> env) {
            LocalCommand command = new LocalCommand();
            try {
                new CommandLine(command).parseArgs(args.toArray(String[]::new));
            } catch (CommandLine.ParameterException e) {
                throw new UsageException(e.getMessage(), e);
            }
            return of(command, CommandFlags.given(command.spec()), env);
        }

        /**
         * The options {@code command} was given, checked, with {@code settings}, the job settings
         * given as flags.
         */
        static Options of(
                LocalCommand command, Map<String, String> settings, Map<String, String> env) {
            port("--kafka-port", command.kafkaPort);
            port("--flink-ui-port", command.flinkUiPort);
            port("--api-port", command.apiPort);
            List<Integer> fixed =
                    Stream.of(command.kafkaPort, command.flinkUiPort, command.apiPort)
                            .filter(p -> p != 0)
                            .toList();
            if (fixed.stream().distinct().count() < fixed.size()) {
                throw new UsageException(
                        String.format(
                                "--kafka-port, --flink-ui-port and --api-port must differ,"
                                        + " were %d, %d and %d",
                                command.kafkaPort, command.flinkUiPort, command.apiPort));
            }
            atLeastZero("--generate", command.generateRate, "events per second; 0: none");
            atLeastZero("--duration", command.durationSeconds, "seconds; 0: until Ctrl-C");
            // Check the job and API settings now, before a broker and a cluster start for nothing.
            Map<String, String> check = new HashMap<>(settings);
            check.put(Settings.KAFKA_BOOTSTRAP.name(), HOST + ":" + command.kafkaPort);
            try {
                apiConfig(UnreadConfig.from(check, env), env, command.apiPort);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage(), e);
            }
            return new Options(
                    command.kafkaPort,
                    command.flinkUiPort,
                    command.apiPort,
                    command.generateRate,
                    command.durationSeconds,
                    command.seed,
                    Map.copyOf(settings));
        }

        private static void atLeastZero(String flag, long value, String unit) {
            if (value < 0) {
                throw new UsageException(flag + " must be >= 0 (" + unit + "), was " + value);
            }
        }

        private static void port(String flag, int port) {
            if (port < 0 || port > 65535) {
                throw new UsageException(
                        flag + " must be a port, 0..65535 (0: any free port), was " + port);
            }
        }
    }

    private final EmbeddedKafka kafka;
    private final MiniCluster cluster;
    private final JobID jobId;
    private final URI flinkUi;
    private final UnreadConfig config;
    private final Path dataDir;
    private final LocalStores stores;
    private final StateQueryApi api;

    /** Null when the generator is off. */
    private final TrafficGenerator generator;

    /** Publishes the generator's records; null when it is off. */
    private final TrafficProducer traffic;

    private final long generateRate;
    private final Progress progress;
    private boolean closed;

    private LocalStack(
            EmbeddedKafka kafka,
            MiniCluster cluster,
            JobID jobId,
            URI flinkUi,
            UnreadConfig config,
            Path dataDir,
            LocalStores stores,
            StateQueryApi api,
            TrafficGenerator generator,
            TrafficProducer traffic,
            long generateRate) {
        this.kafka = kafka;
        this.cluster = cluster;
        this.jobId = jobId;
        this.flinkUi = flinkUi;
        this.config = config;
        this.dataDir = dataDir;
        this.stores = stores;
        this.api = api;
        this.generator = generator;
        this.traffic = traffic;
        this.generateRate = generateRate;
        this.progress =
                new Progress(
                        kafka,
                        config.deadLetterTopic,
                        apiUri(),
                        api.config().token,
                        traffic,
                        generator == null ? 0 : generator.mostActiveReceiver());
    }

    /**
     * {@code unread local [flags]}: runs the stack until Ctrl-C (or SIGTERM) or the end of {@code
     * --duration}, then stops it. Prints the ready line, then a progress line every {@link
     * #PROGRESS_EVERY}.
     */
    public static int run(Options options, Unread.Session session) throws Exception {
        CountDownLatch stop = new CountDownLatch(1);
        // Ctrl-C is the way to stop: handled, it is a clean exit with status 0.
        boolean trapped = Signals.trap(stop::countDown, "INT", "TERM");
        LocalStack stack = start(options, session.env(), UnreadJob::forProduction);
        // Without the signal handlers (or on another way out), the JVM's shutdown still stops
        // the job and the broker and removes their data.
        Thread hook = new Thread(stack::close, "unread-local-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            if (!stack.awaitRunning(STARTUP_TIMEOUT, stop)) {
                return Unread.OK;
            }
            stack.startTraffic();
            session.out().println(stack.readyLine());
            session.out().flush();
            long started = System.nanoTime();
            long end =
                    options.durationSeconds() == 0
                            ? Long.MAX_VALUE
                            : started + TimeUnit.SECONDS.toNanos(options.durationSeconds());
            long nextProgress = started + PROGRESS_EVERY.toNanos();
            while (true) {
                long now = System.nanoTime();
                long wait =
                        Math.min(TimeUnit.SECONDS.toNanos(1), Math.min(nextProgress, end) - now);
                if (stop.await(Math.max(wait, 0), TimeUnit.NANOSECONDS)) {
                    break;
                }
                now = System.nanoTime();
                if (now - end >= 0) {
                    LOG.info("Stopping after --duration {} s", options.durationSeconds());
                    break;
                }
                JobStatus status = stack.jobStatus();
                if (status.isGloballyTerminalState()) {
                    session.err().println("unread local: the job ended: " + status);
                    return Unread.FAILED;
                }
                if (now - nextProgress >= 0) {
                    session.out().println(stack.progressLine(Duration.ofNanos(now - started)));
                    session.out().flush();
                    nextProgress += PROGRESS_EVERY.toNanos();
                }
            }
            LOG.info("Stopping: the generator, the API, the job, then the cluster and the broker");
            return Unread.OK;
        } finally {
            stack.close();
            if (trapped) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // The JVM is already shutting down; the hook finds the stack closed.
                }
            }
        }
    }

    /**
     * Starts the broker, creates the topics, starts the cluster, submits {@code job}'s pipeline and
     * starts the API; returns without waiting for the job to run, and without generating traffic
     * ({@link #startTraffic}). Tests pass their own {@code job}.
     */
    static LocalStack start(
            Options options, Map<String, String> env, Function<UnreadConfig, UnreadJob> job)
            throws Exception {
        List<AutoCloseable> started = new ArrayList<>();
        try {
            EmbeddedKafka kafka = EmbeddedKafka.start(options.kafkaPort());
            started.add(kafka);
            Map<String, String> settings = new HashMap<>(options.settings());
            settings.put(Settings.KAFKA_BOOTSTRAP.name(), kafka.bootstrapServers());
            UnreadConfig config = UnreadConfig.from(settings, env);
            kafka.createTopics(
                    config.messagesTopic,
                    config.readsTopic,
                    config.conversationsTopic,
                    config.deadLetterTopic);
            LocalStores stores =
                    LocalStores.start(
                            // A Redis Cluster is never stood in for: its nodes are the user's.
                            config.redisClusterNodes.isEmpty() ? config.redisUrl : null,
                            config.jdbcUrl,
                            config.jdbcUser,
                            config.jdbcPassword);
            started.add(stores);

            Path dataDir = TempDirs.create("unread-local-");
            started.add(() -> TempDirs.delete(dataDir));
            int parallelism = config.parallelism > 0 ? config.parallelism : DEFAULT_PARALLELISM;
            MiniCluster cluster =
                    LocalCluster.start(config, options.flinkUiPort(), dataDir, parallelism);
            started.add(cluster);
            JobID jobId =
                    LocalCluster.submit(cluster, job.apply(config), config, parallelism, null);
            URI flinkUi = cluster.getRestAddress().get();

            StateQueryApi api =
                    StateQueryApi.start(
                            apiConfig(config, env, options.apiPort()),
                            HealthCheck.named("flink", () -> jobProblem(cluster, jobId)));
            started.add(api);

            TrafficGenerator generator = null;
            TrafficProducer traffic = null;
            if (options.generateRate() > 0) {
                generator =
                        new TrafficGenerator(
                                Workload.builder()
                                        .seed(options.seed())
                                        .publishedGroupShare(PUBLISHED_GROUP_SHARE)
                                        .channelMinSize(CHANNEL_MIN_SIZE)
                                        .deletedShare(DELETED_SHARE)
                                        .editShare(EDIT_SHARE)
                                        .replyShare(REPLY_SHARE)
                                        .allReadShare(ALL_READ_SHARE)
                                        .build(),
                                System::currentTimeMillis);
                traffic =
                        new TrafficProducer(
                                kafka.bootstrapServers(),
                                config.messagesTopic,
                                config.readsTopic,
                                config.conversationsTopic);
                started.add(traffic);
            }
            LOG.info(
                    "Started: Kafka {}, Flink UI {}, API port {}, checkpoints in {}, {}",
                    kafka.bootstrapServers(),
                    flinkUi,
                    api.port(),
                    dataDir,
                    config);
            return new LocalStack(
                    kafka,
                    cluster,
                    jobId,
                    flinkUi,
                    config,
                    dataDir,
                    stores,
                    api,
                    generator,
                    traffic,
                    options.generateRate());
        } catch (Exception | Error e) {
            // Undo a partial start, the last thing started first.
            Collections.reverse(started);
            closeAll(started, e);
            throw e;
        }
    }

    /**
     * Waits until every task of the job is running, and returns true; returns false if {@code stop}
     * opens first. A failure of the job while starting (Redis or MySQL unreachable, say) ends the
     * wait with that failure as the cause.
     */
    boolean awaitRunning(Duration timeout, CountDownLatch stop) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!LocalCluster.allRunning(cluster, jobId, "while starting")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the job is not running after " + timeout + ": " + jobStatus());
            }
            if (stop.await(100, TimeUnit.MILLISECONDS)) {
                return false;
            }
        }
        return true;
    }

    /** The line {@code unread local} prints once the job runs. */
    public String readyLine() {
        String traffic =
                generator == null
                        ? "no generator"
                        : String.format(
                                "generating %d events/s for users %d..%d",
                                generateRate,
                                generator.mostActiveReceiver(),
                                generator.mostActiveReceiver()
                                        + generator.workload().receivers()
                                        - 1);
        String ownStores =
                stores.started().isEmpty()
                        ? ""
                        : ", "
                                + stores.started()
                                + " of its own (nothing answered there; deleted on exit)";
        return String.format(
                "unread local is running: Kafka bootstrap %s (topics %s, %s, %s, %s), API %s"
                        + " (inbox page %s), Flink UI %s%s, %s - Ctrl-C stops",
                kafka.bootstrapServers(),
                config.messagesTopic,
                config.readsTopic,
                config.conversationsTopic,
                config.deadLetterTopic,
                apiUri(),
                inboxPage(),
                flinkUi,
                ownStores,
                traffic);
    }

    /** The inbox page, opened on the generator's busiest receiver when there is traffic. */
    private String inboxPage() {
        return apiUri()
                + "/"
                + (generator == null ? "" : "?user=" + generator.mostActiveReceiver());
    }

    /** The line {@code unread local} prints every {@link #PROGRESS_EVERY}. */
    public String progressLine(Duration elapsed) {
        return progress.line(elapsed);
    }

    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    public URI flinkUi() {
        return flinkUi;
    }

    /** The API's base address, {@code http://127.0.0.1:port}. */
    public URI apiUri() {
        return URI.create("http://" + HOST + ":" + api.port());
    }

    public UnreadConfig config() {
        return config;
    }

    public JobID jobId() {
        return jobId;
    }

    /**
     * Bounded, as every call of the loop that also waits for Ctrl-C: a dispatcher slow to answer
     * under load must not keep the stop from being seen.
     */
    public JobStatus jobStatus() throws Exception {
        return cluster.getJobStatus(jobId).get(STATUS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The generator's most active receiver, whose badge the progress line shows; 0 if none. */
    public long mostActiveReceiver() {
        return generator == null ? 0 : generator.mostActiveReceiver();
    }

    /**
     * Starts the generator, if any, at the rate asked for: once the job runs, so that the progress
     * lines count from the ready line.
     */
    public void startTraffic() {
        if (traffic != null) {
            traffic.start(generator, generateRate);
        }
    }

    /** Stops generating; what was published stays. For tests that want the traffic to settle. */
    void stopGenerator() throws InterruptedException {
        if (traffic != null) {
            traffic.close();
        }
    }

    /** The job's execution graph, for tests that look at its tasks and state backend. */
    AccessExecutionGraph executionGraph() throws Exception {
        return cluster.getExecutionGraph(jobId).get();
    }

    /** Cancels the job, stops the cluster and the broker, and deletes their data. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<AutoCloseable> steps = new ArrayList<>();
        if (traffic != null) {
            steps.add(traffic);
        }
        steps.add(api);
        steps.add(progress);
        steps.add(() -> LocalCluster.cancel(cluster, jobId, STOP_TIMEOUT));
        steps.add(() -> cluster.closeAsync().get(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        steps.add(kafka);
        steps.add(() -> TempDirs.delete(dataDir));
        // Last: the job and the API were their only clients.
        steps.add(stores);
        closeAll(steps, null);
    }

    /** The API beside the job: its stores and topics are the job's ({@link JobApi}). */
    private static ApiConfig apiConfig(UnreadConfig config, Map<String, String> env, int port) {
        return JobApi.config(config, env).host(HOST).port(port).build();
    }

    /** For {@code /health}: null while the job runs, else its status. */
    private static String jobProblem(MiniCluster cluster, JobID jobId) throws Exception {
        JobStatus status =
                cluster.getJobStatus(jobId).get(STATUS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return status == JobStatus.RUNNING ? null : "job is " + status;
    }

    /**
     * Runs every step even when one fails: a failure is added to {@code failure} when there is one
     * (undoing a failed start), else logged (stopping).
     */
    private static void closeAll(List<AutoCloseable> steps, Throwable failure) {
        for (AutoCloseable step : steps) {
            try {
                step.close();
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                if (failure != null) {
                    failure.addSuppressed(e);
                } else {
                    LOG.warn("Stopping the local stack", e);
                }
            }
        }
    }
}
