package dev.unread.api;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Apache Kafka's real broker, in this JVM, started once for all test classes that use it
 * ({@code @ExtendWith(KafkaBroker.class)}) and stopped when the test run ends.
 */
public final class KafkaBroker implements BeforeAllCallback {

    private static KafkaClusterTestKit cluster;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        synchronized (KafkaBroker.class) {
            if (cluster == null) {
                long startedAt = System.nanoTime();
                KafkaClusterTestKit started =
                        new KafkaClusterTestKit.Builder(
                                        new TestKitNodes.Builder()
                                                // The kit defaults to an unreleased metadata
                                                // version.
                                                .setBootstrapMetadataVersion(
                                                        MetadataVersion.latestProduction())
                                                .setCombined(true)
                                                .setNumBrokerNodes(1)
                                                .setNumControllerNodes(1)
                                                .build())
                                .setConfigProp("offsets.topic.replication.factor", "1")
                                .setConfigProp("transaction.state.log.replication.factor", "1")
                                .setConfigProp("transaction.state.log.min.isr", "1")
                                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                                .build();
                started.format();
                started.startup();
                started.waitForReadyBrokers();
                cluster = started;
                System.out.printf(
                        "Kafka broker up at %s in %d ms%n",
                        started.bootstrapServers(), (System.nanoTime() - startedAt) / 1_000_000);
                context.getRoot()
                        .getStore(ExtensionContext.Namespace.GLOBAL)
                        .put(
                                KafkaBroker.class,
                                (AutoCloseable)
                                        () -> {
                                            synchronized (KafkaBroker.class) {
                                                cluster.close();
                                                cluster = null;
                                            }
                                        });
            }
        }
    }

    public static String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** A new topic with a random name, one partition. */
    public static String createTopic() throws Exception {
        String topic = "reads-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        return topic;
    }

    /**
     * Every record of {@code topic}'s single partition, from the start to the end offset as of now:
     * what was acknowledged before the call, exactly, without waiting for more.
     */
    public static List<ConsumerRecord<String, String>> consumeAll(String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (consumer.position(partition) < end) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " up to offset " + end);
                }
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
        }
        return records;
    }
}
