package dev.unread.contract;

/**
 * Writes the input topics' JSON as chat servers publish it: the one encoder for the API's read
 * events, the traffic generator, the benchmark and the tests (docs/contract.md, "Input").
 */
public final class EventJson {

    public static final String INBOX_OPENED = "INBOX_OPENED";
    public static final String CONVERSATION_READ = "CONVERSATION_READ";
    public static final String CONVERSATION_PREFERENCE = "CONVERSATION_PREFERENCE";
    public static final String CONVERSATION_MARKED_UNREAD = "CONVERSATION_MARKED_UNREAD";
    public static final String THREAD_READ = "THREAD_READ";
    public static final String THREAD_FOLLOWED = "THREAD_FOLLOWED";
    public static final String ALL_READ = "ALL_READ";
    public static final String USER_ERASED = "USER_ERASED";

    /** The values of {@code countPreference}, loudest first. */
    public static final String ALL = "ALL";

    public static final String MENTIONS = "MENTIONS";
    public static final String NONE = "NONE";

    public static final String MEMBER_JOINED = "MEMBER_JOINED";
    public static final String MEMBER_LEFT = "MEMBER_LEFT";
    public static final String MESSAGE = "MESSAGE";
    public static final String MESSAGE_DELETED = "MESSAGE_DELETED";
    public static final String MESSAGE_EDITED = "MESSAGE_EDITED";

    private EventJson() {}

    /** A {@code chat-messages} value without a conversation. */
    public static String message(long senderId, long receiverId, long sentAt) {
        return "{\"senderId\":"
                + senderId
                + ",\"receiverId\":"
                + receiverId
                + ",\"sentAt\":"
                + sentAt
                + "}";
    }

    /**
     * A {@code chat-messages} value that also counts toward conversation {@code conversationId}.
     */
    public static String message(
            long senderId, long receiverId, long sentAt, long conversationId, long seq) {
        return message(senderId, receiverId, sentAt, conversationId, seq, false);
    }

    /**
     * A {@code chat-messages} value in a conversation that mentions its receiver when {@code
     * mentioned}; {@code "mentioned"} is left out when false, its default.
     */
    public static String message(
            long senderId,
            long receiverId,
            long sentAt,
            long conversationId,
            long seq,
            boolean mentioned) {
        return "{\"conversationId\":"
                + conversationId
                + ",\"seq\":"
                + seq
                + ",\"senderId\":"
                + senderId
                + ",\"receiverId\":"
                + receiverId
                + ",\"sentAt\":"
                + sentAt
                + (mentioned ? ",\"mentioned\":true}" : "}");
    }

    /** A {@code chat-reads} INBOX_OPENED value. */
    public static String inboxOpened(long userId, long readAt) {
        return "{\"type\":\""
                + INBOX_OPENED
                + "\",\"userId\":"
                + userId
                + ",\"readAt\":"
                + readAt
                + "}";
    }

    /** A {@code chat-reads} ALL_READ value: everything the user had received is read. */
    public static String allRead(long userId, long readAt) {
        return "{\"type\":\""
                + ALL_READ
                + "\",\"userId\":"
                + userId
                + ",\"readAt\":"
                + readAt
                + "}";
    }

    /** A {@code chat-reads} CONVERSATION_READ value. */
    public static String conversationRead(
            long userId, long conversationId, long readSeq, long readAt) {
        return "{\"type\":\""
                + CONVERSATION_READ
                + "\",\"userId\":"
                + userId
                + ",\"conversationId\":"
                + conversationId
                + ",\"readSeq\":"
                + readSeq
                + ",\"readAt\":"
                + readAt
                + "}";
    }

    /**
     * A {@code chat-reads} CONVERSATION_PREFERENCE value; {@code countPreference} is {@link #ALL},
     * {@link #MENTIONS} or {@link #NONE}.
     */
    public static String conversationPreference(
            long userId, long conversationId, String countPreference, long setAt) {
        return "{\"type\":\""
                + CONVERSATION_PREFERENCE
                + "\",\"userId\":"
                + userId
                + ",\"conversationId\":"
                + conversationId
                + ",\"countPreference\":\""
                + countPreference
                + "\",\"setAt\":"
                + setAt
                + "}";
    }

