package dev.unread.contract;

/**
 * Writes the input topics' JSON as chat servers publish it: the one encoder for the API's read
 * events, the traffic generator, the benchmark and the tests (docs/contract.md, "Input").
 */
public final class EventJson {

    public static final String INBOX_OPENED = "INBOX_OPENED";
    public static final String CONVERSATION_READ = "CONVERSATION_READ";

    private EventJson() {}

    /** A {@code chat-messages} value without a conversation. */
    public static String message(long senderId, long receiverId, long sentAt) {
        return "{\"senderId\":" + senderId + ",\"receiverId\":" + receiverId
                + ",\"sentAt\":" + sentAt + "}";
    }

    /** A {@code chat-messages} value that also counts toward conversation {@code conversationId}. */
    public static String message(
            long senderId, long receiverId, long sentAt, long conversationId, long seq) {
        return "{\"conversationId\":" + conversationId + ",\"seq\":" + seq
                + ",\"senderId\":" + senderId + ",\"receiverId\":" + receiverId
                + ",\"sentAt\":" + sentAt + "}";
    }

    /** A {@code chat-reads} INBOX_OPENED value. */
    public static String inboxOpened(long userId, long readAt) {
        return "{\"type\":\"" + INBOX_OPENED + "\",\"userId\":" + userId
                + ",\"readAt\":" + readAt + "}";
    }

    /** A {@code chat-reads} CONVERSATION_READ value. */
    public static String conversationRead(
            long userId, long conversationId, long readSeq, long readAt) {
        return "{\"type\":\"" + CONVERSATION_READ + "\",\"userId\":" + userId
                + ",\"conversationId\":" + conversationId + ",\"readSeq\":" + readSeq
                + ",\"readAt\":" + readAt + "}";
    }

    /** A record key: an id as decimal text. */
    public static String key(long id) {
        return Long.toString(id);
    }
}
