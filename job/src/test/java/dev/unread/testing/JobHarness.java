package dev.unread.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.UnreadJob;
import dev.unread.config.JobSettings;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.DeadLetters;
import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.events.ConversationEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What the end-to-end and reliability tests share: a seeded stream of valid events with bad records
 * among them as it reaches Kafka, the shipped job started on the test's MiniCluster with a restart
 * strategy and checkpoints on, probes of the running job (checkpoints, restarts), the dead-letter
 * check, and the one-line summary that docs/reliability.md's table is built from.
 */
public final class JobHarness {

    /** Long enough for a loaded 2-core machine to work off a backlog after a fault. */
    public static final Duration CONVERGENCE = Duration.ofMinutes(3);

    /** Short, so the tests see many checkpoints and restores replay little. */
    public static final String CHECKPOINT_INTERVAL_MS = "300";

    /** Restarts come quickly and never run out: every fault here is one the job must survive. */
    private static final Duration RESTART_DELAY = Duration.ofMillis(500);

    private static final int RESTART_ATTEMPTS = 10_000;

    /** Users erased in a run's traffic. */
    private static final int ERASED_USERS = 5;

    /**
     * Where the channel traffic's users and channels start in a seed's ids: clear of the other
     * traffic's, so that its erasures stay the channels' own.
     */
    private static final long CHANNEL_IDS = 900;

    private static final int CHANNEL_USERS = 8;

    private JobHarness() {}

