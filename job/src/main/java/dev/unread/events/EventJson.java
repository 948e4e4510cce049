package dev.unread.events;

import java.nio.charset.StandardCharsets;

/**
 * Writes events in the input topics' JSON, as chat servers publish them: the one encoder for the
 * traffic generator, the benchmark and the tests.
 */
public final class EventJson {

    private EventJson() {}

    /** The record value of {@code event} on its topic. */
    public static byte[] value(ChatEvent event) {
        return text(event).getBytes(StandardCharsets.UTF_8);
    }

    /** The record key: the user the event is keyed by, as decimal text. */
    public static byte[] key(ChatEvent event) {
        return Long.toString(event.userId).getBytes(StandardCharsets.UTF_8);
    }

    public static String text(ChatEvent event) {
        switch (event.kind) {
            case MESSAGE:
                return "{" + (event.hasConversation()
                                ? "\"conversationId\":" + event.conversationId + ",\"seq\":" + event.seq + ","
                                : "")
                        + "\"senderId\":" + event.senderId
                        + ",\"receiverId\":" + event.userId
                        + ",\"sentAt\":" + event.time + "}";
            case INBOX_OPENED:
                return "{\"type\":\"INBOX_OPENED\",\"userId\":" + event.userId
                        + ",\"readAt\":" + event.time + "}";
            case CONVERSATION_READ:
                return "{\"type\":\"CONVERSATION_READ\",\"userId\":" + event.userId
                        + ",\"conversationId\":" + event.conversationId
                        + ",\"readSeq\":" + event.seq
                        + ",\"readAt\":" + event.time + "}";
            default:
                throw new IllegalArgumentException("unknown kind " + event.kind);
        }
    }

    /** True for events published on {@code chat-messages}, false for {@code chat-reads}. */
    public static boolean isMessage(ChatEvent event) {
        return event.kind == ChatEvent.Kind.MESSAGE;
    }
}
