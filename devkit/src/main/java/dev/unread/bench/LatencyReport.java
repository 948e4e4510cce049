package dev.unread.bench;

import static dev.unread.bench.BenchReport.line;
import static dev.unread.bench.BenchReport.met;

import dev.unread.config.UnreadConfig;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The part of the report on {@link Latency}: Kafka to Redis at 0.8× and 0.7× the rate sustained.
 */
final class LatencyReport {

    private LatencyReport() {}

    static void section(
            StringBuilder md,
            BenchOptions options,
            UnreadConfig config,
            Latency.Result latency,
            Latency.Result lighterLatency) {
        line(md, "## Latency, Kafka to Redis");
        line(md, "");
        line(
                md,
                "%,.0f records/s of full traffic (%s), restored from the savepoint above,"
                        + " checkpoints every %,d ms, Redis flush every %,d ms for live users and"
                        + " every %,d ms for the others; probes all along (half of the probe users"
                        + " live), the first %d s after the restore reported apart.",
                latency.recordsPerSecond(),
                Double.isNaN(latency.sustainedRecordsPerSecond())
                        ? "the rate asked for"
                        : String.format(
                                Locale.ROOT,
                                "%.1f× the %,.0f records/s the job sustained for %d s with the"
                                        + " producer running",
                                SustainedRate.LATENCY_SHARE,
                                latency.sustainedRecordsPerSecond(),
                                options.sustainWindow().toSeconds()),
                LatencyRun.LATENCY_CHECKPOINT_INTERVAL_MS,
                config.flushIntervalMs,
                config.backgroundFlushIntervalMs,
                options.latencyWarmUp().toSeconds());
        line(md, "");
        line(md, "| probes sent | probes | landed | p50 | p99 | max |");
        line(md, "|---|--:|--:|--:|--:|--:|");
        latencyRow(
                md,
                String.format(
                        "in the first %d s after the restore", options.latencyWarmUp().toSeconds()),
                latency.afterRestore());
        steadyRows(
                md,
                String.format("in the %d s after that", options.latency().toSeconds()),
                latency);
        line(md, "");
        latencyTail(md, latency.tail());
        if (lighterLatency != null) {
            line(
                    md,
                    "Before it, in the same job: %,.0f records/s (%.1f× the rate sustained), the"
                            + " same kind of probes, to probe users of their own.",
                    lighterLatency.recordsPerSecond(),
                    SustainedRate.LIGHTER_SHARE);
            line(md, "");
            line(md, "| probes sent | probes | landed | p50 | p99 | max |");
            line(md, "|---|--:|--:|--:|--:|--:|");
            steadyRows(
                    md,
                    String.format(
                            "in the %d s after the first %d s",
                            options.latency().toSeconds(), options.latencyWarmUp().toSeconds()),
                    lighterLatency);
            line(md, "");
        }
    }

    /**
     * A measure's probes after its first seconds: all of them, then live users' and the others'.
     */
    private static void steadyRows(StringBuilder md, String name, Latency.Result result) {
        latencyRow(md, name, result.steady());
        latencyRow(md, "of those, to live users", result.steadyLive());
        latencyRow(md, "of those, to users nobody watches", result.steadyOther());
    }

    /** Where the live users' slowest probes come from: checkpoints, or the Redis flushes. */
    private static void latencyTail(StringBuilder md, Latency.Tail tail) {
        line(
                md,
                "The live users' tail: %d of their probes took over %.0f ms, %d of them in flight"
                        + " when one of the %d checkpoints of the measured part was triggered"
                        + " (end to end %s ms).",
                tail.slow(),
                Latency.LIVE_TARGET_MILLIS,
                tail.slowMetCheckpoint(),
                tail.checkpoints().size(),
                tail.checkpoints().stream()
                        .map(c -> Long.toString(c.endToEndMillis()))
                        .collect(Collectors.joining(", ")));
        line(md, "");
        line(md, "| live probes | probes | landed | p50 | p99 | max |");
        line(md, "|---|--:|--:|--:|--:|--:|");
        latencyRow(md, "in flight when a checkpoint was triggered", tail.metCheckpoint());
        latencyRow(md, "the others", tail.rest());
        latencyRow(md, "all, from the send to the broker's acknowledgement", tail.toKafka());
        line(md, "");
        line(md, "| Redis sink | flushes kept | flush p50 | flush p99 | flush max |");
        line(md, "|---|--:|--:|--:|--:|");
        tail.flushMillis()
                .forEach(
                        (sink, millis) ->
                                line(
                                        md,
                                        "| %s | %,d | %.1f ms | %.1f ms | %d ms |",
                                        sink,
                                        millis.flushes(),
                                        millis.p50(),
                                        millis.p99(),
                                        millis.max()));
        line(md, "");
    }

    private static void latencyRow(StringBuilder md, String name, Latency.Window window) {
        if (window.probes() == 0) {
            return;
        }
        line(
                md,
                "| %s | %,d | %,d | %.1f ms | %.1f ms | %.1f ms |",
                name,
                window.probes(),
                window.landed(),
                window.p50Millis(),
                window.p99Millis(),
                window.maxMillis());
    }

    /** The latency rows of the report's targets. */
    static void targets(
            StringBuilder md,
            BenchOptions options,
            UnreadConfig config,
            Latency.Result latency,
            Latency.Result lighterLatency) {
        line(
                md,
                "| Kafka → Redis p99 ≤ 500 ms for live users, at %.1f× the sustained rate,"
                        + " after the first %d s | %.0f ms | %s |",
                SustainedRate.LATENCY_SHARE,
                options.latencyWarmUp().toSeconds(),
                latency.steadyLive().p99Millis(),
                met(latency.steadyLive().p99Millis() <= Latency.LIVE_TARGET_MILLIS));
        long otherGoal = config.backgroundFlushIntervalMs + (long) Latency.LIVE_TARGET_MILLIS;
        line(
                md,
                "| Kafka → Redis p99 ≤ %,d ms (background interval + 500 ms) for the other"
                        + " users | %.0f ms | %s |",
                otherGoal,
                latency.steadyOther().p99Millis(),
                met(latency.steadyOther().p99Millis() <= otherGoal));
        if (lighterLatency != null) {
            line(
                    md,
                    "| (for the above, at %.1f× the sustained rate: live users' p99, the other"
                            + " users') | %.0f ms, %.0f ms | – |",
                    SustainedRate.LIGHTER_SHARE,
                    lighterLatency.steadyLive().p99Millis(),
                    lighterLatency.steadyOther().p99Millis());
        }
    }
}
