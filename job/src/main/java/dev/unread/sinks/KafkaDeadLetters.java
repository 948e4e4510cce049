package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.DeadLetterHeaders;
import dev.unread.events.DeadLetter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * The dead-letter topic: each refused record with its original key and value bytes untouched,
 * and in headers the reason and where it came from.
 */
public final class KafkaDeadLetters {

    /**
     * A refused record may be as large as the broker accepts on the input topics (the contract
     * refuses anything over 64 KiB, so oversized records are the ones most likely to land here).
     */
    static final int MAX_REQUEST_BYTES = 8 * 1024 * 1024;

    private KafkaDeadLetters() {}

    public static KafkaSink<DeadLetter> sink(UnreadConfig config) {
        return KafkaSink.<DeadLetter>builder()
                // SASL, TLS and timeouts first, so that the settings below win over the file's.
                .setKafkaProducerConfig(config.kafkaClientProperties())
                .setBootstrapServers(config.kafkaBootstrap)
                .setRecordSerializer(new Serializer(config.deadLetterTopic))
                // A replay after a restore may write a dead letter twice; never zero times.
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .setProperty("max.request.size", String.valueOf(MAX_REQUEST_BYTES))
                .setProperty("compression.type", "lz4")
                .build();
    }

    static final class Serializer implements KafkaRecordSerializationSchema<DeadLetter> {
        private final String topic;

        Serializer(String topic) {
            this.topic = topic;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(
                DeadLetter letter, KafkaSinkContext context, Long timestamp) {
            List<Header> headers = List.of(
                    header(DeadLetterHeaders.REASON, letter.reason),
                    header(DeadLetterHeaders.SOURCE_TOPIC, letter.source.topic),
                    header(
                            DeadLetterHeaders.SOURCE_PARTITION,
                            String.valueOf(letter.source.partition)),
                    header(DeadLetterHeaders.SOURCE_OFFSET, String.valueOf(letter.source.offset)));
            return new ProducerRecord<>(
                    topic, null, null, letter.source.key, letter.source.value, headers);
        }

        private static Header header(String name, String value) {
            return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
        }
    }
}