    /** A {@code chat-reads} CONVERSATION_MARKED_UNREAD value. */
    public static String conversationMarkedUnread(long userId, long conversationId, long markedAt) {
        return "{\"type\":\""
                + CONVERSATION_MARKED_UNREAD
                + "\",\"userId\":"
                + userId
                + ",\"conversationId\":"
                + conversationId
                + ",\"markedAt\":"
                + markedAt
                + "}";
    }

    /** A {@code chat-conversations} MEMBER_JOINED or MEMBER_LEFT value. */
    public static String membership(boolean joined, long conversationId, long userId, long seq) {
        return "{\"type\":\""
                + (joined ? MEMBER_JOINED : MEMBER_LEFT)
                + "\",\"conversationId\":"
                + conversationId
                + ",\"userId\":"
                + userId
                + ",\"seq\":"
                + seq
                + "}";
    }

    /**
     * A {@code chat-conversations} MESSAGE value, published once for the whole conversation; {@code
     * mentions} may be empty, and is then left out.
     */
    public static String groupMessage(
            long conversationId, long seq, long senderId, long sentAt, long... mentions) {
        StringBuilder json =
                new StringBuilder(96 + 12 * mentions.length)
                        .append("{\"type\":\"")
                        .append(MESSAGE)
                        .append("\",\"conversationId\":")
                        .append(conversationId)
                        .append(",\"seq\":")
                        .append(seq)
                        .append(",\"senderId\":")
                        .append(senderId)
                        .append(",\"sentAt\":")
                        .append(sentAt);
        appendMentions(json, mentions);
        return json.append('}').toString();
    }

    /**
     * A {@code chat-conversations} MESSAGE_DELETED value: message {@code seq} of the conversation
     * is deleted, whichever topic carried it.
     */
    public static String messageDeleted(long conversationId, long seq, long deletedAt) {
        return "{\"type\":\""
                + MESSAGE_DELETED
                + "\",\"conversationId\":"
                + conversationId
                + ",\"seq\":"
                + seq
                + ",\"deletedAt\":"
                + deletedAt
                + "}";
    }

    /**
     * A {@code chat-messages} reply: a message of conversation {@code conversationId} in the thread
     * whose root is {@code threadSeq}; {@code "mentioned"} is left out when false.
     */
    public static String reply(
            long senderId,
            long receiverId,
            long sentAt,
            long conversationId,
            long seq,
            long threadSeq,
            boolean mentioned) {
        String message = message(senderId, receiverId, sentAt, conversationId, seq, mentioned);
        return message.substring(0, message.length() - 1) + ",\"threadSeq\":" + threadSeq + "}";
    }

    /** A {@code chat-conversations} MESSAGE that replies in thread {@code threadSeq}. */
    public static String groupReply(
            long conversationId,
            long seq,
            long threadSeq,
            long senderId,
            long sentAt,
            long... mentions) {
        String message = groupMessage(conversationId, seq, senderId, sentAt, mentions);
        return message.substring(0, message.length() - 1) + ",\"threadSeq\":" + threadSeq + "}";
    }

    /**
     * {@code reply}, a reply on either topic, naming its root's sender: {@code "rootSenderId"}
     * appended, whatever its value.
     */
    public static String withRootSender(String reply, long rootSenderId) {
        return reply.substring(0, reply.length() - 1) + ",\"rootSenderId\":" + rootSenderId + "}";
    }

    /** A {@code chat-reads} THREAD_READ value. */
    public static String threadRead(
            long userId, long conversationId, long threadSeq, long readSeq, long readAt) {
        return "{\"type\":\""
                + THREAD_READ
                + "\",\"userId\":"
                + userId
                + ",\"conversationId\":"
                + conversationId
                + ",\"threadSeq\":"
                + threadSeq
                + ",\"readSeq\":"
                + readSeq
                + ",\"readAt\":"
                + readAt
                + "}";
    }

