package dev.unread.generator;

import dev.unread.events.ChatEvent;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * One record of generated traffic, ready to publish: which input topic, the record key and value,
 * and the event it encodes.
 *
 * <ul>
 *   <li>{@code topic}: {@link Topic#MESSAGES} or {@link Topic#READS}; the configured names are the
 *       publisher's business.
 *   <li>{@code key}: the user the record is keyed by, as decimal text (UTF-8).
 *   <li>{@code value}: the JSON of {@code event} as {@code EventJson} writes it, or the bytes of a
 *       malformed record.
 *   <li>{@code event}: what the job should make of the value; null for a malformed record, which
 *       the job sends to the dead-letter topic.
 *   <li>{@code malformed}: the kind of damage; null for a valid record.
 * </ul>
 */
public record TrafficRecord(
        Topic topic, byte[] key, byte[] value, ChatEvent event, Malformed malformed) {

    /** The two input topics. */
    public enum Topic {
        MESSAGES,
        READS
    }

    /** The kinds of malformed record the generator mixes in, each refused by the parser. */
    public enum Malformed {
        /** A valid record cut short. */
        TRUNCATED_JSON,
        /** An id as a string where the contract wants an integer. */
        WRONG_TYPE,
        /** A read event whose {@code type} the contract does not know. */
        UNKNOWN_TYPE
    }

    public TrafficRecord {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if ((event == null) == (malformed == null)) {
            throw new IllegalArgumentException("a record has either an event or a malformation");
        }
    }

    public boolean valid() {
        return event != null;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TrafficRecord)) {
            return false;
        }
        TrafficRecord that = (TrafficRecord) o;
        return topic == that.topic
                && Arrays.equals(key, that.key)
                && Arrays.equals(value, that.value)
                && Objects.equals(event, that.event)
                && malformed == that.malformed;
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, Arrays.hashCode(key), Arrays.hashCode(value), event, malformed);
    }

    @Override
    public String toString() {
        return topic
                + " "
                + new String(key, StandardCharsets.UTF_8)
                + " "
                + new String(value, StandardCharsets.UTF_8)
                + (malformed == null ? "" : " (" + malformed + ")");
    }
}
