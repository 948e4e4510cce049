package dev.unread.testing;

import dev.unread.events.ChatEvent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiPredicate;

/**
 * The threads of {@link Oracle}, straight from docs/contract.md, "Threads": which replies each user
 * received per thread, their thread reads and follows, and whom the sending and mentioning made a
 * follower. A pure function of the set of events it is given, as the rest of the oracle.
 */
final class OracleThreads {

    /** A user's thread: conversation, root seq, user. */
    record Thread(long conversationId, long threadSeq, long userId) implements Comparable<Thread> {
        @Override
        public int compareTo(Thread o) {
            int c = Long.compare(userId, o.userId);
            if (c == 0) {
                c = Long.compare(conversationId, o.conversationId);
            }
            return c != 0 ? c : Long.compare(threadSeq, o.threadSeq);
        }

        String field() {
            return conversationId + ":" + threadSeq;
        }
    }

    private final Map<Thread, TreeSet<Long>> replies = new TreeMap<>();
    private final Map<Thread, TreeSet<Long>> mentionedReplies = new TreeMap<>();
    private final Map<Thread, Long> cursors = new TreeMap<>();
    private final Map<Thread, List<long[]>> follows = new TreeMap<>();

    /** (C, T, U): U sent or was mentioned in a reply of T, or in the message at seq T. */
    private final Set<Thread> involved = new HashSet<>();

    /**
     * A message with a conversation as some user's state receives it: {@code e.userId} its receiver
     * (the sender for a message to oneself); {@code bySender}: whether it makes its sender take
     * part (not when the sender's erasure covers it).
     */
    void message(ChatEvent e, boolean bySender) {
        // "U sent the root or a reply of T, or is mentioned in one of them."
        long thread = e.isReply() ? e.threadSeq : e.seq;
        if (bySender) {
            involved.add(new Thread(e.conversationId, thread, e.senderId));
        }
        if (e.mentioned) {
            involved.add(new Thread(e.conversationId, thread, e.userId));
        }
        if (!e.isReply() || e.senderId == e.userId) {
            return;
        }
        Thread t = new Thread(e.conversationId, e.threadSeq, e.userId);
        replies.computeIfAbsent(t, k -> new TreeSet<>()).add(e.seq);
        if (e.mentioned) {
            mentionedReplies.computeIfAbsent(t, k -> new TreeSet<>()).add(e.seq);
        }
    }

    void read(ChatEvent e) {
        cursors.merge(new Thread(e.conversationId, e.threadSeq, e.userId), e.seq, Math::max);
    }

    void follow(ChatEvent e) {
        follows.computeIfAbsent(
                        new Thread(e.conversationId, e.threadSeq, e.userId), k -> new ArrayList<>())
                .add(new long[] {e.time, e.seq});
    }

    /** follows(U,C,T): the largest setAt, false on a tie; else whether U took part. */
    boolean follows(Thread t) {
        List<long[]> set = follows.get(t);
        if (set == null) {
            return involved.contains(t);
        }
        long bestAt = -1;
        long best = 0;
        for (long[] f : set) {
            if (f[0] > bestAt || (f[0] == bestAt && f[1] < best)) {
                bestAt = f[0];
                best = f[1];
            }
        }
        return best == 1;
    }

    /** threadUnread(U,C,T): the replies to U past the thread cursor, not deleted. */
    long unread(Thread t, BiPredicate<Long, Long> deleted) {
        return past(t, replies.get(t), deleted);
    }

    long mentions(Thread t, BiPredicate<Long, Long> deleted) {
        return past(t, mentionedReplies.get(t), deleted);
    }

    private long past(Thread t, TreeSet<Long> seqs, BiPredicate<Long, Long> deleted) {
        if (seqs == null) {
            return 0;
        }
        return seqs.tailSet(cursors.getOrDefault(t, 0L), false).stream()
                .filter(s -> !deleted.test(t.conversationId(), s))
                .count();
    }

    /** Every thread a user received a reply of, sorted. */
    Set<Thread> threads() {
        return new TreeSet<>(replies.keySet());
    }

    /** Users with a thread read or follow: they have events, if maybe no count. */
    Set<Long> readers() {
        Set<Long> users = new TreeSet<>();
        cursors.keySet().forEach(t -> users.add(t.userId()));
        follows.keySet().forEach(t -> users.add(t.userId()));
        return users;
    }
}
