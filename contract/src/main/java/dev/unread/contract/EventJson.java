package dev.unread.contract;

import static dev.unread.contract.InputField.CONVERSATION_ID;
import static dev.unread.contract.InputField.COUNT_PREFERENCE;
import static dev.unread.contract.InputField.EDITED_AT;
import static dev.unread.contract.InputField.ERASED_AT;
import static dev.unread.contract.InputField.FOLLOWING;
import static dev.unread.contract.InputField.IGNORE_CHANNEL_MENTIONS;
import static dev.unread.contract.InputField.MARKED_AT;
import static dev.unread.contract.InputField.MENTIONED;
import static dev.unread.contract.InputField.MENTIONS;
import static dev.unread.contract.InputField.MENTIONS_ALL;
import static dev.unread.contract.InputField.READ_AT;
import static dev.unread.contract.InputField.READ_SEQ;
import static dev.unread.contract.InputField.RECEIVER_ID;
import static dev.unread.contract.InputField.ROOT_SENDER_ID;
import static dev.unread.contract.InputField.SENDER_ID;
import static dev.unread.contract.InputField.SENT_AT;
import static dev.unread.contract.InputField.SEQ;
import static dev.unread.contract.InputField.SET_AT;
import static dev.unread.contract.InputField.THREAD_SEQ;
import static dev.unread.contract.InputField.USER_ID;

/**
 * Writes the input topics' JSON as chat servers publish it, through {@link InputJson}: the one
 * encoder for the API's read events, the traffic generator, the benchmark and the tests
 * (docs/contract.md, "Input").
 */
public final class EventJson {

    private EventJson() {}

    /** A {@code chat-messages} value without a conversation. */
    public static String message(long senderId, long receiverId, long sentAt) {
        return InputJson.of(InputKind.MESSAGE)
                .put(SENDER_ID, senderId)
                .put(RECEIVER_ID, receiverId)
                .put(SENT_AT, sentAt)
                .text();
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
        return inConversation(senderId, receiverId, sentAt, conversationId, seq, mentioned).text();
    }

    private static InputJson inConversation(
            long senderId,
            long receiverId,
            long sentAt,
            long conversationId,
            long seq,
            boolean mentioned) {
        InputJson json =
                InputJson.of(InputKind.MESSAGE)
                        .put(CONVERSATION_ID, conversationId)
                        .put(SEQ, seq)
                        .put(SENDER_ID, senderId)
                        .put(RECEIVER_ID, receiverId)
                        .put(SENT_AT, sentAt);
        return mentioned ? json.put(MENTIONED, true) : json;
    }

    /** A {@code chat-reads} INBOX_OPENED value. */
    public static String inboxOpened(long userId, long readAt) {
        return InputJson.of(InputKind.INBOX_OPENED)
                .put(USER_ID, userId)
                .put(READ_AT, readAt)
                .text();
    }

    /** A {@code chat-reads} ALL_READ value: everything the user had received is read. */
    public static String allRead(long userId, long readAt) {
        return InputJson.of(InputKind.ALL_READ).put(USER_ID, userId).put(READ_AT, readAt).text();
    }

    /** A {@code chat-reads} CONVERSATION_READ value. */
    public static String conversationRead(
            long userId, long conversationId, long readSeq, long readAt) {
        return InputJson.of(InputKind.CONVERSATION_READ)
                .put(USER_ID, userId)
                .put(CONVERSATION_ID, conversationId)
                .put(READ_SEQ, readSeq)
                .put(READ_AT, readAt)
                .text();
    }

    /**
     * A {@code chat-reads} CONVERSATION_PREFERENCE value; {@code countPreference} is a name of
     * {@link InputField.CountPreference}.
     */
    public static String conversationPreference(
            long userId, long conversationId, String countPreference, long setAt) {
        return InputJson.of(InputKind.CONVERSATION_PREFERENCE)
                .put(USER_ID, userId)
                .put(CONVERSATION_ID, conversationId)
                .put(COUNT_PREFERENCE, InputField.CountPreference.valueOf(countPreference))
                .put(SET_AT, setAt)
                .text();
    }

    /** A {@code chat-reads} CONVERSATION_MARKED_UNREAD value. */
    public static String conversationMarkedUnread(long userId, long conversationId, long markedAt) {
        return InputJson.of(InputKind.CONVERSATION_MARKED_UNREAD)
                .put(USER_ID, userId)
                .put(CONVERSATION_ID, conversationId)
                .put(MARKED_AT, markedAt)
                .text();
    }

    /** A {@code chat-conversations} MEMBER_JOINED or MEMBER_LEFT value. */
    public static String membership(boolean joined, long conversationId, long userId, long seq) {
        return InputJson.of(joined ? InputKind.MEMBER_JOINED : InputKind.MEMBER_LEFT)
                .put(CONVERSATION_ID, conversationId)
                .put(USER_ID, userId)
                .put(SEQ, seq)
                .text();
    }

    /**
     * A {@code chat-conversations} MESSAGE value, published once for the whole conversation; {@code
     * mentions} may be empty, and is then left out.
     */
    public static String groupMessage(
            long conversationId, long seq, long senderId, long sentAt, long... mentions) {
        return groupMessageJson(conversationId, seq, senderId, sentAt, mentions).text();
    }

    private static InputJson groupMessageJson(
            long conversationId, long seq, long senderId, long sentAt, long... mentions) {
        return InputJson.of(InputKind.GROUP_MESSAGE)
                .put(CONVERSATION_ID, conversationId)
                .put(SEQ, seq)
                .put(SENDER_ID, senderId)
                .put(SENT_AT, sentAt)
                .putIds(MENTIONS, mentions);
    }

