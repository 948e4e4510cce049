package dev.unread.bench;

import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.generator.TrafficProducer;
import dev.unread.generator.TrafficRecord;
import dev.unread.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Channels of any size (issue 47): one channel of many members, the same traffic in a channel of
 * few, and in a group of as few fanned out by the job as in version 4. Each conversation's
 * declaration and memberships are published first and taken in by a run of the job that stops with
 * a savepoint, not measured; then its messages are published and the job, restored from that
 * savepoint, is measured from its first to its last message, as {@link GroupBench} measures: a
 * channel's messages at the channel stage's input (they never reach the counting operator, which
 * sees only the users they name), the group's at the counting operator's, which takes in a delivery
 * per member.
 */
public final class ChannelBench {

    static final String LARGE_RUN = "channel-large";
    static final String SMALL_RUN = "channel-small";
    static final String GROUP_RUN = "channel-group";
    static final String WARM_UP_RUN = "channel-warm-up";

    /** The warm-up channel's messages, at most. */
    static final long WARM_UP_MESSAGES = 50_000;

    /**
     * The share of each run's messages (deliveries, for the group) its rate leaves out: the first,
     * which pay for what runs once. A run restored from its memberships' savepoint meets the
     * message path after a phase of memberships alone, and the channel of 100,000's first messages
     * paid 6.5 to 10.8 CPU-seconds of the JIT's compiling against 1.4 to 2.8 in the channel of
     * 1,000 (2026-12-07T21:33Z-22:08Z, each run's JIT seconds in the report), in runs of 15 to 25
     * CPU-seconds: the rate from the first message measured the compiler's queue as much as the
     * members. The same share of every run, so the runs stay comparable.
     */
    static final double UNMEASURED_SHARE = 0.25;

    /** Issue 47's goals. */
    static final double MESSAGES_PER_SECOND_GOAL = 20_000;

    static final double FLAT_GOAL = 0.8;
    static final double COMMANDS_PER_MESSAGE_GOAL = 8;
    static final double COMMANDS_PER_NAMED_GOAL = 3;

    /**
     * @param members the large channel's members
     * @param smallMembers the small channel's and the group's members
     * @param messages messages in each channel
     * @param groupMessages the first of the same messages in the group, each a delivery per member
     *     but its sender; 0 skips the group's run
     * @param mentionShare the share of messages naming a member by id
     * @param mentionAllShare the share mentioning everyone
     * @param replyShare the share replying to one of the recent roots
     */
    public record Options(
            int members,
            int smallMembers,
            long messages,
            long groupMessages,
            double mentionShare,
            double mentionAllShare,
            double replyShare) {
        public Options {
            if (members < 2 || smallMembers < 2) {
                throw new IllegalArgumentException(
                        "a channel of the bench has 2 members or more, was "
                                + members
                                + " and "
                                + smallMembers);
            }
            if (messages < 1 || groupMessages < 0) {
                throw new IllegalArgumentException(
                        "messages must be >= 1 and group messages >= 0, were "
                                + messages
                                + " and "
                                + groupMessages);
            }
            for (double share : new double[] {mentionShare, mentionAllShare, replyShare}) {
                if (!(share >= 0 && share <= 1)) {
                    throw new IllegalArgumentException("shares must be within 0..1, was " + share);
                }
            }
        }
    }

    /**
     * One conversation's measured run.
     *
     * @param named users named by id in its messages (one per message that names one)
     * @param config the run's settings: its Redis keys are under their prefix
     * @param lurker a member who never sent
     */
    record Run(
            String name,
            boolean channel,
            int members,
            long messages,
            long named,
            long mentionsAll,
            long replies,
            long lurker,
            UnreadConfig config,
            JobFigures job) {

        double messagesPerSecond() {
            return job.messagesPerSecond();
        }

        double commandsPerMessage() {
            return job.commandsPerMessage();
        }

        /** Issue 47's budget: 8 commands per message and 3 per user named by id. */
        double commandBudgetPerMessage() {
            return COMMANDS_PER_MESSAGE_GOAL + COMMANDS_PER_NAMED_GOAL * named / messages;
        }

        double cpuSeconds() {
            return job.cpuNanos() / 1e9;
        }
    }

    /**
     * @param group null when the options skip it
     */
    record Result(Options options, Run large, Run small, Run group) {
        /** The large channel's rate over the small one's: 1 is flat in members. */
        double flatness() {
            return large.messagesPerSecond() / small.messagesPerSecond();
        }
    }