    /** The MiniCluster the end-to-end tests run the job on: one TaskManager with two slots. */
    public static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(1)
                        .setNumberSlotsPerTaskManager(2)
                        .build());
    }

    /** The run's seed, {@code -Dunread.seed=N} or a new one, printed for a rerun. */
    public static long seed(String test) {
        long seed = Long.getLong("unread.seed", System.nanoTime() % 1_000_000);
        System.out.println(test + " " + context(seed));
        return seed;
    }

    /**
     * The traffic of {@code seed} if it {@code has} what the test needs, else of the first seed
     * after it that does: a rare seed leaves, say, no count to compare. A rerun with the same seed
     * takes the same traffic.
     */
    public static Traffic firstTrafficWith(
            long seed, LongFunction<Traffic> traffic, Predicate<Traffic> has) {
        for (long s = seed; ; s++) {
            Traffic t = traffic.apply(s);
            if (has.test(t)) {
                return t;
            }
        }
    }

    public static String context(long seed) {
        return "seed " + seed + " (rerun with -Dunread.seed=" + seed + ")";
    }

    /** A Redis key prefix no other test or run uses. */
    public static String prefix(String test, long seed) {
        return "it-" + test + "-" + seed + "-" + System.nanoTime() + ":";
    }

    /** The job's settings for a test: fast flushes and checkpoints, two subtasks. */
    public static Map<String, String> settings(String prefix, String jdbcUrl) {
        Map<String, String> settings = new HashMap<>();
        settings.put("redis-key-prefix", prefix);
        settings.put("jdbc-url", jdbcUrl);
        settings.put("flush-interval-ms", "50");
        settings.put("checkpoint-interval-ms", CHECKPOINT_INTERVAL_MS);
        settings.put("parallelism", "2");
        return settings;
    }

    /**
     * A run's input: valid events (the oracle's set) in one arrival order with duplicates and a
     * replayed tail, and bad records spread evenly through them, as Kafka records in the order they
     * are published.
     */
    public record Traffic(
            List<ChatEvent> events,
            List<ConversationEvent> conversations,
            List<BadRecords.Bad> bad,
            List<ProducerRecord<byte[], byte[]>> records) {

        public Oracle oracle() {
            return Oracle.of(events, conversations);
        }

        /** The records in {@code n} consecutive parts of about equal size. */
        public List<List<ProducerRecord<byte[], byte[]>>> parts(int n) {
            List<List<ProducerRecord<byte[], byte[]>>> parts = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                parts.add(records.subList(i * records.size() / n, (i + 1) * records.size() / n));
            }
            return parts;
        }

        public String describe() {
            return records.size()
                    + " records ("
                    + (records.size() - bad.size())
                    + " valid, "
                    + bad.size()
                    + " bad; "
                    + threadsAndDeletions()
                    + ")";
        }

        /** So that a run's line shows it had threads, deletions and erasures to lose. */
        private String threadsAndDeletions() {
            Set<String> replies = new HashSet<>();
            int threadActions = 0;
            int erasures = 0;
            for (ChatEvent e : events) {
                if (e.kind == ChatEvent.Kind.MESSAGE && e.isReply()) {
                    replies.add(e.conversationId + ":" + e.seq);
                } else if (e.kind == ChatEvent.Kind.USER_ERASED) {
                    erasures++;
                } else if (e.threadSeq > 0) {
                    threadActions++;
                }
            }
            long channels =
                    conversations.stream()
                            .filter(e -> e.kind == ConversationEvent.Kind.CHANNEL)
                            .map(e -> e.conversationId)
                            .distinct()
                            .count();
            return String.format(
                    "%d replies, %d thread reads and follows, %d deletions, %d erasures%s",
                    replies.size(),
                    threadActions,
                    conversations.stream()
                            .filter(e -> e.kind == ConversationEvent.Kind.MESSAGE_DELETED)
                            .count(),
                    erasures,
                    channels > 0 ? ", " + channels + " channels" : "");
        }
    }

    /**
     * {@code eventCount} valid events from {@code seed}, a fifth as many {@code chat-conversations}
     * records in the same conversations (with their members' reads, thread reads, follows,
     * preferences and edits), ALL_READs of most users, erasures of a few, and {@code bad} mixed in.
     */
    public static Traffic traffic(
            UnreadConfig config, long seed, int eventCount, List<BadRecords.Bad> bad) {
        return traffic(config, seed, eventCount, bad, ChatEventJson::value);
    }

    /** The same, each valid event written by {@code encoding}. */
    public static Traffic traffic(
            UnreadConfig config,
            long seed,
            int eventCount,
            List<BadRecords.Bad> bad,
            Function<ChatEvent, byte[]> encoding) {
        return traffic(config, seed, eventCount, bad, encoding, 0);
    }

    /**
     * {@link #traffic} with a tenth as many steps of channel traffic ({@link ChannelTraffic})
     * spread through it: one to three channels with memberships early and late, replies, mentions,
     * edits, deletions, ALL_READs and erasures, published in an order the contract allows on Kafka.
     */
    public static Traffic trafficWithChannels(
            UnreadConfig config, long seed, int eventCount, List<BadRecords.Bad> bad) {
        return traffic(config, seed, eventCount, bad, ChatEventJson::value, eventCount / 10);
    }

    private static Traffic traffic(
            UnreadConfig config,
            long seed,
            int eventCount,
            List<BadRecords.Bad> bad,
            Function<ChatEvent, byte[]> encoding,
            int channelSteps) {
        long firstUser = 1_000_000 + seed * 1000;
        EventStreams streams = new EventStreams(seed).withIds(firstUser, 1);
        int threadEvents = eventCount / 10;
        List<ChatEvent> plain = streams.events(eventCount - threadEvents);
        // Spread through the stream rather than after it, so that every part of a run, and so
        // every fault, has replies, thread reads and follows on both sides of it.
        List<ChatEvent> threads = ThreadStreams.threads(streams.random(), plain, threadEvents);
        // Conversation reads past replies: with the deletions below, a reply's deletion and a
        // cursor past it may both come before the reply.
        List<ChatEvent> events =
                interleaved(
                        interleaved(plain, threads),
                        ThreadStreams.readsPastReplies(streams.random(), threads));
        // Group conversations of their own per seed: traffic of several seeds published to one
        // job (steps of a test) must not share a group, whose members of one seed would join
        // late for the messages of another.
        GroupStreams groups = new GroupStreams(streams.random(), firstUser, firstUser);
        // With threads: replies, follows, channel-wide mentions and edits in groups too, so every
        // fault also meets an edit published after its message and a preference that ignores @all.
        GroupStreams.Traffic group = groups.threadTraffic(eventCount / 5, 12);
        events.addAll(group.reads());
        List<ConversationEvent> conversations =
                DeletionStreams.among(group.records(), events, streams.random());
        // Mark all as read among the rest, before and after the messages it covers.
        events = AllReadStreams.withAllReads(streams.random(), events);
        // A few erasures, before and after the deletions of their users' messages and between a
        // deletion and its message, as the contract's one order-bound rule allows on Kafka.
        events = ErasureStreams.withErasures(streams.random(), events, conversations, ERASED_USERS);
        List<ChatEvent> order =
                EventStreams.withErasuresInPlace(streams.orders(events, 1, 0.2).get(0));
        List<ProducerRecord<byte[], byte[]>> messagesAndReads = new ArrayList<>(order.size());
        for (ChatEvent event : order) {
            messagesAndReads.add(ChatRecords.of(config, event, encoding.apply(event)));
        }
        List<ProducerRecord<byte[], byte[]>> records =
                interleaved(
                        messagesAndReads,
                        ChatRecords.ofConversations(config, groups.published(conversations, 0.2)));
        if (channelSteps > 0) {
            ChannelTraffic channels =
                    new ChannelTraffic(
                            streams.random(),
                            firstUser + CHANNEL_IDS,
                            firstUser + CHANNEL_IDS,
                            OracleChannels.DEFAULT_MAX_CHANNEL_SEQ);
            List<ChannelTraffic.Arrival> arrivals =
                    ChannelTraffic.onKafka(
                            channels.published(channels.traffic(channelSteps, CHANNEL_USERS), 0.2));
            // The oracle takes the channels' records in the order they arrive.
            events.addAll(ChannelTraffic.Arrival.facts(arrivals));
            conversations = new ArrayList<>(conversations);
            conversations.addAll(ChannelTraffic.Arrival.records(arrivals));
            List<ProducerRecord<byte[], byte[]>> channelRecords = new ArrayList<>();
            for (ChannelTraffic.Arrival a : arrivals) {
                channelRecords.add(
                        a.record() != null
                                ? ChatRecords.ofConversations(config, List.of(a.record())).get(0)
                                : ChatRecords.of(config, a.fact(), encoding.apply(a.fact())));
            }
            records = interleaved(records, channelRecords);
        }
        int valid = records.size();
        List<ProducerRecord<byte[], byte[]>> mixed = new ArrayList<>(valid + bad.size());
        Random keys = new Random(seed);
        int next = 0;
        for (int i = 0; i < bad.size(); i++) {
            // The i-th bad record goes after its share of the valid ones.
            int until = (int) ((long) (i + 1) * valid / (bad.size() + 1));
            mixed.addAll(records.subList(next, until));
            next = until;
            BadRecords.Bad b = bad.get(i);
            mixed.add(new ProducerRecord<>(sourceTopic(config, b), hostileKey(keys), b.value()));
        }
        mixed.addAll(records.subList(next, valid));
        return new Traffic(events, conversations, bad, mixed);
    }

    /** Both lists spread evenly through one, each in its own order. */
    private static <T> List<T> interleaved(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a.size() + b.size());
        int j = 0;
        for (int i = 0; i < a.size(); i++) {
            all.add(a.get(i));
            while (j < b.size() && (long) j * a.size() <= (long) i * b.size()) {
                all.add(b.get(j++));
            }
        }
        all.addAll(b.subList(j, b.size()));
        return all;
    }

    /**
     * The key is only a hint, so a bad record's key may be anything: none, a plausible user id,
     * bytes that are not text, or a long one. The dead letter must keep it as it was.
     */
    private static byte[] hostileKey(Random random) {
        switch (random.nextInt(4)) {
            case 0:
                return null;
            case 1:
                return String.valueOf(1 + random.nextInt(1_000_000)).getBytes(UTF_8);
            case 2:
                byte[] bytes = new byte[1 + random.nextInt(32)];
                random.nextBytes(bytes);
                return bytes;
            default:
                return "k".repeat(1024 + random.nextInt(1024)).getBytes(UTF_8);
        }
    }

    public static String sourceTopic(UnreadConfig config, BadRecords.Bad bad) {
        return bad.toMessages() ? config.messagesTopic : config.readsTopic;
    }

    /**
     * The job's own Flink settings plus what a fault test needs: a restart strategy that outlasts
     * any outage here, and checkpoints in {@code checkpoints} so that restores are real restores
     * from files.
     */
    public static Configuration flinkSettings(UnreadConfig config, Path checkpoints) {
        Configuration conf = JobSettings.of(config);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, RESTART_ATTEMPTS);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, RESTART_DELAY);
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        return conf;
    }

    /** Submits {@code job} with {@link #flinkSettings} to the test's MiniCluster. */
    public static JobClient start(UnreadJob job, UnreadConfig config, Path checkpoints, String name)
            throws Exception {
        return start(job, flinkSettings(config, checkpoints), name);
    }

    /** Submits {@code job} with {@code settings} to the test's MiniCluster. */
    public static JobClient start(UnreadJob job, Configuration settings, String name)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.configure(settings);
        job.build(env);
        return env.executeAsync(name);
    }

    /** {@link #flinkSettings} restoring from {@code savepoint}. */
    public static Configuration restoringFrom(Configuration settings, String savepoint) {
        Configuration conf = new Configuration(settings);
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        return conf;
    }

    public static long completedCheckpoints(MiniCluster cluster, JobID job) {
        try {
            var stats = cluster.getExecutionGraph(job).get().getCheckpointStatsSnapshot();
            return stats == null ? 0 : stats.getCounts().getNumberOfCompletedCheckpoints();
        } catch (Exception e) {
            // Between two attempts of a restarting job there may be no graph to ask.
            return 0;
        }
    }

    /** Waits until the job has completed more than {@code than} checkpoints; returns how many. */
    public static long awaitCheckpointsAfter(MiniCluster cluster, JobID job, long than)
            throws Exception {
        return Poll.until(
                "more than " + than + " completed checkpoints",
                CONVERGENCE,
                () -> {
                    long completed = completedCheckpoints(cluster, job);
                    return completed > than ? completed : null;
                });
    }

    /**
     * Waits until the job's consumer group has committed, for every partition of both input topics,
     * the offset at its end. Offsets are committed when a checkpoint completes, and a checkpoint
     * completes only after the sinks flushed what came before it, so then every record published so
     * far has had its effect on Redis and MySQL.
     */
    public static void awaitAllReadAndCheckpointed(KafkaBroker kafka, UnreadConfig config)
            throws Exception {
        try (Admin admin = kafka.kafka().admin()) {
            Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
            for (TopicDescription topic :
                    admin.describeTopics(
                                    List.of(
                                            config.messagesTopic,
                                            config.readsTopic,
                                            config.conversationsTopic))
                            .allTopicNames()
                            .get()
                            .values()) {
                topic.partitions()
                        .forEach(
                                p ->
                                        partitions.put(
                                                new TopicPartition(topic.name(), p.partition()),
                                                OffsetSpec.latest()));
            }
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(partitions).all().get().forEach((p, r) -> ends.put(p, r.offset()));
            Poll.until(
                    "the job read and checkpointed up to " + ends,
                    CONVERGENCE,
                    () -> {
                        Map<TopicPartition, OffsetAndMetadata> committed =
                                admin.listConsumerGroupOffsets(config.groupId)
                                        .partitionsToOffsetAndMetadata()
                                        .get();
                        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
                            OffsetAndMetadata at = committed.get(end.getKey());
                            if ((at == null ? 0 : at.offset()) < end.getValue()) {
                                return null;
                            }
                        }
                        return true;
                    });
        }
    }

    /**
     * How often the job restarted: every restart here redeploys every task (the keyed exchange
     * makes the job one failover region), so it is the highest attempt number of any task.
     */
    public static int restarts(MiniCluster cluster, JobID job) throws Exception {
        int restarts = 0;
        for (AccessExecutionVertex v : graph(cluster, job).getAllExecutionVertices()) {
            restarts = Math.max(restarts, v.getCurrentExecutionAttempt().getAttemptNumber());
        }
        return restarts;
    }

    /** Waits until the job has restarted more than {@code than} times; returns how often. */
    public static int awaitRestartsAfter(MiniCluster cluster, JobID job, int than)
            throws Exception {
        return Poll.until(
                "more than " + than + " restarts",
                CONVERGENCE,
                () -> {
                    int restarts = restarts(cluster, job);
                    return restarts > than ? restarts : null;
                });
    }

    /** Waits until every task of the job runs. */
    public static void awaitAllTasksRunning(MiniCluster cluster, JobID job) throws Exception {
        Poll.until(
                "every task running",
                CONVERGENCE,
                () -> {
                    AccessExecutionGraph graph = graph(cluster, job);
                    if (graph.getState() != JobStatus.RUNNING) {
                        return null;
                    }
                    for (AccessExecutionVertex v : graph.getAllExecutionVertices()) {
                        if (v.getExecutionState() != ExecutionState.RUNNING) {
                            return null;
                        }
                    }
                    return true;
                });
    }

    private static AccessExecutionGraph graph(MiniCluster cluster, JobID job) throws Exception {
        return cluster.getExecutionGraph(job).get();
    }

    /**
     * Reads the dead-letter topic until every bad record is there and checks each letter: the bytes
     * of the record its headers name, and a reason. With {@code exactlyOnce} the letters are
     * exactly the bad records; without, a letter may repeat (the dead-letter sink is at least once,
     * and a restore replays what came after the checkpoint), but none may be missing and none may
     * be anything but a bad record. Returns how many letters there were.
     */
    public static int assertDeadLetters(
            KafkaBroker kafka,
            UnreadConfig config,
            List<BadRecords.Bad> bad,
            boolean exactlyOnce,
            String context) {
        Map<String, Integer> expected = new TreeMap<>();
        for (BadRecords.Bad b : bad) {
            expected.merge(fingerprint(sourceTopic(config, b), b.value()), 1, Integer::sum);
        }
        Map<String, ConsumerRecord<byte[], byte[]>> sources = new HashMap<>();
        for (String topic : List.of(config.messagesTopic, config.readsTopic)) {
            for (ConsumerRecord<byte[], byte[]> r : kafka.records(topic)) {
                sources.put(topic + "-" + r.partition() + "@" + r.offset(), r);
            }
        }
        List<ConsumerRecord<byte[], byte[]>> letters =
                kafka.awaitRecords(config.deadLetterTopic, bad.size(), CONVERGENCE);
        // A letter may still be on its way after the count was reached: read the topic whole.
        letters = kafka.records(config.deadLetterTopic);
        Map<String, Integer> actual = new TreeMap<>();
        Set<String> seen = new HashSet<>();
        for (ConsumerRecord<byte[], byte[]> letter : letters) {
            String topic = KafkaBroker.header(letter, DeadLetters.SOURCE_TOPIC);
            String source =
                    topic
                            + "-"
                            + KafkaBroker.header(letter, DeadLetters.SOURCE_PARTITION)
                            + "@"
                            + KafkaBroker.header(letter, DeadLetters.SOURCE_OFFSET);
            assertThat(KafkaBroker.header(letter, DeadLetters.REASON))
                    .as("reason of the dead letter of " + source + ", " + context)
                    .isNotBlank();
            ConsumerRecord<byte[], byte[]> original = sources.get(source);
            assertThat(original).as("the source record " + source + ", " + context).isNotNull();
            assertThat(letter.value()).as(context).isEqualTo(original.value());
            assertThat(letter.key())
                    .as("key of " + source + ", " + context)
                    .isEqualTo(original.key());
            if (exactlyOnce || seen.add(source)) {
                actual.merge(fingerprint(topic, letter.value()), 1, Integer::sum);
            }
        }
        assertThat(actual)
                .as("dead letters by source topic and bytes, " + context)
                .isEqualTo(expected);
        return letters.size();
    }

    private static String fingerprint(String topic, byte[] value) {
        return topic
                + ":"
                + value.length
                + ":"
                + Base64.getEncoder()
                        .encodeToString(Arrays.copyOf(value, Math.min(value.length, 96)))
                + ":"
                + Arrays.hashCode(value);
    }

    /**
     * The line docs/reliability.md's table is built from. Printed only once every assertion of the
     * run held, so "divergence 0" and "lost 0" are what the test checked.
     */
    public static void summary(
            String fault,
            String injected,
            Traffic traffic,
            int restarts,
            long startedNanos,
            long seed) {
        System.out.printf(
                "RELIABILITY | %s | injected: %s | %s | restarts: %d | lost: 0 | divergence: 0"
                        + " | %.1f s | seed %d%n",
                fault,
                injected,
                traffic.describe(),
                restarts,
                (System.nanoTime() - startedNanos) / 1e9,
                seed);
    }
}
