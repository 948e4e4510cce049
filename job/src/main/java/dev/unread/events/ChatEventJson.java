package dev.unread.events;

import java.nio.charset.StandardCharsets;

/**
 * The job's events in the input topics' JSON, through the contract's encoder ({@link
 * dev.unread.contract.EventJson}): for the traffic generator, the benchmark and the tests.
 */
public final class ChatEventJson {

    private ChatEventJson() {}

    /** The record value of {@code event} on its topic. */
    public static byte[] value(ChatEvent event) {
        return text(event).getBytes(StandardCharsets.UTF_8);
    }

    /** The record key: the user the event is keyed by, as decimal text. */
    public static byte[] key(ChatEvent event) {
        return Long.toString(event.userId).getBytes(StandardCharsets.UTF_8);
    }

    public static String text(ChatEvent event) {
        if (event.kind == ChatEvent.Kind.MESSAGE && event.mentionsAll) {
            return dev.unread.contract.EventJson.mentioningAll(plainText(event));
        }
        return plainText(event);
    }

    private static String plainText(ChatEvent event) {
        switch (event.kind) {
            case MESSAGE_EDITED:
                return dev.unread.contract.EventJson.edited(
                        event.userId,
                        event.conversationId,
                        event.seq,
                        event.threadSeq,
                        event.time,
                        event.mentioned,
                        event.mentionsAll);
            case MESSAGE:
                if (event.isReply()) {
                    String reply =
                            dev.unread.contract.EventJson.reply(
                                    event.senderId,
                                    event.userId,
                                    event.time,
                                    event.conversationId,
                                    event.seq,
                                    event.threadSeq,
                                    event.mentioned);
                    return event.rootSenderId > 0
                            ? dev.unread.contract.EventJson.withRootSender(
                                    reply, event.rootSenderId)
                            : reply;
                }
                return event.hasConversation()
                        ? dev.unread.contract.EventJson.message(
                                event.senderId,
                                event.userId,
                                event.time,
                                event.conversationId,
                                event.seq,
                                event.mentioned)
                        : dev.unread.contract.EventJson.message(
                                event.senderId, event.userId, event.time);
            case INBOX_OPENED:
                return dev.unread.contract.EventJson.inboxOpened(event.userId, event.time);
            case ALL_READ:
                return dev.unread.contract.EventJson.allRead(event.userId, event.time);
            case CONVERSATION_READ:
                return dev.unread.contract.EventJson.conversationRead(
                        event.userId, event.conversationId, event.seq, event.time);
            case CONVERSATION_PREFERENCE:
                if (event.carriesIgnoreChannelMentions()) {
                    return dev.unread.contract.EventJson.ignoreChannelMentions(
                            event.userId,
                            event.conversationId,
                            event.carriesCountPreference() ? countPreference(event) : null,
                            event.mentionsAll,
                            event.time);
                }
                return dev.unread.contract.EventJson.conversationPreference(
                        event.userId, event.conversationId, countPreference(event), event.time);
            case CONVERSATION_MARKED_UNREAD:
                return dev.unread.contract.EventJson.conversationMarkedUnread(
                        event.userId, event.conversationId, event.time);
            case THREAD_READ:
                return dev.unread.contract.EventJson.threadRead(
                        event.userId, event.conversationId, event.threadSeq, event.seq, event.time);
            case THREAD_FOLLOWED:
                return dev.unread.contract.EventJson.threadFollowed(
                        event.userId,
                        event.conversationId,
                        event.threadSeq,
                        event.seq == 1,
                        event.time);
            case USER_ERASED:
                return dev.unread.contract.EventJson.userErased(event.userId, event.time);
            default:
                throw new IllegalArgumentException("unknown kind " + event.kind);
        }
    }

    private static String countPreference(ChatEvent event) {
        return event.seq == ChatEvent.ALL
                ? dev.unread.contract.EventJson.ALL
                : event.seq == ChatEvent.MENTIONS
                        ? dev.unread.contract.EventJson.MENTIONS
                        : dev.unread.contract.EventJson.NONE;
    }

    /** True for events published on {@code chat-messages}, false for {@code chat-reads}. */
    public static boolean isMessage(ChatEvent event) {
        return event.kind == ChatEvent.Kind.MESSAGE || event.kind == ChatEvent.Kind.MESSAGE_EDITED;
    }
}