    /** A {@code chat-conversations} CHANNEL value: the conversation is a channel. */
    public static String channel(long conversationId) {
        return InputJson.of(InputKind.CHANNEL).put(CONVERSATION_ID, conversationId).text();
    }

    /**
     * A {@code chat-conversations} MESSAGE_DELETED value: message {@code seq} of the conversation
     * is deleted, whichever topic carried it.
     */
    public static String messageDeleted(long conversationId, long seq, long deletedAt) {
        return InputJson.of(InputKind.MESSAGE_DELETED)
                .put(CONVERSATION_ID, conversationId)
                .put(SEQ, seq)
                .put(InputField.DELETED_AT, deletedAt)
                .text();
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
        return inConversation(senderId, receiverId, sentAt, conversationId, seq, mentioned)
                .put(THREAD_SEQ, threadSeq)
                .text();
    }

    /** A {@code chat-conversations} MESSAGE that replies in thread {@code threadSeq}. */
    public static String groupReply(
            long conversationId,
            long seq,
            long threadSeq,
            long senderId,
            long sentAt,
            long... mentions) {
        return groupMessageJson(conversationId, seq, senderId, sentAt, mentions)
                .put(THREAD_SEQ, threadSeq)
                .text();
    }

    /**
     * {@code reply}, a reply on either topic, naming its root's sender: {@code "rootSenderId"}
     * appended, whatever its value.
     */
    public static String withRootSender(String reply, long rootSenderId) {
        return appended(reply, ROOT_SENDER_ID, Long.toString(rootSenderId));
    }

    /** A {@code chat-reads} THREAD_READ value. */
    public static String threadRead(
            long userId, long conversationId, long threadSeq, long readSeq, long readAt) {
        return InputJson.of(InputKind.THREAD_READ)
                .put(USER_ID, userId)
                .put(CONVERSATION_ID, conversationId)
                .put(THREAD_SEQ, threadSeq)
                .put(READ_SEQ, readSeq)
                .put(READ_AT, readAt)
                .text();
    }

    /** A {@code chat-reads} THREAD_FOLLOWED value. */
    public static String threadFollowed(
            long userId, long conversationId, long threadSeq, boolean following, long setAt) {
        return InputJson.of(InputKind.THREAD_FOLLOWED)
                .put(USER_ID, userId)
                .put(CONVERSATION_ID, conversationId)
                .put(THREAD_SEQ, threadSeq)
                .put(FOLLOWING, following)
                .put(SET_AT, setAt)
                .text();
    }

    /**
     * A {@code chat-reads} CONVERSATION_PREFERENCE value that carries {@code
     * ignoreChannelMentions}, and {@code countPreference} too unless it is null.
     */
    public static String ignoreChannelMentions(
            long userId, long conversationId, String countPreference, boolean ignore, long setAt) {
        InputJson json =
                InputJson.of(InputKind.CONVERSATION_PREFERENCE)
                        .put(USER_ID, userId)
                        .put(CONVERSATION_ID, conversationId);
        if (countPreference != null) {
            json.put(COUNT_PREFERENCE, InputField.CountPreference.valueOf(countPreference));
        }
        return json.put(IGNORE_CHANNEL_MENTIONS, ignore).put(SET_AT, setAt).text();
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
        InputJson json =
                InputJson.of(InputKind.MESSAGE_EDITED)
                        .put(RECEIVER_ID, receiverId)
                        .put(CONVERSATION_ID, conversationId)
                        .put(SEQ, seq);
        if (threadSeq > 0) {
            json.put(THREAD_SEQ, threadSeq);
        }
        json.put(MENTIONED, mentioned);
        if (mentionsAll) {
            json.put(MENTIONS_ALL, true);
        }
        return json.put(EDITED_AT, editedAt).text();
    }

    /**
     * A {@code chat-conversations} MESSAGE_EDITED value: whom message {@code seq} mentions after
     * the edit; {@code mentions} may be empty, and is then left out, as is a false {@code
     * mentionsAll}.
     */
    public static String groupEdited(
            long conversationId, long seq, long editedAt, boolean mentionsAll, long... mentions) {
        InputJson json =
                InputJson.of(InputKind.GROUP_MESSAGE_EDITED)
                        .put(CONVERSATION_ID, conversationId)
                        .put(SEQ, seq)
                        .putIds(MENTIONS, mentions);
        if (mentionsAll) {
            json.put(MENTIONS_ALL, true);
        }
        return json.put(EDITED_AT, editedAt).text();
    }

    /**
     * {@code json}, a message of either topic, with {@code "mentionsAll":true}: it mentions the
     * whole channel (@all, @channel, @here).
     */
    public static String mentioningAll(String json) {
        return appended(json, MENTIONS_ALL, "true");
    }

    /** {@code json} with {@code field} appended, its value written as {@code value}. */
    private static String appended(String json, InputField field, String value) {
        return json.substring(0, json.length() - 1)
                + ",\""
                + field.wireName()
                + "\":"
                + value
                + "}";
    }

    /** A {@code chat-reads} USER_ERASED value. */
    public static String userErased(long userId, long erasedAt) {
        return InputJson.of(InputKind.USER_ERASED)
                .put(USER_ID, userId)
                .put(ERASED_AT, erasedAt)
                .text();
    }

    /** A record key: an id as decimal text. */
    public static String key(long id) {
        return Long.toString(id);
    }
}
