package dev.unread.channels;

import dev.unread.events.ChatEvent;

/** The channel's threads. */
final class ChannelThreads {

    void fact(ChatEvent e, Out out) {}

    void membershipChanged(MemberRecord r, long userId, Out out) {}

    void cutChanged(MemberRecord r, long userId, Out out) {}

    void erase(MemberRecord r, long userId, Out out) {}

    void reply(long seq, MessageRecord m, Out out) {}

    void root(long seq, MessageRecord m, Out out) {}

    void replyDeleted(long seq, MessageRecord m, Out out) {}

    void replyEdited(long seq, MessageRecord m, long[] namedBefore, boolean allBefore, Out out) {}
}
