package dev.unread.sources;

import dev.unread.config.UnreadConfig;
import dev.unread.events.RawRecord;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * Kafka sources of {@link RawRecord}s. Nothing is parsed here: a deserializer that threw would fail
 * the job, so parsing happens downstream where a bad record becomes a dead letter.
 */
public final class KafkaRawRecords {

    private KafkaRawRecords() {}

    /**
     * Reads {@code topic} from the committed offsets of the job's group, or from the earliest
     * offset on first start, so that no event published before the first start is missed.
     */
    public static KafkaSource<RawRecord> source(UnreadConfig config, String topic) {
        return builder(config, topic)
                .setStartingOffsets(
                        OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
                .build();
    }

    /** The source of {@code topic} without its offsets; tests bound it. */
    static KafkaSourceBuilder<RawRecord> builder(UnreadConfig config, String topic) {
        return KafkaSource.<RawRecord>builder()
                // SASL, TLS and timeouts first, so that the settings below win over the file's.
                .setProperties(config.kafkaClientProperties())
                .setBootstrapServers(config.kafkaBootstrap)
                .setTopics(topic)
                .setGroupId(config.groupId)
                .setDeserializer(new Deserializer())
                .setProperty("partition.discovery.interval.ms", "60000")
                // Offsets are committed on checkpoint completion; the checkpoint, not the
                // group's offsets, is what a restore resumes from.
                .setProperty("commit.offsets.on.checkpoint", "true");
    }

    /** Keeps the record's bytes and coordinates as they are. */
    static final class Deserializer implements KafkaRecordDeserializationSchema<RawRecord> {
        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RawRecord> out) {
            out.collect(
                    new RawRecord(
                            record.topic(),
                            record.partition(),
                            record.offset(),
                            record.timestamp(),
                            record.key(),
                            record.value()));
        }

        @Override
        public TypeInformation<RawRecord> getProducedType() {
            return TypeInformation.of(RawRecord.class);
        }
    }
}
