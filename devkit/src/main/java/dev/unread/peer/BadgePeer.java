package dev.unread.peer;

import dev.unread.config.UnreadConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

/**
 * The sender badge as a Kafka-native team would build it, for {@code unread bench} to measure the
 * job against: a Kafka Streams application with RocksDB stores and {@code exactly_once_v2}, and a
 * Redis writer beside it that sends the same absolute, coalesced commands as the job's sink.
 *
 * <p>Kafka Streams has no hook that runs before a commit for a processor, so Redis cannot be
 * written from inside the transaction safely. The application therefore writes each badge change to
 * a counts topic through a cached table (the cache keeps only the newest count per user until the
 * commit, {@code commit.interval.ms} = the job's flush interval), inside the transaction; the
 * writer reads that topic {@code read_committed}, coalesces each poll by user, sends the batch with
 * the job's own {@link dev.unread.sinks.RedisCounts#batch} and commits its offsets only once Redis
 * acknowledged. A crash replays from the last commit and rewrites absolute counts: the same
 * guarantee as the job. Messages and reads are keyed by user in partitions of the same count, so
 * the application reads both in one sub-topology without a repartition topic.
 *
 * <p>It keeps the badge only; per-conversation counts are not built.
 */
public final class BadgePeer implements AutoCloseable {

    static final String SENDERS_STORE = "badge-senders";
    static final String INBOXES_STORE = "badge-inboxes";
    private static final String COUNTS_TABLE = "badge-counts-cache";

    /**
     * Where everything runs.
     *
     * @param config topics, Kafka, Redis (prefix included) and flush interval, as the job reads
     *     them
     * @param name distinguishes this run's application id, consumer group and counts topic
     * @param threads stream threads: the job's parallelism
     * @param stateDir RocksDB's files
     */
    public record Settings(UnreadConfig config, String name, int threads, Path stateDir) {
        String applicationId() {
            return "unread-peer-" + name;
        }

        String countsTopic() {
            return "unread-peer-" + name + "-counts";
        }
    }

    /** How long a close waits for the stream threads to stop. */
    private static final Duration CLOSE_WAIT = Duration.ofMinutes(2);

    private final Settings settings;
    private final AtomicLong processed = new AtomicLong();
    private final KafkaStreams streams;
    private final RedisCountWriter writer;
    private final Thread writing;
    private final Admin admin;

    private BadgePeer(Settings settings) {
        this.settings = settings;
        this.streams = new KafkaStreams(topology(), properties(settings));
        this.writer = new RedisCountWriter(settings);
        this.writing = new Thread(writer, "unread-peer-redis-writer");
        Map<String, Object> adminProps = new HashMap<>();
        adminProps.put(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.config().kafkaBootstrap);
        this.admin = Admin.create(adminProps);
    }

