package dev.unread.bench;

import dev.unread.config.UnreadConfig;
import dev.unread.counter.Threads;
import dev.unread.events.ConversationEvent;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.TrafficProducer;
import dev.unread.generator.TrafficRecord;
import dev.unread.generator.Workload;
import dev.unread.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Group conversations published once against what a producer does without them (issue 12): the same
 * generated group traffic is published twice in one pass, once as the generator makes it
 * (MEMBER_JOINED, then MESSAGE on {@code chat-conversations}: the job fans out by membership) and
 * once fanned out by {@link ProducerFanOut} (a {@code chat-messages} record per member but the
 * sender), and the job runs on each, one after the other in the same JVM.
 *
 * <p>With a reply share, a third run reads the same groups with threads (issue 25), published once:
 * the generator's same messages, a share of them replies, and members' thread reads and follows
 * after some replies, so its state per member and Redis commands per delivery stand beside the run
 * without threads.
 */
public final class GroupBench {

    /** Upper bounds of the group-size classes the report breaks the traffic down by. */
    private static final int[] SIZE_CLASSES = {9, 99, 999, Integer.MAX_VALUE};

    /**
     * @param workload the group traffic: {@code publishedGroupShare} of message steps in groups
     *     published once, {@code publishedGroups} of them up to {@code publishedGroupMaxSize}
     * @param records records the generator makes (the producer's fan-out publishes more)
     * @param replyShare the share of the threads run's messages that reply (its workload's {@code
     *     replyShare}); 0 skips that run
     */
    public record Options(Workload workload, long records, double replyShare) {
        public Options {
            if (!(replyShare >= 0 && replyShare <= 1)) {
                throw new IllegalArgumentException(
                        "replyShare must be in 0..1 (0 skips the run with threads), was "
                                + replyShare);
            }
        }
    }

    /**
     * One way of publishing the traffic and the job's figures on it.
     *
     * @param recordsIn valid records the job read
     * @param deliveries per-user messages made of group messages (by the job or the producer)
     * @param memberships members over all groups: what the state is divided by
     */
    record Run(
            String name, long recordsIn, long deliveries, long memberships, Bench.JobFigures job) {
        double recordsPerSecond() {
            return recordsIn * 1e9 / job.nanos();
        }

        double deliveriesPerSecond() {
            return deliveries * 1e9 / job.nanos();
        }

        double commandsPerDelivery() {
            return (double) job.redisCommands() / deliveries;
        }

        double stateBytesPerMember() {
            return (double) job.savepointBytes() / memberships;
        }
    }

    /** Group traffic of one size class: groups with messages, the messages, their deliveries. */
    record SizeClass(int minMembers, int maxMembers, long groups, long messages, long deliveries) {}

    /**
     * The run with threads: its replies, thread reads and follows among its records, and the job's
     * figures on it.
     */
    record Threads(long replies, long threadReads, long threadFollows, Run run) {}

    /**
     * @param threads null when the options' reply share is 0
     */
    record Result(
            Options options,
            long groupMessages,
            long otherEvents,
            List<SizeClass> sizes,
            Run once,
            Run producer,
            Threads threads) {}

    private GroupBench() {}

