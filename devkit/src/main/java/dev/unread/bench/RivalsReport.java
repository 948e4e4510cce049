package dev.unread.bench;

import static dev.unread.bench.BenchReport.line;
import static dev.unread.bench.BenchReport.met;

/** The part of the report on {@link Rivals}: the job over the ceiling and over the peer. */
final class RivalsReport {

    private RivalsReport() {}

    static void section(StringBuilder md, JobFigures job, Rivals.Result rivals) {
        line(md, "## The job against the ceiling and a Kafka Streams peer (badge-only records)");
        line(md, "");
        line(
                md,
                "| | messages/s | job / it | messages per CPU-second | job / it |"
                        + " Redis commands per message | it / job | Redis CPU µs per message |"
                        + " it / job |");
        line(md, "|---|--:|--:|--:|--:|--:|--:|--:|--:|");
        line(
                md,
                "| **the job** | %,.0f | 1.00 | %,.0f | 1.00 | %.4f | 1.0 | %.3f | 1.0 |",
                job.messagesPerSecond(),
                job.messagesPerCpuSecond(),
                job.commandsPerMessage(),
                job.redisCpuMicrosPerMessage());
        ceilingRow(
                md,
                "pass-through ceiling (same sources and parsers, events discarded)",
                job,
                rivals.passThrough());
        ceilingRow(
                md,
                "stateful pass-through (the same, and a RocksDB read and write per event)",
                job,
                rivals.statefulPassThrough());
        Rivals.Figures peer = rivals.peer();
        line(
                md,
                "| Kafka Streams peer (exactly_once_v2, RocksDB, badge only) | %,.0f | %.2f | %,.0f"
                        + " | %.2f | %.4f | %.1f | %.3f | %.1f |",
                peer.messagesPerSecond(),
                job.messagesPerSecond() / peer.messagesPerSecond(),
                peer.messagesPerCpuSecond(),
                job.messagesPerCpuSecond() / peer.messagesPerCpuSecond(),
                peer.commandsPerMessage(),
                peer.commandsPerMessage() / job.commandsPerMessage(),
                peer.redisCpuMicrosPerMessage(),
                peer.redisCpuMicrosPerMessage() / job.redisCpuMicrosPerMessage());
        line(md, "");
        line(
                md,
                "CPU-seconds are this process's while each ran: the Kafka broker is in it, for"
                        + " all alike.");
        line(md, "");
    }

    /** A ceiling's row: it sends nothing to Redis, so the commands columns are empty. */
    private static void ceilingRow(
            StringBuilder md, String name, JobFigures job, Rivals.Figures ceiling) {
        line(
                md,
                "| %s | %,.0f | %.2f | %,.0f | %.2f | – | – | – | – |",
                name,
                ceiling.messagesPerSecond(),
                job.messagesPerSecond() / ceiling.messagesPerSecond(),
                ceiling.messagesPerCpuSecond(),
                job.messagesPerCpuSecond() / ceiling.messagesPerCpuSecond());
    }

    static void targets(StringBuilder md, JobFigures job, Rivals.Result rivals) {
        double ceiling = job.messagesPerSecond() / rivals.passThrough().messagesPerSecond();
        line(
                md,
                "| job / pass-through ≥ 0.8 (badge-only) | %.2f | %s |",
                ceiling,
                met(ceiling >= 0.8));
        double stateful =
                job.messagesPerSecond() / rivals.statefulPassThrough().messagesPerSecond();
        line(
                md,
                "| (for the above: job / stateful pass-through, and it / pass-through) | %.2f, %.2f |"
                        + " – |",
                stateful,
                rivals.statefulPassThrough().messagesPerSecond()
                        / rivals.passThrough().messagesPerSecond());
        double perCore = job.messagesPerCpuSecond() / rivals.peer().messagesPerCpuSecond();
        line(
                md,
                "| job ahead of the Kafka Streams peer per core | %.2f× | %s |",
                perCore,
                met(perCore > 1));
        double commands = rivals.peer().commandsPerMessage() / job.commandsPerMessage();
        line(
                md,
                "| job ahead of the Kafka Streams peer in Redis commands per message | %.1f× fewer"
                        + " | %s |",
                commands,
                met(commands > 1));
    }
}
