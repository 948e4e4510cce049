package dev.unread.peer;

import dev.unread.events.UnreadCount;
import dev.unread.sinks.RedisCounts;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.LongDeserializer;

/**
 * {@link BadgePeer}'s Redis side: reads the committed badge counts, sends each poll's newest count
 * per user through {@link RedisCounts#batch} (the job's commands: MSET or DEL, version, change
 * message) and commits the offsets only after Redis acknowledged them, so a restart rewrites what
 * may be missing, with absolute values.
 */
final class RedisCountWriter implements Runnable {

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(50);

    private final BadgePeer.Settings settings;
    private final AtomicLong commands = new AtomicLong();
    private volatile boolean running = true;
    private volatile Exception failure;

    RedisCountWriter(BadgePeer.Settings settings) {
        this.settings = settings;
    }

    static String groupId(BadgePeer.Settings settings) {
        return settings.applicationId() + "-redis-writer";
    }

    long commands() {
        return commands.get();
    }

    void failIfStopped() {
        if (failure != null) {
            throw new IllegalStateException("the peer's Redis writer failed", failure);
        }
    }

    void stop() {
        running = false;
    }

    @Override
    public void run() {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.config().kafkaBootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId(settings));
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], Long> consumer =
                        new KafkaConsumer<>(
                                props, new ByteArrayDeserializer(), new LongDeserializer());
                RedisCounts.Batch batch = RedisCounts.batch(settings.config())) {
            consumer.subscribe(List.of(settings.countsTopic()));
            Map<TopicPartition, Long> committed = new HashMap<>();
            while (running) {
                ConsumerRecords<byte[], Long> records = consumer.poll(POLL_TIMEOUT);
                for (ConsumerRecord<byte[], Long> record : records) {
                    long userId =
                            Long.parseLong(new String(record.key(), StandardCharsets.US_ASCII));
                    batch.add(UnreadCount.senders(userId, record.value()));
                }
                commands.addAndGet(batch.flush());
                // Positions also move past transaction markers without a record: commit those
                // too, so that the committed offsets reach the last stable offset.
                Map<TopicPartition, Long> positions = new HashMap<>();
                for (TopicPartition partition : consumer.assignment()) {
                    positions.put(partition, consumer.position(partition));
                }
                if (!positions.equals(committed)) {
                    consumer.commitSync();
                    committed = positions;
                }
            }
        } catch (Exception e) {
            failure = e;
        }
    }
}
