package dev.unread.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.unread.config.UnreadConfig;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.ListeningSockets;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class EmbeddedKafkaITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @Test
    void createsTheFourTopicsWithFourPartitionsAndRoomForLargeDeadLetters() throws Exception {
        UnreadConfig config = KAFKA.freshTopics(Map.of());

        try (Admin admin = KAFKA.kafka().admin()) {
            Map<String, TopicDescription> topics =
                    admin.describeTopics(
                                    List.of(
                                            config.messagesTopic,
                                            config.readsTopic,
                                            config.conversationsTopic,
                                            config.deadLetterTopic))
                            .allTopicNames()
                            .get();
            assertThat(topics.values())
                    .allSatisfy(t -> assertThat(t.partitions()).hasSize(EmbeddedKafka.PARTITIONS));

            ConfigResource deadLetters =
                    new ConfigResource(ConfigResource.Type.TOPIC, config.deadLetterTopic);
            Config topicConfig =
                    admin.describeConfigs(List.of(deadLetters)).all().get().get(deadLetters);
            assertThat(topicConfig.get("max.message.bytes").value())
                    .isEqualTo(String.valueOf(8 * 1024 * 1024 + 64 * 1024));
        }
    }

    @Test
    void creatingTopicsTwiceLeavesThemAsTheyAre() {
        UnreadConfig config = KAFKA.freshTopics(Map.of());
        KAFKA.produce(config.readsTopic, "1", "kept");

        KAFKA.kafka()
                .createTopics(
                        config.messagesTopic,
                        config.readsTopic,
                        config.conversationsTopic,
                        config.deadLetterTopic);

        assertThat(KAFKA.records(config.readsTopic))
                .extracting(r -> KafkaBroker.utf8(r.value()))
                .containsExactly("kept");
    }

    @Test
    void aProducedRecordIsConsumedWithItsKeyValueAndHeaders() {
        String topic = "roundtrip";
        KAFKA.createTopic(topic);
        ProducerRecord<byte[], byte[]> record =
                new ProducerRecord<>(
                        topic,
                        null,
                        KafkaBroker.utf8("10086"),
                        new byte[] {0, (byte) 0xff, 42},
                        List.of(new RecordHeader("unread.reason", KafkaBroker.utf8("not JSON"))));

        KAFKA.produce(List.of(record));

        List<ConsumerRecord<byte[], byte[]>> read =
                KAFKA.awaitRecords(topic, 1, Duration.ofSeconds(30));
        assertThat(read).hasSize(1);
        assertThat(KafkaBroker.utf8(read.get(0).key())).isEqualTo("10086");
        assertThat(read.get(0).value()).containsExactly(0, 0xff, 42);
        assertThat(KafkaBroker.header(read.get(0), "unread.reason")).isEqualTo("not JSON");
    }

    @Test
    void acceptsTwoMebibyteRecordsOnTheInputAndDeadLetterTopics() {
        UnreadConfig config = KAFKA.freshTopics(Map.of());
        byte[] big = new byte[2 * 1024 * 1024];
        Arrays.fill(big, (byte) 'x');

        KAFKA.produce(config.messagesTopic, KafkaBroker.utf8("1"), big);
        KAFKA.produce(config.deadLetterTopic, KafkaBroker.utf8("1"), big);

        assertThat(KAFKA.records(config.messagesTopic))
                .singleElement()
                .satisfies(r -> assertThat(r.value()).hasSize(big.length));
        assertThat(KAFKA.records(config.deadLetterTopic))
                .singleElement()
                .satisfies(r -> assertThat(r.value()).hasSize(big.length));
    }

    @Test
    void advertisesAndListensOnLoopbackOnly() throws Exception {
        assertThat(KAFKA.bootstrapServers()).isEqualTo("127.0.0.1:" + KAFKA.kafka().port());
        try (Admin admin = KAFKA.kafka().admin()) {
            assertThat(admin.describeCluster().nodes().get())
                    .extracting(Node::host)
                    .containsExactly("127.0.0.1");
        }

        assumeThat(ListeningSockets.available()).as("Linux /proc").isTrue();
        List<InetSocketAddress> listening = ListeningSockets.ofThisProcess();
        assertThat(listening).extracting(InetSocketAddress::getPort).contains(KAFKA.kafka().port());
        // The broker's listener and its controller's: nothing else in this JVM listens.
        assertThat(listening)
                .hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(
                        a ->
                                assertThat(a.getAddress().isLoopbackAddress())
                                        .as(a.toString())
                                        .isTrue());
    }

    @Test
    void aRestartKeepsThePortTopicsRecordsAndCommittedOffsets() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(0)) {
            kafka.createTopic("kept", 2, Map.of());
            TopicPartition partition = new TopicPartition("kept", 1);
            try (Admin admin = kafka.admin();
                    KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
                producer.send(new ProducerRecord<>("kept", 1, null, KafkaBroker.utf8("before")))
                        .get();
                admin.alterConsumerGroupOffsets(
                                "group", Map.of(partition, new OffsetAndMetadata(1)))
                        .all()
                        .get();
            }
            int port = kafka.port();

            kafka.restart();

            assertThat(kafka.port()).isEqualTo(port);
            try (Admin admin = kafka.admin();
                    KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
                producer.send(new ProducerRecord<>("kept", 1, null, KafkaBroker.utf8("after")))
                        .get();
                assertThat(
                                admin.listConsumerGroupOffsets("group")
                                        .partitionsToOffsetAndMetadata()
                                        .get())
                        .containsEntry(partition, new OffsetAndMetadata(1));
                assertThat(
                                admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                                        .partitionResult(partition)
                                        .get()
                                        .offset())
                        .as("records before and after the restart")
                        .isEqualTo(2);
            }
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(EmbeddedKafka kafka) {
        return new KafkaProducer<>(
                Map.<String, Object>of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    @Test
    void refusesAPortInUseWithAPlainMessage() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThatThrownBy(() -> EmbeddedKafka.start(taken.getLocalPort()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("port " + taken.getLocalPort())
                    .hasMessageContaining("in use");
        }
    }
}
