package dev.unread.events;

import dev.unread.contract.EventJson;
import dev.unread.contract.InputField;
import java.nio.charset.StandardCharsets;

/**
 * The job's events in the input topics' JSON, through the contract's encoder ({@link EventJson}):
 * for the traffic generator, the benchmark and the tests.
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
            return EventJson.mentioningAll(plainText(event));
        }
        return plainText(event);
    }

    private static String plainText(ChatEvent event) {
        return switch (event.kind) {
            case MESSAGE_EDITED ->
                    EventJson.edited(
                            event.userId,
                            event.conversationId,
                            event.seq,
                            event.threadSeq,
                            event.time,
                            event.mentioned,
                            event.mentionsAll);
            case MESSAGE -> message(event);
            case INBOX_OPENED -> EventJson.inboxOpened(event.userId, event.time);
            case ALL_READ -> EventJson.allRead(event.userId, event.time);
            case CONVERSATION_READ ->
                    EventJson.conversationRead(
                            event.userId, event.conversationId, event.readSeq(), event.time);
            case CONVERSATION_PREFERENCE ->
                    event.carriesIgnoreChannelMentions()
                            ? EventJson.ignoreChannelMentions(
                                    event.userId,
                                    event.conversationId,
                                    event.carriesCountPreference() ? countPreference(event) : null,
                                    event.ignoresChannelMentions(),
                                    event.time)
                            : EventJson.conversationPreference(
                                    event.userId,
                                    event.conversationId,
                                    countPreference(event),
                                    event.time);
            case CONVERSATION_MARKED_UNREAD ->
                    EventJson.conversationMarkedUnread(
                            event.userId, event.conversationId, event.time);
            case THREAD_READ ->
                    EventJson.threadRead(
                            event.userId,
                            event.conversationId,
                            event.threadSeq,
                            event.readSeq(),
                            event.time);
            case THREAD_FOLLOWED ->
                    EventJson.threadFollowed(
                            event.userId,
                            event.conversationId,
                            event.threadSeq,
                            event.following(),
                            event.time);
            case USER_ERASED -> EventJson.userErased(event.userId, event.time);
            // The fan-out's deliveries of chat-conversations records, and the user's state's own
            // fact: no topic carries them so.
            case MEMBER_JOINED,
                    MEMBER_LEFT,
                    MESSAGE_DELETED,
                    CHANNEL_JOINED,
                    CHANNEL_LEFT,
                    CHANNEL_MENTION,
                    CHANNEL_EXPIRED ->
                    throw new IllegalArgumentException(event.kind + " is no record of its own");
        };
    }

    private static String message(ChatEvent event) {
        if (event.isReply()) {
            String reply =
                    EventJson.reply(
                            event.senderId,
                            event.userId,
                            event.time,
                            event.conversationId,
                            event.seq,
                            event.threadSeq,
                            event.mentioned);
            return event.rootSenderId > 0
                    ? EventJson.withRootSender(reply, event.rootSenderId)
                    : reply;
        }
        return event.hasConversation()
                ? EventJson.message(
                        event.senderId,
                        event.userId,
                        event.time,
                        event.conversationId,
                        event.seq,
                        event.mentioned)
                : EventJson.message(event.senderId, event.userId, event.time);
    }

    private static String countPreference(ChatEvent event) {
        return InputField.CountPreference.values()[(int) event.countPreference()].name();
    }

    /** True for events published on {@code chat-messages}, false for {@code chat-reads}. */
    public static boolean isMessage(ChatEvent event) {
        return event.kind == ChatEvent.Kind.MESSAGE || event.kind == ChatEvent.Kind.MESSAGE_EDITED;
    }
}
