package dev.unread.testing;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.EventJson;
import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.events.ConversationEvent;
import dev.unread.events.ConversationEventJson;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Events as a chat server publishes them: JSON on the topic of their kind, keyed by user, or for
 * {@code chat-conversations} by conversation.
 */
public final class ChatRecords {

    private ChatRecords() {}

    public static ProducerRecord<byte[], byte[]> of(UnreadConfig config, ChatEvent event) {
        return of(config, event, ChatEventJson.value(event));
    }

    /** {@code event} on its topic and key, written as {@code value}. */
    public static ProducerRecord<byte[], byte[]> of(
            UnreadConfig config, ChatEvent event, byte[] value) {
        return new ProducerRecord<>(
                ChatEventJson.isMessage(event) ? config.messagesTopic : config.readsTopic,
                ChatEventJson.key(event),
                value);
    }

    public static List<ProducerRecord<byte[], byte[]>> of(
            UnreadConfig config, List<ChatEvent> events) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(events.size());
        for (ChatEvent event : events) {
            records.add(of(config, event));
        }
        return records;
    }

    /** {@code chat-conversations} records, keyed by conversation, in the given order. */
    public static List<ProducerRecord<byte[], byte[]>> ofConversations(
            UnreadConfig config, List<ConversationEvent> events) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(events.size());
        for (ConversationEvent e : events) {
            records.add(
                    new ProducerRecord<>(
                            config.conversationsTopic,
                            EventJson.key(e.conversationId).getBytes(UTF_8),
                            conversationJson(e).getBytes(UTF_8)));
        }
        return records;
    }

    /** The {@code chat-conversations} record value of {@code e}. */
    public static String conversationJson(ConversationEvent e) {
        return ConversationEventJson.text(e, EventStreams.T0);
    }
}