    private ChannelBench() {}

    static Result run(Bench bench, Options options, EmbeddedKafka kafka, Path dataDir)
            throws Exception {
        warmUp(bench, options, kafka, dataDir);
        Run large = run(bench, kafka, LARGE_RUN, true, options.members(), options, dataDir);
        Run small = run(bench, kafka, SMALL_RUN, true, options.smallMembers(), options, dataDir);
        Run group =
                options.groupMessages() == 0
                        ? null
                        : run(
                                bench,
                                kafka,
                                GROUP_RUN,
                                false,
                                options.smallMembers(),
                                options,
                                dataDir);
        return new Result(options, large, small, group);
    }

    /**
     * A channel of the small size, not measured, before the measured runs, as the bench warms the
     * job up before its others: the first measured channel then meets the channel stage's and its
     * sinks' code compiled. Without it the large channel, measured first, paid for the compiling:
     * 10 to 16 CPU-seconds of the JIT's threads in its span against 3 to 5 in the small channel's
     * (2026-12-07, three runs).
     */
    private static void warmUp(Bench bench, Options options, EmbeddedKafka kafka, Path dataDir)
            throws Exception {
        bench.say("warming up: a channel of %,d members, not measured", options.smallMembers());
        Options warm =
                new Options(
                        options.members(),
                        options.smallMembers(),
                        Math.min(options.messages(), WARM_UP_MESSAGES),
                        0,
                        options.mentionShare(),
                        options.mentionAllShare(),
                        options.replyShare());
        run(bench, kafka, WARM_UP_RUN, true, options.smallMembers(), warm, dataDir);
    }

    private static Run run(
            Bench bench,
            EmbeddedKafka kafka,
            String name,
            boolean channel,
            int members,
            Options options,
            Path dataDir)
            throws Exception {
        UnreadConfig config = bench.config(kafka, name);
        ChannelTraffic traffic =
                new ChannelTraffic(channel, members, options, Bench.SYNTHETIC_START_MILLIS);
        String what = channel ? "channel" : "group";
        bench.say("publishing the %s of %,d members and its memberships", what, members);
        long memberships = publish(kafka, config, traffic::memberships);
        bench.say("the job on the %s's memberships, not measured, to a savepoint", what);
        // A channel's records all reach its stage; a group's memberships reach the members' state.
        String savepoint =
                bench.runToSavepoint(
                        config,
                        channel ? UnreadJob.CHANNELS_NAME : null,
                        channel ? memberships : members,
                        dataDir.resolve(name + "-memberships"));
        long messages = channel ? options.messages() : options.groupMessages();
        bench.say("publishing %,d messages to the %s of %,d members", messages, what, members);
        publish(kafka, config, out -> traffic.messages(messages, out));
        // The group's counter takes a delivery per member but the sender, and the sender's copy of
        // a reply (of every message, tracking roots' senders).
        long copies = config.trackRootSenders ? messages : traffic.replies();
        long events = channel ? messages : messages * (members - 1) + copies;
        Traffic measured =
                new Traffic(
                        name,
                        // Not the generator's: ChannelTraffic's own.
                        null,
                        messages,
                        messages,
                        0,
                        0,
                        0,
                        0,
                        channel ? 0 : copies);
        JobFigures job =
                bench.runJob(
                        config,
                        measured,
                        channel ? UnreadJob.CHANNELS_NAME : null,
                        (long) (events * UNMEASURED_SHARE),
                        events,
                        dataDir.resolve(name),
                        savepoint);
        return new Run(
                name,
                channel,
                members,
                messages,
                traffic.named(),
                traffic.mentionsAll(),
                traffic.replies(),
                traffic.lurker(),
                config,
                job);
    }

    /** Publishes what {@code records} gives to the run's topics; returns how many records. */
    private static long publish(
            EmbeddedKafka kafka, UnreadConfig config, Consumer<Consumer<TrafficRecord>> records)
            throws InterruptedException {
        long[] count = {0};
        try (TrafficProducer producer =
                new TrafficProducer(
                        kafka.bootstrapServers(),
                        config.messagesTopic,
                        config.readsTopic,
                        config.conversationsTopic)) {
            records.accept(
                    record -> {
                        producer.send(record);
                        count[0]++;
                    });
            producer.flush();
            if (producer.failed() > 0) {
                throw new IllegalStateException(
                        producer.failed() + " channel records were not published",
                        producer.firstFailure());
            }
        }
        return count[0];
    }
}
