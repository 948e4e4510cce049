package dev.unread.bench;

import static dev.unread.bench.BenchReport.bytes;
import static dev.unread.bench.BenchReport.line;

import dev.unread.config.UnreadConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report's runs of the full records with one thing more (deleted messages, ALL_READ, edits,
 * roots' senders tracked by the job, a share of users live), each beside the full run of the same
 * bench as ratios.
 */
record BesideFull(
        Bench.Options options,
        UnreadConfig config,
        List<Bench.JobFigures> jobs,
        List<Bench.JobFigures> liveJobs) {

    static void sections(
            StringBuilder md,
            Bench.Options options,
            UnreadConfig config,
            List<Bench.JobFigures> jobs,
            List<Bench.JobFigures> liveJobs) {
        new BesideFull(options, config, jobs, liveJobs).sections(md);
    }

    private void sections(StringBuilder md) {
        Bench.JobFigures deleted = run(Bench.DELETED_RUN);
        if (deleted != null) {
            deletions(md, jobs.get(1), deleted);
        }
        Bench.JobFigures allRead = run(Bench.ALL_READ_RUN);
        if (allRead != null) {
            allReads(md, jobs.get(1), allRead);
        }
        Bench.JobFigures edited = run(Bench.EDITED_RUN);
        if (edited != null) {
            edits(md, jobs.get(1), edited);
        }
        Bench.JobFigures tracked = run(Bench.TRACKED_RUN);
        if (tracked != null) {
            trackedRootSenders(md, jobs.get(1), tracked);
        }
        if (!liveJobs.isEmpty()) {
            liveShare(md);
        }
    }

    /**
     * Issue 35: the full records with replies naming their root's sender, against version 3's way.
     */
    private void trackedRootSenders(
            StringBuilder md, Bench.JobFigures full, Bench.JobFigures tracked) {
        besideFull(
                md,
                "Roots' senders tracked by the job: `--track-root-senders` on the same records",
                "tracked",
                full,
                tracked,
                String.format(
                        Locale.ROOT,
                        "With the setting every conversation message also reaches its sender's"
                                + " state, so the counting operator takes %.2f events per record"
                                + " against %.2f when replies name their root's sender.",
                        (double) tracked.traffic().counterEvents() / tracked.traffic().records(),
                        (double) full.traffic().counterEvents() / full.traffic().records()));
    }

    /**
     * Issue 35: the same records with a share of the receivers live, whose counts are written every
     * flush interval, beside the runs with none, whose counts wait for the background flush.
     */
    private void liveShare(StringBuilder md) {
        line(
                md,
                "## Users with a live stream: %.0f%% of the receivers live beside none",
                options.liveShare() * 100);
        line(md, "");
        line(
                md,
                "Live users' counts are written every %,d ms with their change messages, everyone"
                        + " else's every %,d ms (`--background-flush-interval-ms`) and at every"
                        + " checkpoint.",
                config.flushIntervalMs,
                config.backgroundFlushIntervalMs);
        line(md, "");
        line(
                md,
                "| run | messages/s | Redis commands per message | Redis CPU µs per message |"
                        + " Redis commands per message, by command |");
        line(md, "|---|--:|--:|--:|---|");
        List<Bench.JobFigures> runs = new ArrayList<>(jobs.subList(0, Math.min(2, jobs.size())));
        runs.addAll(liveJobs);
        for (Bench.JobFigures run : runs) {
            line(
                    md,
                    "| %s | %,.0f | %.4f | %.3f | %s |",
                    run.traffic().name(),
                    run.messagesPerSecond(),
                    run.commandsPerMessage(),
                    run.redisCpuMicrosPerMessage(),
                    BenchReport.perMessage(run.callsByCommand(), run.traffic().messages()));
        }
    }

    /** The run beside the full one named {@code name}, or null when the bench skipped it. */
    private Bench.JobFigures run(String name) {
        return jobs.stream().filter(j -> j.traffic().name().equals(name)).findFirst().orElse(null);
    }

    /** Issue 36: the full records against the same with edits and channel-wide mentions. */
    private void edits(StringBuilder md, Bench.JobFigures full, Bench.JobFigures edited) {
        besideFull(
                md,
                String.format(
                        Locale.ROOT,
                        "Edits and channel-wide mentions: %.0f%% of the conversation messages"
                                + " edited, as many mentioning the whole channel",
                        options.editedWorkload().editShare() * 100),
                "edited",
                full,
                edited,
                "An edit is one chat-messages record to one receiver; the receiver keeps its newest"
                        + " time and verdict only while the message is unread.");
    }

    /** Issue 37: the full records against the same with a share of read steps as ALL_READ. */
    private void allReads(StringBuilder md, Bench.JobFigures full, Bench.JobFigures allRead) {
        besideFull(
                md,
                String.format(
                        Locale.ROOT,
                        "Mark all as read: %.0f%% of the read steps ALL_READ",
                        options.allReadWorkload().allReadShare() * 100),
                "all read",
                full,
                allRead,
                "Both runs keep the sentAt of every unread message; an ALL_READ passes once over"
                        + " its user's conversations and threads.");
    }

    /** Issue 26: the full records against the same with some messages deleted. */
    private void deletions(StringBuilder md, Bench.JobFigures full, Bench.JobFigures deleted) {
        besideFull(
                md,
                String.format(
                        Locale.ROOT,
                        "Deleted messages: %.0f%% of the conversation messages deleted",
                        options.deletedWorkload().deletedShare() * 100),
                "deleted",
                full,
                deleted,
                "A deletion is published once and taken in by the counting operator once per"
                        + " participant; each user keeps a deleted seq only while it is past"
                        + " the user's cursor.");
    }

    /**
     * A run of the full records with one feature's traffic in them ({@code other}, its row named
     * {@code label}) beside the full run of the same bench, each figure as a ratio to the full
     * run's.
     */
    private void besideFull(
            StringBuilder md,
            String title,
            String label,
            Bench.JobFigures full,
            Bench.JobFigures other,
            String note) {
        line(md, "## %s (full records)", title);
        line(md, "");
        line(
                md,
                "| run | messages/s | Redis commands per message | Redis CPU µs per message |"
                        + " savepoint | bytes per entry |");
        line(md, "|---|--:|--:|--:|--:|--:|");
        for (Bench.JobFigures job : List.of(full, other)) {
            line(
                    md,
                    "| %s | %,.0f | %.4f | %.3f | %s | %.1f |",
                    job.traffic().name(),
                    job.messagesPerSecond(),
                    job.commandsPerMessage(),
                    job.redisCpuMicrosPerMessage(),
                    bytes(job.savepointBytes()),
                    job.bytesPerEntry());
        }
        line(
                md,
                "| %s / full | %.2f | %.2f | %.2f | %.2f | %.2f |",
                label,
                other.messagesPerSecond() / full.messagesPerSecond(),
                other.commandsPerMessage() / full.commandsPerMessage(),
                other.redisCpuMicrosPerMessage() / full.redisCpuMicrosPerMessage(),
                (double) other.savepointBytes() / full.savepointBytes(),
                other.bytesPerEntry() / full.bytesPerEntry());
        line(md, "");
        line(md, "%s", note);
        line(md, "");
    }
}
