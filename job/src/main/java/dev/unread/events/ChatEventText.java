package dev.unread.events;

import dev.unread.contract.InputField;

/** {@link ChatEvent#toString}: what a test's failure or a log line shows of an event. */
final class ChatEventText {

    private static final InputField.CountPreference[] PREFERENCES =
            InputField.CountPreference.values();

    private ChatEventText() {}

    static String of(ChatEvent e) {
        return switch (e.kind) {
            case MESSAGE, MESSAGE_EDITED ->
                    (e.kind == ChatEvent.Kind.MESSAGE ? "MESSAGE(" + e.senderId + "->" : "EDITED(")
                            + e.userId
                            + (e.hasConversation() ? " c" + e.conversationId + "#" + e.seq : "")
                            + (e.isReply() ? " in " + e.threadSeq : "")
                            + (e.rootSenderId > 0 ? " root by " + e.rootSenderId : "")
                            + (e.mentioned ? " mentioned" : "")
                            + (e.mentionsAll ? " @all" : "")
                            + (e.deleted ? " deleted" : "")
                            + " @"
                            + e.time
                            + ")";
            case CHANNEL_MENTION ->
                    "CHANNEL_MENTION("
                            + e.senderId
                            + "->"
                            + e.userId
                            + " c"
                            + e.conversationId
                            + "#"
                            + e.seq
                            + " @"
                            + e.time
                            + ")";
            case INBOX_OPENED -> "INBOX_OPENED(" + e.userId + " @" + e.time + ")";
            case ALL_READ -> "ALL_READ(" + e.userId + " @" + e.time + ")";
            case CHANNEL_EXPIRED ->
                    "CHANNEL_EXPIRED(" + e.userId + " c" + e.conversationId + " @" + e.time + ")";
            case MEMBER_JOINED, MEMBER_LEFT, CHANNEL_JOINED, CHANNEL_LEFT ->
                    e.kind + "(" + e.userId + " c" + e.conversationId + "#" + e.seq + ")";
            case CONVERSATION_PREFERENCE ->
                    "PREFERENCE("
                            + e.userId
                            + " c"
                            + e.conversationId
                            + " "
                            + (e.seq >= 0 && e.seq < PREFERENCES.length
                                    ? PREFERENCES[(int) e.seq].name()
                                    : "-")
                            + (e.carriesIgnoreChannelMentions()
                                    ? (e.ignoresChannelMentions() ? " ignore@all" : " heed@all")
                                    : "")
                            + " @"
                            + e.time
                            + ")";
            case CONVERSATION_MARKED_UNREAD ->
                    "MARKED_UNREAD(" + e.userId + " c" + e.conversationId + " @" + e.time + ")";
            case MESSAGE_DELETED ->
                    "DELETED(" + e.userId + " c" + e.conversationId + "#" + e.seq + ")";
            case THREAD_READ ->
                    "THREAD_READ("
                            + e.userId
                            + " c"
                            + e.conversationId
                            + " t"
                            + e.threadSeq
                            + " <="
                            + e.readSeq()
                            + " @"
                            + e.time
                            + ")";
            case THREAD_FOLLOWED ->
                    "THREAD_FOLLOWED("
                            + e.userId
                            + " c"
                            + e.conversationId
                            + " t"
                            + e.threadSeq
                            + (e.following() ? " on" : " off")
                            + " @"
                            + e.time
                            + ")";
            case USER_ERASED -> "USER_ERASED(" + e.userId + " @" + e.time + ")";
            case CONVERSATION_READ ->
                    "CONVERSATION_READ("
                            + e.userId
                            + " c"
                            + e.conversationId
                            + " <="
                            + e.readSeq()
                            + " @"
                            + e.time
                            + ")";
        };
    }
}