    /** Creates the counts topic and starts the application and the writer. */
    public static BadgePeer start(Settings settings) throws Exception {
        BadgePeer peer = new BadgePeer(settings);
        try {
            int partitions =
                    peer.admin
                            .describeTopics(List.of(settings.config().messagesTopic))
                            .allTopicNames()
                            .get()
                            .get(settings.config().messagesTopic)
                            .partitions()
                            .size();
            try {
                peer.admin
                        .createTopics(
                                List.of(
                                        new NewTopic(
                                                settings.countsTopic(), partitions, (short) 1)))
                        .all()
                        .get();
            } catch (ExecutionException e) {
                // A restart of the same application: the topic holds what it wrote before.
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            peer.streams.start();
            peer.writing.start();
            return peer;
        } catch (Exception | Error e) {
            peer.close();
            throw e;
        }
    }

    private org.apache.kafka.streams.Topology topology() {
        UnreadConfig config = settings.config();
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(
                Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(SENDERS_STORE),
                        Serdes.Bytes(),
                        Serdes.Long()));
        builder.addStateStore(
                Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(INBOXES_STORE),
                        Serdes.Long(),
                        Serdes.ByteArray()));
        Consumed<byte[], byte[]> raw = Consumed.with(Serdes.ByteArray(), Serdes.ByteArray());
        KStream<byte[], byte[]> messages = builder.stream(config.messagesTopic, raw);
        KStream<byte[], byte[]> reads = builder.stream(config.readsTopic, raw);
        messages.merge(reads, Named.as("chat-events"))
                .processValues(
                        () -> new BadgeProcessor(config.messagesTopic, processed),
                        Named.as("count-badges"),
                        SENDERS_STORE,
                        INBOXES_STORE)
                // Only the cache matters: the newest count per user until the commit. The
                // table itself needs no changelog, since the counts topic is what is kept.
                .toTable(
                        Named.as("coalesce-badges"),
                        Materialized.<byte[], Long>as(Stores.inMemoryKeyValueStore(COUNTS_TABLE))
                                .withKeySerde(Serdes.ByteArray())
                                .withValueSerde(Serdes.Long())
                                .withCachingEnabled()
                                .withLoggingDisabled())
                .toStream(Named.as("badge-changes"))
                .to(settings.countsTopic(), Produced.with(Serdes.ByteArray(), Serdes.Long()));
        return builder.build();
    }

    private static Properties properties(Settings settings) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, settings.applicationId());
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, settings.config().kafkaBootstrap);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, settings.threads());
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, settings.config().flushIntervalMs);
        p.put(StreamsConfig.STATE_DIR_CONFIG, settings.stateDir().toString());
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        return p;
    }

    /** Input records (valid or not) the application has processed, committed or not. */
    public long processed() {
        return processed.get();
    }

    /** Commands Redis acknowledged. */
    public long redisCommands() {
        return writer.commands();
    }

    /**
     * Whether every record in the input topics is processed and committed, and every count that
     * came of them is in Redis: the application's group has committed the input topics' end
     * offsets, and the writer has committed the counts topic's last stable offsets.
     */
    public boolean caughtUp() throws Exception {
        writer.failIfStopped();
        if (streams.state() == KafkaStreams.State.ERROR
                || streams.state() == KafkaStreams.State.NOT_RUNNING) {
            throw new IllegalStateException("the Kafka Streams peer stopped: " + streams.state());
        }
        UnreadConfig config = settings.config();
        return committedUpTo(
                        settings.applicationId(),
                        Set.of(config.messagesTopic, config.readsTopic),
                        IsolationLevel.READ_UNCOMMITTED)
                && committedUpTo(
                        RedisCountWriter.groupId(settings),
                        Set.of(settings.countsTopic()),
                        IsolationLevel.READ_COMMITTED);
    }

    private boolean committedUpTo(String group, Set<String> topics, IsolationLevel isolation)
            throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        for (var topic : admin.describeTopics(topics).allTopicNames().get().values()) {
            topic.partitions()
                    .forEach(
                            p ->
                                    ends.put(
                                            new TopicPartition(topic.name(), p.partition()),
                                            OffsetSpec.latest()));
        }
        var offsets =
                admin.listOffsets(ends, new ListOffsetsOptions(isolation)).all().get().entrySet();
        return offsets.stream()
                .allMatch(
                        e -> {
                            OffsetAndMetadata c = committed.get(e.getKey());
                            long end = e.getValue().offset();
                            return end == 0 || (c != null && c.offset() >= end);
                        });
    }

    @Override
    public void close() {
        // In a CI run on a loaded machine the stream threads took more than 30 s to stop, and
        // cleanUp refuses while they run: wait longer, and name a peer that never stops as such.
        boolean stopped = streams.close(CLOSE_WAIT);
        writer.stop();
        try {
            writing.join(Duration.ofSeconds(30).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        admin.close();
        if (!stopped) {
            throw new IllegalStateException(
                    "the Kafka Streams peer did not stop within "
                            + CLOSE_WAIT
                            + ": "
                            + streams.state());
        }
        streams.cleanUp();
    }
}
