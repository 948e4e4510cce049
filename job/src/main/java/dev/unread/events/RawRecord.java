package dev.unread.events;

import java.util.Arrays;
import java.util.Objects;

/**
 * A Kafka record exactly as it arrived, before any parsing: the job keeps the original bytes so
 * that a record it cannot accept reaches the dead-letter topic unchanged.
 *
 * <ul>
 *   <li>{@code topic}, {@code partition}, {@code offset}: where the record came from.
 *   <li>{@code timestamp}: the Kafka record's timestamp (epoch milliseconds; negative when it has
 *       none), which bounds the times in the record.
 *   <li>{@code key}: the record key (may be null); only a partitioning hint.
 *   <li>{@code value}: the record value (may be null for a tombstone).
 * </ul>
 */
public class RawRecord {
    public String topic;
    public int partition;
    public long offset;
    public long timestamp;
    public byte[] key;
    public byte[] value;

    public RawRecord() {}

    public RawRecord(
            String topic, int partition, long offset, long timestamp, byte[] key, byte[] value) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.key = key;
        this.value = value;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RawRecord)) {
            return false;
        }
        RawRecord that = (RawRecord) o;
        return partition == that.partition
                && offset == that.offset
                && timestamp == that.timestamp
                && Objects.equals(topic, that.topic)
                && Arrays.equals(key, that.key)
                && Arrays.equals(value, that.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                topic, partition, offset, timestamp, Arrays.hashCode(key), Arrays.hashCode(value));
    }

    @Override
    public String toString() {
        return topic
                + "-"
                + partition
                + "@"
                + offset
                + " ("
                + (value == null ? "null" : value.length + " bytes")
                + ")";
    }
}
