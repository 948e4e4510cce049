package dev.unread.testing;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.EventJson;
import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.events.ConversationEvent;
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
        return switch (e.kind) {
            case MESSAGE -> message(e);
            case MESSAGE_EDITED ->
                    EventJson.groupEdited(
                            e.conversationId, e.seq, e.sentAt, e.mentionsAll, e.mentions);
            case MESSAGE_DELETED ->
                    EventJson.messageDeleted(e.conversationId, e.seq, EventStreams.T0);
            case MEMBER_JOINED, MEMBER_LEFT ->
                    EventJson.membership(
                            e.kind == ConversationEvent.Kind.MEMBER_JOINED,
                            e.conversationId,
                            e.userId,
                            e.seq);
            case CHANNEL -> "{\"type\":\"CHANNEL\",\"conversationId\":" + e.conversationId + "}";
            case PARTICIPANT, RECEIVED_REPLY ->
                    throw new IllegalArgumentException(e.kind + " is the job's own");
        };
    }

    private static String message(ConversationEvent e) {
        String json =
                e.threadSeq > 0
                        ? EventJson.groupReply(
                                e.conversationId,
                                e.seq,
                                e.threadSeq,
                                e.senderId,
                                e.sentAt,
                                e.mentions)
                        : EventJson.groupMessage(
                                e.conversationId, e.seq, e.senderId, e.sentAt, e.mentions);
        if (e.rootSenderId > 0) {
            json = EventJson.withRootSender(json, e.rootSenderId);
        }
        return e.mentionsAll ? EventJson.mentioningAll(json) : json;
    }
}
