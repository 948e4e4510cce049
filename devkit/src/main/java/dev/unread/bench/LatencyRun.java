package dev.unread.bench;

import dev.unread.config.UnreadConfig;
import dev.unread.generator.TrafficGenerator;
import dev.unread.kafka.EmbeddedKafka;
import java.util.Locale;
import java.util.Map;

/**
 * The bench's latency step: the job restored from the full run's savepoint, its latency measured
 * under traffic at a rate given or found ({@link Latency}, {@link SustainedRate}).
 */
final class LatencyRun {

    /** The latency run's checkpoint interval, whatever the throughput runs use: issue 15's. */
    static final long LATENCY_CHECKPOINT_INTERVAL_MS = 10_000;

    private LatencyRun() {}

    /**
     * What the latency step measured: at the rate given or at {@link SustainedRate#LATENCY_SHARE}
     * of the rate found, and before it, when the rate was found, at {@link
     * SustainedRate#LIGHTER_SHARE} of it in the same job (else null).
     */
    record Measured(Latency.Result result, Latency.Result lighter) {}

    /**
     * Measures latency on the full records' topics at {@code rate} records per second, or at the
     * rate found when none is given.
     */
    static Measured run(
            Bench bench,
            EmbeddedKafka kafka,
            TrafficGenerator fullTraffic,
            double rate,
            JobFigures fullJob)
            throws Exception {
        bench.say(
                "latency: for %d s after %d s, restored from the full run's savepoint, at" + " %s",
                bench.options().latency().toSeconds(),
                bench.options().latencyWarmUp().toSeconds(),
                bench.options().latencyRecordsPerSecond() > 0
                                || bench.options().sustainWindow().isZero()
                        ? String.format(Locale.ROOT, "%,.0f records/s", rate)
                        : "0.8x the rate the job sustains");
        return measure(
                bench,
                bench.config(
                        kafka,
                        "full",
                        "full",
                        Map.of(
                                "checkpoint-interval-ms",
                                Long.toString(LATENCY_CHECKPOINT_INTERVAL_MS))),
                fullTraffic,
                rate,
                fullJob);
    }

    private static Measured measure(
            Bench bench,
            UnreadConfig config,
            TrafficGenerator traffic,
            double rate,
            JobFigures full)
            throws Exception {
        try (JobRun job = bench.startJob(config, full.savepoint())) {
            job.awaitRunning(JobRun.START_TIMEOUT);
            double sustained = Double.NaN;
            if (bench.options().latencyRecordsPerSecond() == 0
                    && !bench.options().sustainWindow().isZero()) {
                Traffic published = full.traffic();
                sustained =
                        SustainedRate.find(
                                job,
                                config,
                                traffic,
                                published.records() * 1e9 / full.nanos(),
                                (double) published.counterEvents() / published.records(),
                                bench.options().sustainWindow(),
                                line -> bench.say("%s", line));
            }
            long firstProbeUser =
                    bench.options().fullWorkload().firstUserId()
                            + bench.options().fullWorkload().receivers()
                            + 1000;
            Latency.Result lighter = null;
            if (!Double.isNaN(sustained)) {
                // The lighter rate first: the search's last try left the job caught up, and the
                // heavier one after it then finds the job as warm as the search left it.
                double lighterRate = SustainedRate.LIGHTER_SHARE * sustained;
                bench.say("latency at %,.0f records/s", lighterRate);
                // Probe users of its own: probe k to a user makes its badge k, so users a measure
                // already raised would read as landed at once.
                lighter =
                        measure(
                                config,
                                traffic,
                                lighterRate,
                                firstProbeUser + Latency.PROBE_USERS,
                                sustained,
                                bench,
                                job);
                rate = SustainedRate.LATENCY_SHARE * sustained;
                bench.say("latency at %,.0f records/s", rate);
            }
            return new Measured(
                    measure(config, traffic, rate, firstProbeUser, sustained, bench, job), lighter);
        }
    }

    private static Latency.Result measure(
            UnreadConfig config,
            TrafficGenerator traffic,
            double rate,
            long firstProbeUser,
            double sustained,
            Bench bench,
            JobRun job)
            throws Exception {
        return Latency.measure(
                config,
                traffic,
                rate,
                bench.options().probesPerSecond(),
                bench.options().latencyWarmUp(),
                bench.options().latency(),
                firstProbeUser,
                sustained,
                job::checkpointHistory);
    }
}
