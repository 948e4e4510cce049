package dev.unread.bench;

import dev.unread.contract.RedisEndpoint;
import dev.unread.events.ChatEvent;
import dev.unread.events.EventParser;
import dev.unread.events.InvalidRecordException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * The design the Flink job replaces, for {@code bin/unread bench} to measure it against: a plain
 * Kafka worker that keeps each user's badge as a Redis set of senders. For every message it sends
 * {@code SADD {prefix}naive:unread:{receiver} {sender}}, for every inbox open {@code DEL
 * {prefix}naive:unread:{user}}, and the badge is {@code SCARD} of that set.
 *
 * <p>It is the baseline because it is what a chat platform writes first, and it is correct only in
 * the easy case: it costs Redis a command per message even when the sender is already counted
 * (about nine messages in ten), keeps a set per user in Redis memory, and applies events in arrival
 * order, so a late inbox open also clears senders who wrote after it. It has no per-conversation
 * counts, so {@code CONVERSATION_READ} records cost nothing; malformed records are dropped rather
 * than dead-lettered. A message from a user to themself counts toward nothing, as in the job, so it
 * sends nothing. None of this is a flaw to fix here: the benchmark measures the design as it is.
 *
 * <p>As such workers are written, it uses one Redis connection and one consumer thread. The records
 * are parsed by the job's own {@link EventParser}, so that parsing costs the two sides the same.
 * The {@link Mode}s are the three ways the seed design has been written; {@link Mode#PIPELINED} is
 * the fairest to it.
 *
 * <p>It reads both topics from their first offsets and commits nothing, so each run replays the
 * same input; removing what it wrote ({@link #deleteKeys}) is the caller's business.
 */
public final class NaiveWorker {

    /** How the worker talks to Redis. */
    public enum Mode {
        /** A command per event, each waiting for its reply: the simplest worker. */
        PER_EVENT,
        /** The same commands, all of one {@code poll()} batch in one pipeline, synced once. */
        PIPELINED,
        /**
         * {@code SISMEMBER} per message and {@code SADD} only for a new sender, each a round trip:
         * the seed design's "check before write", which saves writes and costs a read each.
         */
        CHECK_BEFORE_WRITE
    }

    /**
     * What one run did.
     *
     * @param messages valid {@code chat-messages} records, self-messages included
     * @param inboxOpens valid {@code INBOX_OPENED} records
     * @param redisCommands every SADD, SISMEMBER and DEL sent
     * @param nanos from the first record polled to the last one's Redis command acknowledged
     */
    public record Result(
            Mode mode,
            long messages,
            long inboxOpens,
            long redisCommands,
            long nanos,
            long redisCpuNanos) {

        public Result {
            Objects.requireNonNull(mode, "mode");
        }

        /** 0 when the run took no measurable time. */
        public double messagesPerSecond() {
            return nanos == 0 ? 0 : messages * 1e9 / nanos;
        }

        /** Commands for opens included, since they too are Redis load; 0 without messages. */
        public double commandsPerMessage() {
            return messages == 0 ? 0 : (double) redisCommands / messages;
        }

        /** Redis server CPU per message, in microseconds; 0 without messages. */
        public double redisCpuMicrosPerMessage() {
            return messages == 0 ? 0 : redisCpuNanos / 1e3 / messages;
        }
    }

    /** A run fails when this long passes without a record before it has them all. */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(60);

    static final String CLIENT_NAME = "unread-bench-worker";

    /** Generous: a stalled command fails the run rather than skewing it unnoticed. */
    private static final int REDIS_TIMEOUT_MS = 10_000;

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    private static final int MAX_POLL_RECORDS = 5000;
    private static final int MAX_PARTITION_FETCH_BYTES = 8 * 1024 * 1024;
    private static final int FETCH_MAX_BYTES = 64 * 1024 * 1024;

    private NaiveWorker() {}

    /**
     * Consumes both topics from the beginning (a fresh consumer group) until {@code records}
     * records (valid and malformed, both topics) have been consumed, applying them to Redis under
     * {@code keyPrefix}.
     *
     * @throws TimeoutException when no record arrives for {@link #IDLE_TIMEOUT} before the last
     */
    public static Result run(
            String bootstrapServers,
            String messagesTopic,
            String readsTopic,
            long records,
            String redisUrl,
            String keyPrefix,
            Mode mode)
            throws Exception {
        return run(
                bootstrapServers,
                messagesTopic,
                readsTopic,
                records,
                redisUrl,
                keyPrefix,
                mode,
                IDLE_TIMEOUT);
    }

    static Result run(
            String bootstrapServers,
            String messagesTopic,
            String readsTopic,
            long records,
            String redisUrl,
            String keyPrefix,
            Mode mode,
            Duration idleTimeout)
            throws Exception {
        if (records < 1) {
            throw new IllegalArgumentException("records must be >= 1, was " + records);
        }
        Objects.requireNonNull(mode, "mode");
        EventParser parser = new EventParser();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrapServers);
                Jedis redis = single(redisUrl).connect(CLIENT_NAME, REDIS_TIMEOUT_MS)) {
            assignFromBeginning(consumer, messagesTopic, readsTopic);
            Writer writer = new Writer(redis, keyPrefix + "naive:unread:", mode);
            long redisCpuBefore = RedisKeys.cpuNanos(single(redisUrl));
            long consumed = 0;
            long start = 0;
            long lastRecordAt = System.nanoTime();
            while (consumed < records) {
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(POLL_TIMEOUT);
                long now = System.nanoTime();
                if (polled.isEmpty()) {
                    if (now - lastRecordAt > idleTimeout.toNanos()) {
                        throw new TimeoutException(
                                "consumed "
                                        + consumed
                                        + " of "
                                        + records
                                        + " records from "
                                        + messagesTopic
                                        + " and "
                                        + readsTopic
                                        + ", then none for "
                                        + idleTimeout.toSeconds()
                                        + " s");
                    }
                    continue;
                }
                if (consumed == 0) {
                    start = now;
                }
                lastRecordAt = now;
                for (ConsumerRecord<byte[], byte[]> record : polled) {
                    if (consumed == records) {
                        break;
                    }
                    consumed++;
                    boolean message = record.topic().equals(messagesTopic);
                    try {
                        writer.apply(
                                message
                                        ? parser.parseMessage(record.value())
                                        : parser.parseRead(record.value()));
                    } catch (InvalidRecordException e) {
                        // The seed design has no dead letters: a bad record is skipped.
                    }
                }
                writer.endOfBatch();
            }
            return new Result(
                    mode,
                    writer.messages,
                    writer.inboxOpens,
                    writer.commands,
                    System.nanoTime() - start,
                    RedisKeys.cpuNanos(single(redisUrl)) - redisCpuBefore);
        }
    }

    /**
     * Removes every key a run under {@code keyPrefix} wrote, and nothing else, with SCAN and UNLINK
     * so that a large cleanup never blocks Redis.
     *
     * @return the keys removed
     */
    public static long deleteKeys(String redisUrl, String keyPrefix) {
        return RedisKeys.deleteUnder(single(redisUrl), keyPrefix + "naive:");
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrapServers) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, CLIENT_NAME + "-" + UUID.randomUUID());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, CLIENT_NAME);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, MAX_PARTITION_FETCH_BYTES);
        props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, FETCH_MAX_BYTES);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * Takes every partition of both topics itself rather than subscribing: a lone consumer gets the
     * same partitions either way, without waiting for a group rebalance first.
     */
    private static void assignFromBeginning(
            KafkaConsumer<byte[], byte[]> consumer, String... topics) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : topics) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
            if (infos == null || infos.isEmpty()) {
                throw new IllegalArgumentException("no Kafka topic " + topic);
            }
            for (PartitionInfo info : infos) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Applies events to Redis the way {@link Mode} says, counting what it sends. */
    private static final class Writer {
        private final Jedis redis;
        private final String keyPrefix;
        private final Mode mode;
        private Pipeline pipeline;
        long messages;
        long inboxOpens;
        long commands;

        Writer(Jedis redis, String keyPrefix, Mode mode) {
            this.redis = redis;
            this.keyPrefix = keyPrefix;
            this.mode = mode;
        }

        void apply(ChatEvent event) {
            // A switch expression, so that a new kind does not compile until the seed design
            // says what it does with it.
            Consumer<ChatEvent> step =
                    switch (event.kind) {
                        case MESSAGE -> this::message;
                        case INBOX_OPENED -> this::inboxOpened;
                        // The seed design keeps no per-conversation counts, nor any later kind's.
                        case CONVERSATION_READ,
                                MEMBER_JOINED,
                                MEMBER_LEFT,
                                CONVERSATION_PREFERENCE,
                                CONVERSATION_MARKED_UNREAD,
                                MESSAGE_DELETED,
                                THREAD_READ,
                                THREAD_FOLLOWED,
                                MESSAGE_EDITED,
                                ALL_READ,
                                USER_ERASED,
                                CHANNEL_JOINED,
                                CHANNEL_LEFT,
                                CHANNEL_MENTION,
                                CHANNEL_EXPIRED ->
                                e -> {};
                    };
            step.accept(event);
        }

        private void message(ChatEvent event) {
            messages++;
            if (event.senderId != event.userId) {
                added(keyPrefix + event.userId, Long.toString(event.senderId));
            }
        }

        private void inboxOpened(ChatEvent event) {
            inboxOpens++;
            opened(keyPrefix + event.userId);
        }

        private void added(String key, String sender) {
            switch (mode) {
                case PER_EVENT:
                    redis.sadd(key, sender);
                    commands++;
                    break;
                case PIPELINED:
                    pipeline().sadd(key, sender);
                    commands++;
                    break;
                case CHECK_BEFORE_WRITE:
                    commands++;
                    if (!redis.sismember(key, sender)) {
                        redis.sadd(key, sender);
                        commands++;
                    }
                    break;
                default:
                    throw new IllegalStateException("unknown mode " + mode);
            }
        }

        private void opened(String key) {
            if (mode == Mode.PIPELINED) {
                pipeline().del(key);
            } else {
                redis.del(key);
            }
            commands++;
        }

        /** Returns once Redis has acknowledged every command of the batch. */
        void endOfBatch() {
            if (pipeline != null) {
                pipeline.sync();
                pipeline = null;
            }
        }

        private Pipeline pipeline() {
            if (pipeline == null) {
                pipeline = redis.pipelined();
            }
            return pipeline;
        }
    }

    /** The naive worker is the one-node baseline: the node of the URL even beside a cluster. */
    private static RedisEndpoint single(String redisUrl) {
        return RedisEndpoint.of(redisUrl, "", "");
    }
}
