package dev.unread.events;

import dev.unread.testing.GoldenBytesTestBase;
import java.util.List;

/**
 * ChatEvents as version 4 writes them with {@link ChatEventSerializer}: one of each kind (edits,
 * ALL_READ and erasures included), every flag (the channel-wide mention's too, and the preference
 * that ignores those), a reply naming its root's sender, and the extreme longs. No state holds a
 * ChatEvent, so a new format needs no migration and no build reads an older one (version 3's went
 * with {@code rootSenderId}), but it is a new version here all the same: a change to the bytes is
 * then one made on purpose. See {@link GoldenBytesTestBase}.
 */
class ChatEventSerializerGoldenBytesTest extends GoldenBytesTestBase {

    private static final long SENT_AT = 1_767_225_600_000L;

    @Override
    protected List<Format<?>> formats() {
        return List.of(
                new Format<>(
                        "chat-event",
                        "v4",
                        ChatEventSerializer.INSTANCE,
                        List.of(
                                Case.of("message", ChatEvent.message(10087, 10086, SENT_AT)),
                                Case.of(
                                        "conversation-message",
                                        ChatEvent.message(10087, 10086, 80001, 1038, SENT_AT)),
                                Case.of(
                                        "mention",
                                        ChatEvent.mention(10087, 10086, 80001, 1039, SENT_AT)),
                                Case.of(
                                        "deleted-mentioning-reply",
                                        deleted(
                                                ChatEvent.reply(
                                                        10087, 10086, 80001, 1061, 1038, SENT_AT,
                                                        true))),
                                Case.of(
                                        "reply-naming-its-root-sender",
                                        namingRootSender(
                                                ChatEvent.reply(
                                                        10087, 10086, 80001, 1062, 1038, SENT_AT,
                                                        false))),
                                Case.of("inbox-opened", ChatEvent.inboxOpened(10086, SENT_AT)),
                                Case.of(
                                        "conversation-read",
                                        ChatEvent.conversationRead(10086, 80001, 1038, SENT_AT)),
                                Case.of(
                                        "member-joined",
                                        ChatEvent.membership(true, 10086, 80001, 12)),
                                Case.of(
                                        "member-left",
                                        ChatEvent.membership(false, 10086, 80001, 13)),
                                Case.of(
                                        "preference",
                                        ChatEvent.preference(
                                                10086, 80001, ChatEvent.NONE, SENT_AT)),
                                Case.of(
                                        "marked-unread",
                                        ChatEvent.markedUnread(10086, 80001, SENT_AT)),
                                Case.of("message-deleted", ChatEvent.deleted(10086, 80001, 1040)),
                                Case.of(
                                        "thread-read",
                                        ChatEvent.threadRead(10086, 80001, 1038, 1061, SENT_AT)),
                                Case.of(
                                        "thread-followed",
                                        ChatEvent.threadFollowed(
                                                10086, 80001, 1038, false, SENT_AT)),
                                Case.of("max-longs", everyLong(Long.MAX_VALUE)),
                                Case.of("min-longs", everyLong(Long.MIN_VALUE)),
                                Case.of("channel-mention", channelWide(false)),
                                Case.of("channel-and-named-mention", channelWide(true)),
                                Case.of(
                                        "edited-reply",
                                        ChatEvent.edited(
                                                10086, 80001, 1062, 1038, SENT_AT + 1, true, true)),
                                Case.of(
                                        "ignore-channel-mentions",
                                        ChatEvent.ignoreChannelMentions(
                                                10086,
                                                80001,
                                                ChatEvent.NO_COUNT_PREFERENCE,
                                                true,
                                                SENT_AT)),
                                Case.of(
                                        "ignore-channel-mentions-with-preference",
                                        ChatEvent.ignoreChannelMentions(
                                                10086, 80001, ChatEvent.MENTIONS, false, SENT_AT)),
                                Case.of("all-read", ChatEvent.allRead(10086, SENT_AT)),
                                Case.of("user-erased", ChatEvent.userErased(10086, SENT_AT)))));
    }

    /**
     * A conversation message that mentions the whole channel (@all), and its receiver by id too
     * when {@code named}; deleted, so that every flag is set in the one byte.
     */
    private static ChatEvent channelWide(boolean named) {
        ChatEvent e =
                named
                        ? ChatEvent.mention(10087, 10086, 80001, 1041, SENT_AT)
                        : ChatEvent.message(10087, 10086, 80001, 1041, SENT_AT);
        e.mentionsAll = true;
        e.deleted = named;
        return e;
    }

    /** A delivery the conversation's stage stamped deleted: both flags share one byte. */
    private static ChatEvent deleted(ChatEvent message) {
        message.deleted = true;
        return message;
    }

    private static ChatEvent namingRootSender(ChatEvent reply) {
        reply.rootSenderId = 10088;
        return reply;
    }

    private static ChatEvent everyLong(long v) {
        ChatEvent e = ChatEvent.reply(v, v, v, v, v, v, true);
        e.deleted = true;
        e.rootSenderId = v;
        return e;
    }
}
