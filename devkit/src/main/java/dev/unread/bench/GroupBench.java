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
 * without threads. With an edit share, a fourth reads them with a share of the messages edited and
 * as many mentioning the whole group (issue 36): an edit and an @channel cost the fan-out what
 * their message does.
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
     * @param editShare the share of the edits run's messages edited, and as many mentioning the
     *     whole group (its workload's {@code editShare}); 0 skips that run
     */
    public record Options(Workload workload, long records, double replyShare, double editShare) {
        public Options {
            if (!(replyShare >= 0 && replyShare <= 1)) {
                throw new IllegalArgumentException(
                        "replyShare must be in 0..1 (0 skips the run with threads), was "
                                + replyShare);
            }
            if (!(editShare >= 0 && editShare <= 1)) {
                throw new IllegalArgumentException(
                        "editShare must be in 0..1 (0 skips the run with edits), was " + editShare);
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
    record Run(String name, long recordsIn, long deliveries, long memberships, JobFigures job) {
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

    /** The run with edits: its group edits, the records they make per member, and the figures. */
    record Edits(long edits, long editDeliveries, Run run) {}

    /**
     * @param threads null when the options' reply share is 0
     * @param edits null when the options' edit share is 0
     */
    record Result(
            Options options,
            long groupMessages,
            long otherEvents,
            List<SizeClass> sizes,
            Run once,
            Run producer,
            Threads threads,
            Edits edits) {}

    private GroupBench() {}

    static Result run(Bench bench, Options options, EmbeddedKafka kafka, Path dataDir)
            throws Exception {
        UnreadConfig onceConfig = bench.config(kafka, "group-once");
        UnreadConfig producerConfig = bench.config(kafka, "group-producer");
        bench.say(
                "publishing %,d records of group traffic, once and fanned out by the producer",
                options.records());
        TrafficGenerator generator = Bench.generator(options.workload());
        ProducerFanOut fanOut = new ProducerFanOut();
        long onceValid = 0;
        long[] producerValid = {0};
        long[] groups = new long[SIZE_CLASSES.length];
        long[] messages = new long[SIZE_CLASSES.length];
        long[] deliveries = new long[SIZE_CLASSES.length];
        Set<Long> seen = new HashSet<>();
        Beside threads =
                options.replyShare() > 0
                        ? new Beside(bench, kafka, "group-threads", threadWorkload(options))
                        : null;
        Beside edits =
                options.editShare() > 0
                        ? new Beside(bench, kafka, "group-edits", editWorkload(options))
                        : null;
        try (TrafficProducer once = producer(kafka, onceConfig);
                TrafficProducer producer = producer(kafka, producerConfig);
                threads;
                edits) {
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
                for (Beside beside : new Beside[] {threads, edits}) {
                    if (beside != null) {
                        beside.next();
                    }
                }
            }
            once.flush();
            producer.flush();
            long failed = once.failed() + producer.failed();
            for (Beside beside : new Beside[] {threads, edits}) {
                failed += beside == null ? 0 : beside.flush();
            }
            if (failed > 0) {
                throw new IllegalStateException(failed + " group records were not published");
            }
        }
        return result(
                bench,
                options,
                generator,
                fanOut,
                onceValid,
                producerValid[0],
                producerConfig,
                onceConfig,
                sizes(groups, messages, deliveries),
                threads,
                edits,
                dataDir);
    }

    private static Result result(
            Bench bench,
            Options options,
            TrafficGenerator generator,
            ProducerFanOut fanOut,
            long onceValid,
            long producerValid,
            UnreadConfig producerConfig,
            UnreadConfig onceConfig,
            List<SizeClass> sizes,
            Beside threads,
            Beside edits,
            Path dataDir)
            throws Exception {
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
                        fanOut,
                        dataDir.resolve("group-once"));
        Run producerRun =
                new Run(
                        "fanned out by the producer",
                        producerValid,
                        delivered,
                        memberships,
                        bench.runJob(
                                producerConfig,
                                traffic(generator, delivered, producerConfig)
                                        .named("groups fanned out by the producer"),
                                producerValid + producerCopies,
                                dataDir.resolve("group-producer")));
        Threads threadsRun =
                threads == null
                        ? null
                        : new Threads(
                                threads.generator.replies(),
                                threads.generator.threadReads(),
                                threads.generator.threadFollows(),
                                threads.run(bench, "published once, with threads", dataDir));
        Edits editsRun =
                edits == null
                        ? null
                        : new Edits(
                                edits.members.edits(),
                                edits.members.editDeliveries(),
                                edits.run(bench, "published once, with edits", dataDir));
        return new Result(
                options,
                groupMessages,
                otherEvents,
                sizes,
                onceRun,
                producerRun,
                threadsRun,
                editsRun);
    }

    private static List<SizeClass> sizes(long[] groups, long[] messages, long[] deliveries) {
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
        return sizes;
    }

    /**
     * A traffic published once beside the plain one, record for record, on topics of its own: the
     * same groups with one thing more.
     */
    private static final class Beside implements AutoCloseable {
        final UnreadConfig config;
        final TrafficGenerator generator;
        final TrafficProducer producer;

        /** Counts the records' deliveries and edits; publishes nothing. */
        final ProducerFanOut members = new ProducerFanOut();

        final String topics;
        long valid;

        Beside(Bench bench, EmbeddedKafka kafka, String topics, Workload workload) {
            this.config = bench.config(kafka, topics);
            this.generator = Bench.generator(workload);
            this.producer = producer(kafka, config);
            this.topics = topics;
        }

        void next() {
            TrafficRecord record = generator.next();
            producer.send(record);
            valid += record.valid() ? 1 : 0;
            members.apply(record, r -> {});
        }

        /** Waits for the broker to have every record; returns how many it refused. */
        long flush() {
            producer.flush();
            return producer.failed();
        }

        Run run(Bench bench, String name, Path dataDir) throws Exception {
            return runOnce(bench, name, config, generator, valid, members, dataDir.resolve(topics));
        }

        @Override
        public void close() throws InterruptedException {
            producer.close();
        }
    }

    /** The options' workload with threads: the same messages, a share of them replies. */
    static Workload threadWorkload(Options options) {
        return options.workload().toBuilder().replyShare(options.replyShare()).build();
    }

    /**
     * The options' workload with edits: the same messages, a share of them edited and as many
     * mentioning the whole group.
     */
    static Workload editWorkload(Options options) {
        return options.workload().toBuilder().editShare(options.editShare()).build();
    }

    /**
     * The job on records published once: the counting operator takes in every valid record but a
     * group message or edit, a delivery per member of each, and the sender's copy of every reply.
     */
    private static Run runOnce(
            Bench bench,
            String name,
            UnreadConfig config,
            TrafficGenerator generator,
            long valid,
            ProducerFanOut members,
            Path dataDir)
            throws Exception {
        long delivered = members.deliveries();
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
                                - members.edits()
                                + members.editDeliveries()
                                + Traffic.ownCopies(generator, config),
                        dataDir));
    }

    private static Traffic traffic(
            TrafficGenerator generator, long delivered, UnreadConfig config) {
        return new Traffic(
                "group",
                generator.workload(),
                generator.records(),
                generator.messages() + delivered,
                generator.redundantMessages(),
                generator.inboxOpens(),
                generator.conversationReads(),
                generator.malformedRecords(),
                Traffic.ownCopies(generator, config));
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
