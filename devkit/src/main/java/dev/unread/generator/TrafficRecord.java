package dev.unread.generator;

import dev.unread.contract.EventJson;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * One record of generated traffic, ready to publish: which input topic, the record key and value,
 * and the event it encodes.
 *
 * <ul>
 *   <li>{@code topic}: {@link Topic#MESSAGES}, {@link Topic#READS} or {@link Topic#CONVERSATIONS};
 *       the configured names are the publisher's business.
 *   <li>{@code key}: the user (the conversation, on CONVERSATIONS) the record is keyed by, as
 *       decimal text (UTF-8).
 *   <li>{@code value}: the JSON of {@code event} as {@code EventJson} writes it, or the bytes of a
 *       malformed record.
 *   <li>{@code event}: what the job should make of the value; null for a malformed record, which
 *       the job sends to the dead-letter topic, and for a CONVERSATIONS record.
 *   <li>{@code conversation}: the chat-conversations event of a CONVERSATIONS record; null on the
 *       other topics.
 *   <li>{@code malformed}: the kind of damage; null for a valid record.
 * </ul>
 */
public record TrafficRecord(
        Topic topic,
        byte[] key,
        byte[] value,
        ChatEvent event,
        ConversationEvent conversation,
        Malformed malformed) {

    /** The input topics. */
    public enum Topic {
        MESSAGES,
        READS,
        CONVERSATIONS
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
        if ((event != null ? 1 : 0) + (conversation != null ? 1 : 0) + (malformed != null ? 1 : 0)
                != 1) {
            throw new IllegalArgumentException(
                    "a record has either an event, a conversation event or a malformation");
        }
        if ((conversation != null) != (topic == Topic.CONVERSATIONS)) {
            throw new IllegalArgumentException("conversation events go to CONVERSATIONS only");
        }
    }

    /**
     * A {@code chat-conversations} record of {@code event}, whose record value is {@code value}.
     */
    public static TrafficRecord conversation(ConversationEvent event, String value) {
        return new TrafficRecord(
                Topic.CONVERSATIONS,
                EventJson.key(event.conversationId).getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8),
                null,
                event,
                null);
    }

    public boolean valid() {
        return malformed == null;
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
                // ConversationEvent has no equals of its own: the value encodes it.
                && (conversation == null) == (that.conversation == null)
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
