package dev.unread.bench;

import static dev.unread.bench.BenchReport.bytes;
import static dev.unread.bench.BenchReport.line;

import dev.unread.config.UnreadConfig;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.Workload;
import dev.unread.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's runs of the full records with one thing more (deleted messages, ALL_READ, edits,
 * roots' senders tracked by the job, a share of users live), each beside the full run of the same
 * bench as ratios.
 */
record BesideFull(
        BenchOptions options,
        UnreadConfig config,
        List<JobFigures> jobs,
        List<JobFigures> liveJobs) {

    /**
     * The runs of the full records with one thing more that {@code bench}'s options ask for, in the
     * order the report lists them.
     */
    static List<JobFigures> run(
            Bench bench,
            EmbeddedKafka kafka,
            Traffic full,
            TrafficGenerator fullTraffic,
            Path dataDir)
            throws Exception {
        List<JobFigures> runs = new ArrayList<>();
        Workload deleted = bench.options().deletedWorkload();
        if (deleted != null) {
            String what = percent(deleted.deletedShare()) + " of conversation messages deleted";
            runs.add(run(bench, kafka, "deleted", DELETED_RUN, deleted, what, dataDir));
        }
        Workload allRead = bench.options().allReadWorkload();
        if (allRead != null) {
            String what = percent(allRead.allReadShare()) + " of read steps ALL_READ";
            runs.add(run(bench, kafka, "all-read", ALL_READ_RUN, allRead, what, dataDir));
        }
        Workload edited = bench.options().editedWorkload();
        if (edited != null) {
            String what =
                    percent(edited.editShare())
                            + " of conversation messages edited and as many mentioning the"
                            + " whole channel";
            runs.add(run(bench, kafka, "edited", EDITED_RUN, edited, what, dataDir));
        }
        if (bench.options().trackRootSendersRun()) {
            runs.add(runTrackingRootSenders(bench, kafka, full, fullTraffic, dataDir));
        }
        return runs;
    }

    /**
     * The full records with one thing more ({@code workload}, {@code what} it adds), published to
     * topics of their own and run as {@code run}, for what that thing costs beside the full run.
     * The counting operator takes a deletion in once per participant or member, not as the one
     * record published.
     */
    private static JobFigures run(
            Bench bench,
            EmbeddedKafka kafka,
            String topics,
            String run,
            Workload workload,
            String what,
            Path dataDir)
            throws Exception {
        UnreadConfig config = bench.config(kafka, topics);
        TrafficGenerator generator = Bench.generator(workload);
        bench.say("publishing %,d records of full traffic, %s", bench.options().records(), what);
        Traffic traffic = bench.publish(kafka, config, run, generator);
        return bench.runJob(
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
    private static JobFigures runTrackingRootSenders(
            Bench bench,
            EmbeddedKafka kafka,
            Traffic full,
            TrafficGenerator generator,
            Path dataDir)
            throws Exception {
        UnreadConfig config =
                bench.config(kafka, "full", "full-tracked", Map.of("track-root-senders", "true"));
        return bench.runJob(
                config,
                full.named(TRACKED_RUN, Traffic.ownCopies(generator, config)),
                dataDir.resolve("tracked"));
    }

    /**
     * The job on {@code workload}'s records again, with {@link BenchOptions#liveShare} of the
     * receivers registered live before it starts: what users with a live stream cost beside the run
     * with none, whose counts wait for the background flush.
     */
    static JobFigures runLive(
            Bench bench, EmbeddedKafka kafka, String workload, Traffic traffic, Path dataDir)
            throws Exception {
        UnreadConfig config = bench.config(kafka, workload, workload + "-live", Map.of());
        int users =
                RedisKeys.registerLive(
                        config.redisEndpoint(),
                        config.redisKeyPrefix,
                        traffic.workload(),
                        bench.options().liveShare());
        bench.say(
                "%,d users live (%.0f%% of the receivers)",
                users, bench.options().liveShare() * 100);
        return bench.runJob(
                config,
                traffic.named(
                        String.format(
                                Locale.ROOT,
                                "%s, %.0f%% live",
                                traffic.name(),
                                bench.options().liveShare() * 100)),
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

    static void sections(
            StringBuilder md,
            BenchOptions options,
            UnreadConfig config,
            List<JobFigures> jobs,
            List<JobFigures> liveJobs) {
        new BesideFull(options, config, jobs, liveJobs).sections(md);
    }

    private void sections(StringBuilder md) {
        JobFigures deleted = run(DELETED_RUN);
        if (deleted != null) {
            deletions(md, jobs.get(1), deleted);
        }
        JobFigures allRead = run(ALL_READ_RUN);
        if (allRead != null) {
            allReads(md, jobs.get(1), allRead);
        }
        JobFigures edited = run(EDITED_RUN);
        if (edited != null) {
            edits(md, jobs.get(1), edited);
        }
        JobFigures tracked = run(TRACKED_RUN);
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
    private void trackedRootSenders(StringBuilder md, JobFigures full, JobFigures tracked) {
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
        List<JobFigures> runs = new ArrayList<>(jobs.subList(0, Math.min(2, jobs.size())));
        runs.addAll(liveJobs);
        for (JobFigures run : runs) {
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
    private JobFigures run(String name) {
        return jobs.stream().filter(j -> j.traffic().name().equals(name)).findFirst().orElse(null);
    }

    /** Issue 36: the full records against the same with edits and channel-wide mentions. */
    private void edits(StringBuilder md, JobFigures full, JobFigures edited) {
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
    private void allReads(StringBuilder md, JobFigures full, JobFigures allRead) {
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
    private void deletions(StringBuilder md, JobFigures full, JobFigures deleted) {
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
            JobFigures full,
            JobFigures other,
            String note) {
        line(md, "## %s (full records)", title);
        line(md, "");
        line(
                md,
                "| run | messages/s | Redis commands per message | Redis CPU µs per message |"
                        + " savepoint | bytes per entry |");
        line(md, "|---|--:|--:|--:|--:|--:|");
        for (JobFigures job : List.of(full, other)) {
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

    private static String percent(double share) {
        return String.format(Locale.ROOT, "%.0f%%", share * 100);
    }
}
