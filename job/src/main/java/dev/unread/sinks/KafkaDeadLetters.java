package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.DeadLetters;
import dev.unread.events.DeadLetter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.DefaultRecord;
import org.apache.kafka.common.record.DefaultRecordBatch;

/**
 * The dead-letter topic: each refused record with its original key and value bytes untouched, and
 * in headers the reason and where it came from.
 *
 * <p>A letter is never larger than {@link DeadLetters#MAX_LETTER_BYTES}, so the producer can never
 * fail the job with one, on every restart: that is room for the largest record the input topics
 * accept (8 MiB batches on the job's own broker, 1 MiB by Kafka's default) plus the headers. A
 * record larger than that (a producer that compressed it can publish one of any size) gets a letter
 * without its value, and without its key if that alone is too large, and a header with the size of
 * what was left out; the coordinates still find the original. The dead-letter topic must accept
 * {@code max.message.bytes} of at least {@link DeadLetters#MAX_LETTER_BYTES}.
 */
public final class KafkaDeadLetters {

    /**
     * The producer's {@code max.request.size}, and the least {@code max.message.bytes} of the
     * dead-letter topic: the 8 MiB input records most likely to be refused (the contract refuses
     * anything over 64 KiB) plus room for headers.
     */
    private static final Header[] NO_HEADERS = new Header[0];

    private KafkaDeadLetters() {}

    public static KafkaSink<DeadLetter> sink(UnreadConfig config) {
        return KafkaSink.<DeadLetter>builder()
                // SASL, TLS and timeouts first, so that the settings below win over the file's.
                .setKafkaProducerConfig(config.kafkaClientProperties())
                .setBootstrapServers(config.kafkaBootstrap)
                .setRecordSerializer(new Serializer(config.deadLetterTopic))
                // A replay after a restore may write a dead letter twice; never zero times.
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .setProperty("max.request.size", String.valueOf(DeadLetters.MAX_LETTER_BYTES))
                // Uncompressed, a batch on the broker is no larger than the size the producer
                // checked; compressed, an incompressible record would grow past it.
                .setProperty("compression.type", "none")
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
            List<Header> headers =
                    new ArrayList<>(
                            List.of(
                                    header(DeadLetters.REASON, letter.reason),
                                    header(DeadLetters.SOURCE_TOPIC, letter.source.topic),
                                    header(
                                            DeadLetters.SOURCE_PARTITION,
                                            String.valueOf(letter.source.partition)),
                                    header(
                                            DeadLetters.SOURCE_OFFSET,
                                            String.valueOf(letter.source.offset))));
            byte[] key = letter.source.key;
            byte[] value = letter.source.value;
            if (value != null && size(key, value, headers) > DeadLetters.MAX_LETTER_BYTES) {
                headers.add(header(DeadLetters.SOURCE_VALUE_BYTES, String.valueOf(value.length)));
                value = null;
            }
            if (key != null && size(key, value, headers) > DeadLetters.MAX_LETTER_BYTES) {
                headers.add(header(DeadLetters.SOURCE_KEY_BYTES, String.valueOf(key.length)));
                key = null;
            }
            return new ProducerRecord<>(topic, null, null, key, value, headers);
        }

        /** The upper bound the producer checks against max.request.size, computed as it does. */
        private static int size(byte[] key, byte[] value, List<Header> headers) {
            return DefaultRecordBatch.RECORD_BATCH_OVERHEAD
                    + DefaultRecord.sizeInBytes(
                            Integer.MAX_VALUE,
                            Long.MAX_VALUE,
                            key == null ? -1 : key.length,
                            value == null ? -1 : value.length,
                            headers.toArray(NO_HEADERS));
        }

        private static Header header(String name, String value) {
            return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
        }
    }
}
