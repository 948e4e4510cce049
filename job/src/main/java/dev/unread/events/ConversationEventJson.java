package dev.unread.events;

import dev.unread.contract.EventJson;

/**
 * A {@link ConversationEvent} as the {@code chat-conversations} record a producer publishes for it:
 * for the traffic generator and the tests, which publish what they then expect counted.
 */
public final class ConversationEventJson {

    private ConversationEventJson() {}

    /** The record value of {@code e}; a deletion says {@code deletedAt}. */
    public static String text(ConversationEvent e, long deletedAt) {
        return switch (e.kind) {
            case MESSAGE -> message(e);
            case MESSAGE_EDITED ->
                    EventJson.groupEdited(
                            e.conversationId, e.seq, e.sentAt, e.mentionsAll, e.mentions);
            case MESSAGE_DELETED -> EventJson.messageDeleted(e.conversationId, e.seq, deletedAt);
            case MEMBER_JOINED, MEMBER_LEFT ->
                    EventJson.membership(
                            e.kind == ConversationEvent.Kind.MEMBER_JOINED,
                            e.conversationId,
                            e.userId,
                            e.seq);
            case CHANNEL -> EventJson.channel(e.conversationId);
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
