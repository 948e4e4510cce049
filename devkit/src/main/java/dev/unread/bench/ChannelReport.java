package dev.unread.bench;

import static dev.unread.bench.BenchReport.line;
import static dev.unread.bench.BenchReport.met;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The report's section on channels of any size ({@link ChannelBench}), each figure by its goal. */
final class ChannelReport {

    private ChannelReport() {}

    static void section(StringBuilder md, ChannelBench.Result channels) {
        ChannelBench.Options options = channels.options();
        ChannelBench.Run large = channels.large();
        line(
                md,
                "## Channels: %,d members beside %,d, and a group of %,d",
                large.members(),
                channels.small().members(),
                channels.small().members());
        line(md, "");
        line(
                md,
                "Each conversation declared (a channel) and its members joined first, taken in by a"
                        + " run of the job stopped with a savepoint, not measured; then %,d"
                        + " messages, %.0f%% naming a member by id, %.0f%% mentioning everyone,"
                        + " %.0f%% replying to one of the recent roots (%,d users named, %,d"
                        + " @all, %,d replies in the large channel), read by the job restored from"
                        + " that savepoint. The group reads the first %,d of the same messages,"
                        + " each a delivery per member but its sender.",
                large.messages(),
                options.mentionShare() * 100,
                options.mentionAllShare() * 100,
                options.replyShare() * 100,
                large.named(),
                large.mentionsAll(),
                large.replies(),
                options.groupMessages());
        line(md, "");
        line(
                md,
                "| | members | messages | users named by id | messages/s | whole run, messages/s |"
                        + " Redis commands per message | goal (8 + 3 per user named) | job CPU s |"
                        + " of it JIT s | stolen | Redis CPU µs per message |");
        line(md, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
        for (ChannelBench.Run run : runs(channels)) {
            line(
                    md,
                    "| %s | %,d | %,d | %,d | %,.0f | %,.0f | %.3f | %s | %.1f | %.1f | %.0f%% |"
                            + " %.3f |",
                    run.channel() ? "channel" : "group (fanned out)",
                    run.members(),
                    run.messages(),
                    run.named(),
                    run.messagesPerSecond(),
                    run.job().wholeRunMessagesPerSecond(),
                    run.commandsPerMessage(),
                    run.channel()
                            ? String.format(Locale.ROOT, "≤ %.2f", run.commandBudgetPerMessage())
                            : "–",
                    run.cpuSeconds(),
                    run.job().compilingMillis() / 1e3,
                    100 * run.job().stolenShare(),
                    run.job().redisCpuMicrosPerMessage());
        }
        line(md, "");
        line(
                md,
                "Messages/s: the messages reaching the channel stage (the counting operator, for"
                        + " the group) after the first %.0f%% of them, to the last: the first pay"
                        + " for what runs once, the JIT's compiling of the message path above all."
                        + " Whole run: from the first message."
                        + " Commands: every Redis command the"
                        + " job's sinks sent over the run, per message. Job CPU: this process's"
                        + " (the job, the broker and the bench's polling) over the measured span,"
                        + " and of it the JIT's compiling, a cost of the run rather than of each"
                        + " message. Stolen:"
                        + " the share of the machine's time over that span the host gave to other"
                        + " guests (/proc/stat's steal); the rate falls with it, the CPU does not.",
                100 * ChannelBench.UNMEASURED_SHARE);
        line(md, "");
        line(md, "| | Redis commands per message, by sink | by command (server-wide) |");
        line(md, "|---|---|---|");
        for (ChannelBench.Run run : runs(channels)) {
            line(
                    md,
                    "| %s of %,d | %s | %s |",
                    run.channel() ? "channel" : "group",
                    run.members(),
                    BenchReport.perMessage(run.job().commandsBySink(), run.messages()),
                    BenchReport.perMessage(run.job().callsByCommand(), run.messages()));
        }
        line(md, "");
        line(md, "| | index writes per message | track writes per message |");
        line(md, "|---|--:|--:|");
        for (ChannelBench.Run run : List.of(channels.large(), channels.small())) {
            JobFigures.ChannelWrites writes = run.job().channelWrites();
            line(
                    md,
                    "| channel of %,d | %.3f | %.3f |",
                    run.members(),
                    (double) writes.index() / run.messages(),
                    (double) writes.tracks() / run.messages());
        }
        line(md, "");
        line(
                md,
                "The channel stage's own metrics (`channelIndexWrites`, `channelTrackWrites`): the"
                        + " index's writes stay about one per message whatever the members; the"
                        + " tracks' are the part that grows with the members a message touches.");
        line(md, "");
    }

    /** Issue 47's goals for the channel runs. */
    static void targets(StringBuilder md, ChannelBench.Result channels) {
        ChannelBench.Run large = channels.large();
        line(
                md,
                "| ≥ %,.0f messages/s into the channel of %,d members | %,.0f | %s |",
                ChannelBench.MESSAGES_PER_SECOND_GOAL,
                large.members(),
                large.messagesPerSecond(),
                met(large.messagesPerSecond() >= ChannelBench.MESSAGES_PER_SECOND_GOAL));
        line(
                md,
                "| channel of %,d members ≥ %.1f× the channel of %,d's messages/s (flat in"
                        + " members) | %.2f× | %s |",
                large.members(),
                ChannelBench.FLAT_GOAL,
                channels.small().members(),
                channels.flatness(),
                met(channels.flatness() >= ChannelBench.FLAT_GOAL));
        line(
                md,
                "| ≤ 8 Redis commands per message + 3 per user named by id (channel of %,d: ≤ %.2f)"
                        + " | %.3f | %s |",
                large.members(),
                large.commandBudgetPerMessage(),
                large.commandsPerMessage(),
                met(large.commandsPerMessage() <= large.commandBudgetPerMessage()));
    }

    private static List<ChannelBench.Run> runs(ChannelBench.Result channels) {
        List<ChannelBench.Run> runs = new ArrayList<>(List.of(channels.large(), channels.small()));
        if (channels.group() != null) {
            runs.add(channels.group());
        }
        return runs;
    }
}