    static Result run(Bench bench, Options options, EmbeddedKafka kafka, Path dataDir)
            throws Exception {
        UnreadConfig onceConfig = bench.config(kafka, "group-once");
        UnreadConfig producerConfig = bench.config(kafka, "group-producer");
        UnreadConfig threadsConfig = bench.config(kafka, "group-threads");
        bench.say(
                "publishing %,d records of group traffic, once and fanned out by the producer",
                options.records());
        TrafficGenerator generator = Bench.generator(options.workload());
        ProducerFanOut fanOut = new ProducerFanOut();
        TrafficGenerator threaded =
                options.replyShare() > 0 ? Bench.generator(threadWorkload(options)) : null;
        // Counts the threaded records' deliveries; publishes nothing.
        ProducerFanOut threadedMembers = new ProducerFanOut();
        long threadedValid = 0;
        long onceValid = 0;
        long[] producerValid = {0};
        long[] groups = new long[SIZE_CLASSES.length];
        long[] messages = new long[SIZE_CLASSES.length];
        long[] deliveries = new long[SIZE_CLASSES.length];
        Set<Long> seen = new HashSet<>();
        try (TrafficProducer once = producer(kafka, onceConfig);
                TrafficProducer producer = producer(kafka, producerConfig);
                TrafficProducer threads =
                        threaded == null ? null : producer(kafka, threadsConfig)) {
            for (long i = 0; i < options.records(); i++) {
                TrafficRecord record = generator.next();
                once.send(record);
                if (record.valid()) {
                    onceValid++;
                }
                ConversationEvent event = record.conversation();
                if (event != null && event.kind == ConversationEvent.Kind.MESSAGE) {
                    int members = fanOut.members(event.conversationId);
                    int size = sizeClass(members);
                    messages[size]++;
                    deliveries[size] += members - 1;
                    if (seen.add(event.conversationId)) {
                        groups[size]++;
                    }
                }
                fanOut.apply(
                        record,
                        r -> {
                            producer.send(r);
                            if (r.valid()) {
                                producerValid[0]++;
                            }
                        });
                if (threaded != null) {
                    TrafficRecord threadedRecord = threaded.next();
                    threads.send(threadedRecord);
                    threadedValid += threadedRecord.valid() ? 1 : 0;
                    threadedMembers.apply(threadedRecord, r -> {});
                }
            }
            once.flush();
            producer.flush();
            long failed = once.failed() + producer.failed();
            if (threads != null) {
                threads.flush();
                failed += threads.failed();
            }
            if (failed > 0) {
                throw new IllegalStateException(failed + " group records were not published");
            }
        }
        long groupMessages = generator.publishedMessages();
        long memberships = generator.memberships();
        long delivered = fanOut.deliveries();
        // The job hands the counting operator a delivery per member and each membership event.
        long otherEvents = onceValid - groupMessages - memberships;
        // And a copy of every reply (every message, tracking root senders) for its sender:
        // published once, one per group message; fanned out by the producer, one per delivery
        // record, each of which the job copies on its own (the sender's state takes the same fact
        // again, idempotently).
        long producerCopies =
                producerConfig.trackRootSenders
                        ? generator.trackedOwnCopies() - groupMessages + delivered
                        : generator.ownCopies() - fanOut.replies() + fanOut.replyDeliveries();
        Run onceRun =
                runOnce(
                        bench,
                        "published once",
                        onceConfig,
                        generator,
                        onceValid,
                        delivered,
                        dataDir.resolve("group-once"));
        Run producerRun =
                new Run(
                        "fanned out by the producer",
                        producerValid[0],
                        delivered,
                        memberships,
                        bench.runJob(
                                producerConfig,
                                traffic(generator, delivered, producerConfig)
                                        .named("groups fanned out by the producer"),
                                producerValid[0] + producerCopies,
                                dataDir.resolve("group-producer")));
        List<SizeClass> sizes = new ArrayList<>();
        for (int i = 0; i < SIZE_CLASSES.length; i++) {
            sizes.add(
                    new SizeClass(
                            i == 0 ? 3 : SIZE_CLASSES[i - 1] + 1,
                            SIZE_CLASSES[i],
                            groups[i],
                            messages[i],
                            deliveries[i]));
        }
        Threads threadsRun =
                threaded == null
                        ? null
                        : new Threads(
                                threaded.replies(),
                                threaded.threadReads(),
                                threaded.threadFollows(),
                                runOnce(
                                        bench,
                                        "published once, with threads",
                                        threadsConfig,
                                        threaded,
                                        threadedValid,
                                        threadedMembers.deliveries(),
                                        dataDir.resolve("group-threads")));
        return new Result(
                options, groupMessages, otherEvents, sizes, onceRun, producerRun, threadsRun);
    }

    /** The options' workload with threads: the same messages, a share of them replies. */
    static Workload threadWorkload(Options options) {
        return options.workload().toBuilder().replyShare(options.replyShare()).build();
    }

    /**
     * The job on records published once: the counting operator takes in every valid record but a
     * group message, a delivery per member, and the sender's copy of every message.
     */
    private static Run runOnce(
            Bench bench,
            String name,
            UnreadConfig config,
            TrafficGenerator generator,
            long valid,
            long delivered,
            Path dataDir)
            throws Exception {
        return new Run(
                name,
                valid,
                delivered,
                generator.memberships(),
                bench.runJob(
                        config,
                        traffic(generator, delivered, config).named("groups " + name),
                        valid
                                - generator.publishedMessages()
                                + delivered
                                + Bench.ownCopies(generator, config),
                        dataDir));
    }

    private static Bench.Traffic traffic(
            TrafficGenerator generator, long delivered, UnreadConfig config) {
        return new Bench.Traffic(
                "group",
                generator.workload(),
                generator.records(),
                generator.messages() + delivered,
                generator.redundantMessages(),
                generator.inboxOpens(),
                generator.conversationReads(),
                generator.malformedRecords(),
                Bench.ownCopies(generator, config));
    }

    private static int sizeClass(int members) {
        int i = 0;
        while (members > SIZE_CLASSES[i]) {
            i++;
        }
        return i;
    }

    private static TrafficProducer producer(EmbeddedKafka kafka, UnreadConfig config) {
        return new TrafficProducer(
                kafka.bootstrapServers(),
                config.messagesTopic,
                config.readsTopic,
                config.conversationsTopic);
    }
}