    /** A {@code chat-reads} THREAD_FOLLOWED value. */
    public static String threadFollowed(
            long userId, long conversationId, long threadSeq, boolean following, long setAt) {
        return "{\"type\":\""
                + THREAD_FOLLOWED
                + "\",\"userId\":"
                + userId
                + ",\"conversationId\":"
                + conversationId
                + ",\"threadSeq\":"
                + threadSeq
                + ",\"following\":"
                + following
                + ",\"setAt\":"
                + setAt
                + "}";
    }

    /**
     * A {@code chat-reads} CONVERSATION_PREFERENCE value that carries {@code
     * ignoreChannelMentions}, and {@code countPreference} too unless it is null.
     */
    public static String ignoreChannelMentions(
            long userId, long conversationId, String countPreference, boolean ignore, long setAt) {
        return "{\"type\":\""
                + CONVERSATION_PREFERENCE
                + "\",\"userId\":"
                + userId
                + ",\"conversationId\":"
                + conversationId
                + (countPreference == null
                        ? ""
                        : ",\"countPreference\":\"" + countPreference + "\"")
                + ",\"ignoreChannelMentions\":"
                + ignore
                + ",\"setAt\":"
                + setAt
                + "}";
    }

    /**
     * A {@code chat-messages} MESSAGE_EDITED value: message {@code seq} (a reply of {@code
     * threadSeq}, or 0 for none) as edited, to one receiver; {@code "mentionsAll"} is left out when
     * false.
     */
    public static String edited(
            long receiverId,
            long conversationId,
            long seq,
            long threadSeq,
            long editedAt,
            boolean mentioned,
            boolean mentionsAll) {
        return "{\"type\":\""
                + MESSAGE_EDITED
                + "\",\"receiverId\":"
                + receiverId
                + ",\"conversationId\":"
                + conversationId
                + ",\"seq\":"
                + seq
                + (threadSeq > 0 ? ",\"threadSeq\":" + threadSeq : "")
                + ",\"mentioned\":"
                + mentioned
                + (mentionsAll ? ",\"mentionsAll\":true" : "")
                + ",\"editedAt\":"
                + editedAt
                + "}";
    }

    /**
     * A {@code chat-conversations} MESSAGE_EDITED value: whom message {@code seq} mentions after
     * the edit; {@code mentions} may be empty, and is then left out, as is a false {@code
     * mentionsAll}.
     */
    public static String groupEdited(
            long conversationId, long seq, long editedAt, boolean mentionsAll, long... mentions) {
        StringBuilder json =
                new StringBuilder(96 + 12 * mentions.length)
                        .append("{\"type\":\"")
                        .append(MESSAGE_EDITED)
                        .append("\",\"conversationId\":")
                        .append(conversationId)
                        .append(",\"seq\":")
                        .append(seq);
        appendMentions(json, mentions);
        if (mentionsAll) {
            json.append(",\"mentionsAll\":true");
        }
        return json.append(",\"editedAt\":").append(editedAt).append('}').toString();
    }

    /** {@code ,"mentions":[…]} after {@code json}, or nothing when {@code mentions} is empty. */
    private static void appendMentions(StringBuilder json, long[] mentions) {
        if (mentions.length == 0) {
            return;
        }
        json.append(",\"mentions\":[");
        for (int i = 0; i < mentions.length; i++) {
            json.append(i == 0 ? "" : ",").append(mentions[i]);
        }
        json.append(']');
    }

    /**
     * {@code json}, a message of either topic, with {@code "mentionsAll":true}: it mentions the
     * whole channel (@all, @channel, @here).
     */
    public static String mentioningAll(String json) {
        return json.substring(0, json.length() - 1) + ",\"mentionsAll\":true}";
    }

    /** A {@code chat-reads} USER_ERASED value. */
    public static String userErased(long userId, long erasedAt) {
        return "{\"type\":\""
                + USER_ERASED
                + "\",\"userId\":"
                + userId
                + ",\"erasedAt\":"
                + erasedAt
                + "}";
    }

    /** A record key: an id as decimal text. */
    public static String key(long id) {
        return Long.toString(id);
    }
}
