package dev.unread.sources;

import dev.unread.config.UnreadConfig;
import dev.unread.events.RawRecord;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;

/** The job's Kafka source, bounded: a job over it stops once it has read its topic. */
public final class BoundedRawRecords {

    private BoundedRawRecords() {}

    /** Everything in {@code topic} up to its end at start, read as the job reads it. */
    public static KafkaSource<RawRecord> of(UnreadConfig config, String topic) {
        return KafkaRawRecords.builder(config, topic)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.latest())
                .build();
    }
}
