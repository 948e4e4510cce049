package dev.unread.bench;

import static dev.unread.bench.BenchReport.bytes;
import static dev.unread.bench.BenchReport.line;

import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The report's sections on groups published once ({@link GroupBench}), the job on a Redis Cluster
 * ({@link ClusterBench}) and live push under load ({@link LiveLoad}): each figure beside its
 * baseline from the same run, as a ratio.
 */
final class BenchParts {

    private BenchParts() {}

    static void groups(StringBuilder md, GroupBench.Result groups) {
        GroupBench.Run once = groups.once();
        GroupBench.Run producer = groups.producer();
        line(md, "## Groups published once against fan-out by the producer");
        line(md, "");
        line(
                md,
                "%,d generated records: %,d group messages in %d groups of 3 to %,d members"
                        + " (Zipf %.2f by activity), %,d memberships, %,d other events; %,d"
                        + " deliveries (a message to each member but its sender).",
                groups.options().records(),
                groups.groupMessages(),
                groups.options().workload().publishedGroups(),
                groups.options().workload().publishedGroupMaxSize(),
                groups.options().workload().receiverSkew(),
                once.memberships(),
                groups.otherEvents(),
                once.deliveries());
        line(md, "");
        line(md, "| members | groups with messages | messages | deliveries |");
        line(md, "|---|--:|--:|--:|");
        for (GroupBench.SizeClass size : groups.sizes()) {
            line(
                    md,
                    "| %s | %,d | %,d | %,d |",
                    size.maxMembers() == Integer.MAX_VALUE
                            ? String.format(Locale.ROOT, "%,d+", size.minMembers())
                            : String.format(
                                    Locale.ROOT, "%,d–%,d", size.minMembers(), size.maxMembers()),
                    size.groups(),
                    size.messages(),
                    size.deliveries());
        }
        line(md, "");
        runs(md, once, producer, "once / producer");
        line(md, "");
        line(
                md,
                "Deliveries/s: deliveries over the time from the first event reaching the counting"
                        + " operator to the last. State bytes per member: the canonical savepoint at"
                        + " the end over the memberships (the whole job's state, counts included).");
        line(md, "");
        if (groups.threads() != null) {
            groupThreads(md, once, groups.threads());
        }
        if (groups.edits() != null) {
            groupEdits(md, once, groups.edits(), groups.options().editShare());
        }
    }

    /** The run with edits and @channel beside the same groups' run without them, as ratios. */
    private static void groupEdits(
            StringBuilder md, GroupBench.Run without, GroupBench.Edits edits, double share) {
        GroupBench.Run with = edits.run();
        line(md, "### The same groups with edits and channel-wide mentions");
        line(md, "");
        line(
                md,
                "The same generated groups published once, %.0f%% of the messages edited and as"
                        + " many mentioning the whole group: %,d edits, fanned out to %,d"
                        + " records in all (a member's edit decides its mention); %,d deliveries.",
                share * 100,
                edits.edits(),
                edits.editDeliveries(),
                with.deliveries());
        line(md, "");
        runs(md, with, without, "with / without edits");
        line(md, "");
    }

    /** The run with threads beside the same groups' run without them, as ratios. */
    private static void groupThreads(
            StringBuilder md, GroupBench.Run without, GroupBench.Threads threads) {
        GroupBench.Run with = threads.run();
        line(md, "### The same groups with threads");
        line(md, "");
        line(
                md,
                "The same generated groups published once, a share of the messages replies: %,d"
                        + " replies, %,d thread reads and %,d follows or unfollows by members;"
                        + " %,d deliveries.",
                threads.replies(),
                threads.threadReads(),
                threads.threadFollows(),
                with.deliveries());
        line(md, "");
        runs(md, with, without, "with / without threads");
        line(md, "");
    }

    /** Two runs of the same groups, a row each, and a row of {@code a} over {@code b}. */
    private static void runs(
            StringBuilder md, GroupBench.Run a, GroupBench.Run b, String ratioLabel) {
        line(
                md,
                "| | records in | records/s in | deliveries/s | Redis commands per delivery |"
                        + " savepoint | state bytes per member |");
        line(md, "|---|--:|--:|--:|--:|--:|--:|");
        for (GroupBench.Run run : new GroupBench.Run[] {a, b}) {
            line(
                    md,
                    "| %s | %,d | %,.0f | %,.0f | %.4f | %s | %,.0f |",
                    run.name(),
                    run.recordsIn(),
                    run.recordsPerSecond(),
                    run.deliveriesPerSecond(),
                    run.commandsPerDelivery(),
                    bytes(run.job().savepointBytes()),
                    run.stateBytesPerMember());
        }
        line(
                md,
                "| %s | %.3f | %.2f | %.2f | %.2f | %.2f | %.2f |",
                ratioLabel,
                (double) a.recordsIn() / b.recordsIn(),
                a.recordsPerSecond() / b.recordsPerSecond(),
                a.deliveriesPerSecond() / b.deliveriesPerSecond(),
                a.commandsPerDelivery() / b.commandsPerDelivery(),
                (double) a.job().savepointBytes() / b.job().savepointBytes(),
                a.stateBytesPerMember() / b.stateBytesPerMember());
    }

