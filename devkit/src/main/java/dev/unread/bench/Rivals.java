package dev.unread.bench;

import dev.unread.config.UnreadConfig;
import dev.unread.peer.BadgePeer;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * What the job is measured against besides the designs it replaces, on the same badge-only records
 * in the same run: the ceiling of Flink and Kafka on this machine (the job's own sources and
 * parsers with everything after them discarded, {@link JobRun#passThrough}), and the badge as a
 * Kafka Streams application ({@link BadgePeer}). Per core is messages over the CPU time of this
 * process while each ran, which holds the broker too, for every side alike.
 */
final class Rivals {

    private static final long POLL_MILLIS = 5;
    private static final long CAUGHT_UP_POLL_MILLIS = 20;

    /** One rival's run over the badge-only records. */
    record Figures(
            long messages, long nanos, long cpuNanos, long redisCommands, long redisCpuNanos) {
        double messagesPerSecond() {
            return messages * 1e9 / nanos;
        }

        double messagesPerCpuSecond() {
            return messages * 1e9 / cpuNanos;
        }

        double commandsPerMessage() {
            return (double) redisCommands / messages;
        }

        /** Redis server CPU per message, in microseconds. */
        double redisCpuMicrosPerMessage() {
            return redisCpuNanos / 1e3 / messages;
        }
    }

    /**
     * @param statefulPassThrough the pass-through with a RocksDB read and write per event: the
     *     least any job keeping exact per-user state in RocksDB does
     */
    record Result(Figures passThrough, Figures statefulPassThrough, Figures peer) {}

    private Rivals() {}

    /**
     * @param config the settings of the first pass-through, whose consumer group is its own
     * @param statefulConfig the same, with another consumer group, for the stateful pass-through
     * @param profileDir where each pass-through writes a JFR recording of its run; null: none
     */
    static Result run(
            UnreadConfig config,
            UnreadConfig statefulConfig,
            Traffic traffic,
            int parallelism,
            Path dataDir,
            Path profileDir,
            Consumer<String> say)
            throws Exception {
        say.accept("pass-through ceiling on the " + traffic.name() + " records");
        Figures passThrough =
                ceiling(
                        JobRun.passThrough(config, parallelism, dataDir.resolve("pass")),
                        traffic,
                        Profile.start(profileDir, "pass-through"));
        say.accept("stateful pass-through on the " + traffic.name() + " records");
        Figures stateful =
                ceiling(
                        JobRun.statefulPassThrough(
                                statefulConfig, parallelism, dataDir.resolve("state")),
                        traffic,
                        Profile.start(profileDir, "stateful pass-through"));
        say.accept("Kafka Streams peer on the " + traffic.name() + " records");
        return new Result(passThrough, stateful, peer(config, traffic, parallelism, dataDir));
    }

    /**
     * A ceiling's figures: {@code started} until it took in every valid record, then stopped. The
     * profile, started with the job, also holds its tasks' start: a ceiling takes in a small run's
     * records faster than it starts.
     */
    private static Figures ceiling(JobRun started, Traffic traffic, Profile profile)
            throws Exception {
        try (JobRun run = started;
                profile) {
            // Watched from before it runs: it takes in a small run's records faster than it starts.
            JobRun.Span span = run.awaitEvents(traffic.validEvents(), JobRun.RUN_TIMEOUT);
            return new Figures(traffic.messages(), span.nanos(), span.cpuNanos(), 0, 0);
        }
    }

    private static Figures peer(UnreadConfig config, Traffic traffic, int parallelism, Path dataDir)
            throws Exception {
        BadgePeer.Settings settings =
                new BadgePeer.Settings(
                        config,
                        "bench-" + System.currentTimeMillis(),
                        parallelism,
                        dataDir.resolve("peer"));
        long redisCpuBefore = RedisKeys.cpuNanos(config.redisEndpoint());
        try (BadgePeer peer = BadgePeer.start(settings)) {
            long deadline = System.nanoTime() + JobRun.RUN_TIMEOUT.toNanos();
            long first = 0;
            long firstCpu = 0;
            while (true) {
                long processed = peer.processed();
                long now = System.nanoTime();
                if (processed > 0 && first == 0) {
                    first = now;
                    firstCpu = CpuTime.process();
                }
                if (processed >= traffic.records() && peer.caughtUp()) {
                    return new Figures(
                            traffic.messages(),
                            System.nanoTime() - first,
                            CpuTime.process() - firstCpu,
                            peer.redisCommands(),
                            RedisKeys.cpuNanos(config.redisEndpoint()) - redisCpuBefore);
                }
                if (now - deadline > 0) {
                    throw new IllegalStateException(
                            "the Kafka Streams peer processed "
                                    + processed
                                    + " of "
                                    + traffic.records()
                                    + " records in "
                                    + JobRun.RUN_TIMEOUT);
                }
                Thread.sleep(processed >= traffic.records() ? CAUGHT_UP_POLL_MILLIS : POLL_MILLIS);
            }
        }
    }
}
