package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiPredicate;
import java.util.function.LongPredicate;
import java.util.function.ToLongBiFunction;

/**
 * The threads of {@link OracleChannels}: version 4's replies, thread cursors and follows ({@link
 * OracleThreads}), with a channel's changes: the root's sender follows by default, known from the
 * root itself (no reply's {@code rootSenderId} is read), a reply U sends raises U's thread cursor,
 * and the floor hides the replies below it.
 */
final class OracleChannelThreads {

    /** "In a channel the root's sender follows its thread by default": as --track-root-senders. */
    private final OracleThreads threads = new OracleThreads(true);

    /** U's thread reads and the replies U sent, without the floor. */
    private final Map<OracleThreads.Thread, Long> cursors = new HashMap<>();

    /** C → every thread a reply, a root or a THREAD_FOLLOWED names: the ones U may follow. */
    private final Map<Long, Set<Long>> threadSeqs = new HashMap<>();

    /** A THREAD_READ or THREAD_FOLLOWED of a channel. */
    void fact(ChatEvent e) {
        if (e.kind == ChatEvent.Kind.THREAD_READ) {
            read(e);
        } else if (e.kind == ChatEvent.Kind.THREAD_FOLLOWED) {
            threads.follow(e);
            threadSeqs.computeIfAbsent(e.conversationId, k -> new TreeSet<>()).add(e.threadSeq);
        }
    }

    /**
     * Message {@code m}: its sender's part unless {@code bySender} is false (the sender's erasure
     * covers it), and its deliveries to {@code reached}, the members at its seq but the sender
     * whose erasure does not cover it.
     */
    void message(ConversationEvent m, boolean bySender, Set<Long> reached) {
        threadSeqs
                .computeIfAbsent(m.conversationId, k -> new TreeSet<>())
                .add(m.threadSeq > 0 ? m.threadSeq : m.seq);
        threads.message(delivery(m, m.senderId), bySender);
        if (bySender && m.threadSeq > 0) {
            read(ChatEvent.threadRead(m.senderId, m.conversationId, m.threadSeq, m.seq, m.sentAt));
        }
        for (long user : reached) {
            threads.message(delivery(m, user), false);
        }
    }

    /**
     * The message as it reaches {@code user}: named as sent, by id only. Without its {@code
     * rootSenderId}: "the stage knows who sent each root", so the root itself makes its sender a
     * follower and a reply naming someone else as the root's sender makes nobody one.
     */
    private static ChatEvent delivery(ConversationEvent m, long user) {
        ChatEvent e = ChatEvent.message(m.senderId, user, m.conversationId, m.seq, m.sentAt);
        e.threadSeq = m.threadSeq;
        e.mentioned = user != m.senderId && m.mentions(user);
        return e;
    }

    private void read(ChatEvent e) {
        threads.read(e);
        cursors.merge(
                new OracleThreads.Thread(e.conversationId, e.threadSeq, e.userId),
                e.seq,
                Math::max);
    }

    /** The floor (of user, channel) hides every reply below it as a thread read up to it would. */
    void floors(ToLongBiFunction<Long, Long> floor) {
        for (OracleThreads.Thread t : threads.threads()) {
            long seq = floor.applyAsLong(t.userId(), t.conversationId());
            threads.read(
                    ChatEvent.threadRead(t.userId(), t.conversationId(), t.threadSeq(), seq, 1));
        }
    }

    boolean follows(long userId, long conversationId, long threadSeq) {
        return threads.follows(new OracleThreads.Thread(conversationId, threadSeq, userId));
    }

    Set<Long> followed(long userId, long conversationId) {
        Set<Long> followed = new TreeSet<>();
        for (long t : threadSeqs.getOrDefault(conversationId, Set.of())) {
            if (follows(userId, conversationId, t)) {
                followed.add(t);
            }
        }
        return followed;
    }

    long cursor(long userId, long conversationId, long threadSeq) {
        return cursors.getOrDefault(
                new OracleThreads.Thread(conversationId, threadSeq, userId), 0L);
    }

    /** The replies of T to U past max(floor, cursor), not deleted, that pass {@code counts}. */
    long count(
            long userId,
            long conversationId,
            long threadSeq,
            BiPredicate<Long, Long> deleted,
            LongPredicate counts) {
        return threads.mentions(
                new OracleThreads.Thread(conversationId, threadSeq, userId), deleted, counts);
    }
}