    static void cluster(StringBuilder md, ClusterBench.Result cluster) {
        JobFigures single = cluster.single();
        JobFigures sharded = cluster.cluster();
        line(md, "## Redis Cluster beside the single node (full records)");
        line(md, "");
        line(
                md,
                "The same %,d records, read twice more back to back: on one node, then on a cluster"
                        + " of %d primaries with a replica each on loopback.",
                single.traffic().records(),
                cluster.primaries());
        line(md, "");
        line(
                md,
                "| Redis | messages/s | Redis commands per message | flushes | round trips per"
                        + " flush | checkpoint p50 / max |");
        line(md, "|---|--:|--:|--:|--:|--:|");
        for (JobFigures job : new JobFigures[] {single, sharded}) {
            line(
                    md,
                    "| %s | %,.0f | %.4f | %,d | %.2f | %,d / %,d ms |",
                    job == single ? "one node" : "cluster",
                    job.messagesPerSecond(),
                    job.commandsPerMessage(),
                    job.redisFlushes(),
                    job.roundTripsPerFlush(),
                    job.checkpoints().p50Millis(),
                    job.checkpoints().maxMillis());
        }
        line(
                md,
                "| cluster / one node | %.2f | %.2f | %.2f | %.2f | |",
                sharded.messagesPerSecond() / single.messagesPerSecond(),
                sharded.commandsPerMessage() / single.commandsPerMessage(),
                (double) sharded.redisFlushes() / single.redisFlushes(),
                sharded.roundTripsPerFlush() / single.roundTripsPerFlush());
        line(md, "");
        line(
                md,
                "Round trips: pipelined exchanges of the Redis sinks with one node, as the sinks"
                        + " count them (a batch of at most 1,000 commands; on a cluster one per"
                        + " primary the batch's keys live on), over the buffers flushed.");
        line(md, "");
    }

    /** {@code lighter}: the same streams at the lighter rate, measured first; null if not. */
    static void live(
            StringBuilder md, LiveLoad.Result live, LiveLoad.Result lighter, long flushIntervalMs) {
        line(md, "## Live push: SSE streams on one API instance under the full traffic");
        line(md, "");
        line(
                md,
                "%,d streams asked for, %,d opened (%,d failed) over %,d users; open files limit"
                        + " %,d%s. The job restored from the full run's savepoint, %,.0f records/s of"
                        + " full traffic, flush every %,d ms.",
                live.requested(),
                live.streams(),
                live.failed(),
                live.users(),
                live.openFilesLimit(),
                live.streams() < live.requested() ? " (fewer streams than asked: the limit)" : "",
                live.recordsPerSecond(),
                flushIntervalMs);
        line(md, "");
        line(md, "| API process | before the streams | with them | per stream |");
        line(md, "|---|--:|--:|--:|");
        line(
                md,
                "| resident set (VmRSS) | %s | %s | %,.1f KiB |",
                bytes(live.rssBefore()),
                bytes(live.rssAfter()),
                live.rssPerStream() / 1024);
        line(
                md,
                "| live heap (after a full GC) | %s | %s | %,.1f KiB |",
                bytes(live.heapBefore()),
                bytes(live.heapAfter()),
                live.heapPerStream() / 1024);
        line(md, "");
        line(
                md,
                "| records/s | UNREAD_CHANGED to stream users | deliveries due | seen by the"
                        + " streams | p50 | p99 | max |");
        line(md, "|--:|--:|--:|--:|--:|--:|--:|");
        for (LiveLoad.Result each : new LiveLoad.Result[] {lighter, live}) {
            if (each != null) {
                line(
                        md,
                        "| %,.0f | %,d | %,d | %,d | %.1f ms | %.1f ms | %.1f ms |",
                        each.recordsPerSecond(),
                        each.published(),
                        each.expected(),
                        each.delivered(),
                        each.p50Millis(),
                        each.p99Millis(),
                        each.maxMillis());
            }
        }
        line(md, "");
        if (lighter != null) {
            line(
                    md,
                    "The lighter rate (the latency run's, %.1f× the sustained rate) first, then the"
                            + " rate above, with the same streams and job.",
                    SustainedRate.LIGHTER_SHARE);
            line(md, "");
        }
        line(
                md,
                "Latency: from this JVM's own Redis subscriber seeing an UNREAD_CHANGED (published in"
                        + " the flush that writes the count) to a stream of that user seeing it.");
        line(md, "");
        line(
                md,
                "With the streams open: %,d messages, %.4f Redis commands per message, %.3f µs of"
                        + " Redis CPU per message (server-wide, the API's subscriptions and the"
                        + " job's receipts and readers included); by command: %s.",
                live.messages(),
                live.commandsPerMessage(),
                live.redisCpuMicrosPerMessage(),
                live.callsByCommand().entrySet().stream()
                        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                        .map(
                                e ->
                                        String.format(
                                                Locale.ROOT,
                                                "%s %.4f",
                                                e.getKey(),
                                                (double) e.getValue()
                                                        / Math.max(1, live.messages())))
                        .collect(Collectors.joining(", ")));
        line(md, "");
    }
}
