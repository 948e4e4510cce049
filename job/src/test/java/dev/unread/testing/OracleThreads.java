package dev.unread.testing;

import dev.unread.events.ChatEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiPredicate;
import java.util.function.LongPredicate;

/**
 * The threads of {@link Oracle}, straight from docs/contract.md, "Threads" and "Who follows a
 * thread": which replies each user received per thread, their thread reads and follows, and the
 * facts and defaults that decide who follows. A pure function of the set of events it is given, as
 * the rest of the oracle.
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

    /** "With --track-root-senders the root's own senderId also makes its sender a follower". */
    private final boolean trackRootSenders;

    private final Map<Thread, TreeSet<Long>> replies = new TreeMap<>();
    private final Map<Thread, Long> cursors = new TreeMap<>();
    private final Map<Thread, List<long[]>> follows = new TreeMap<>();

    /** (C, T, U) → the newest sentAt of a reply of T that U sent or is named in. */
    private final Map<Thread, Long> repliedAt = new HashMap<>();

    /** (C, T, U) that U follows by default: older than any fact. */
    private final Set<Thread> defaults = new HashSet<>();

    OracleThreads(boolean trackRootSenders) {
        this.trackRootSenders = trackRootSenders;
    }

    /**
     * A message with a conversation as some user's state receives it: {@code e.userId} its receiver
     * (the sender for a message to oneself); {@code bySender}: whether it makes its sender take
     * part (not when the sender's erasure covers it).
     */
    void message(ChatEvent e, boolean bySender) {
        if (!e.isReply()) {
            // "U was named in the root as it was sent", where the message reaches U.
            if (e.mentioned) {
                defaults.add(new Thread(e.conversationId, e.seq, e.userId));
            }
            if (trackRootSenders && bySender) {
                defaults.add(new Thread(e.conversationId, e.seq, e.senderId));
            }
            return;
        }
        // "U sent a reply of T" and "U is named in a reply of T": facts at the reply's sentAt.
        if (bySender) {
            repliedAt.merge(
                    new Thread(e.conversationId, e.threadSeq, e.senderId), e.time, Math::max);
        }
        if (e.mentioned) {
            repliedAt.merge(new Thread(e.conversationId, e.threadSeq, e.userId), e.time, Math::max);
        }
        // "Some reply of T carries rootSenderId = U", read as a reply that reaches U.
        if (e.rootSenderId != 0 && e.rootSenderId == e.userId) {
            defaults.add(new Thread(e.conversationId, e.threadSeq, e.userId));
        }
        if (e.senderId == e.userId) {
            return;
        }
        Thread t = new Thread(e.conversationId, e.threadSeq, e.userId);
        replies.computeIfAbsent(t, k -> new TreeSet<>()).add(e.seq);
    }

    /**
     * A message as a job of version 3 took it before the upgrade: "an implicit follow counts as a
     * default", and version 3 followed the threads whose root or replies U sent or was mentioned
     * in.
     */
    void messageBeforeUpgrade(ChatEvent e) {
        long thread = e.isReply() ? e.threadSeq : e.seq;
        defaults.add(new Thread(e.conversationId, thread, e.senderId));
        if (e.mentioned) {
            defaults.add(new Thread(e.conversationId, thread, e.userId));
        }
        if (e.isReply() && e.senderId != e.userId) {
            Thread t = new Thread(e.conversationId, e.threadSeq, e.userId);
            replies.computeIfAbsent(t, k -> new TreeSet<>()).add(e.seq);
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

    /**
     * follows(U,C,T): U's newest fact (the explicit one on a tie with an implicit one; two explicit
     * ones tied: false); with none, the default.
     */
    boolean follows(Thread t) {
        Long replied = repliedAt.get(t);
        List<long[]> set = follows.get(t);
        if (set != null) {
            long bestAt = -1;
            long best = 0;
            for (long[] f : set) {
                if (f[0] > bestAt || (f[0] == bestAt && f[1] < best)) {
                    bestAt = f[0];
                    best = f[1];
                }
            }
            if (replied == null || bestAt >= replied) {
                return best == 1;
            }
        }
        return replied != null || defaults.contains(t);
    }

    /** threadUnread(U,C,T): the replies to U past the thread cursor, not deleted. */
    long unread(Thread t, BiPredicate<Long, Long> deleted) {
        return past(t, replies.get(t), deleted);
    }

    /** threadMentions(U,C,T): those of the replies that {@code mentioned} says mention U. */
    long mentions(Thread t, BiPredicate<Long, Long> deleted, LongPredicate mentioned) {
        TreeSet<Long> seqs = replies.get(t);
        if (seqs == null) {
            return 0;
        }
        TreeSet<Long> named = new TreeSet<>();
        for (long seq : seqs) {
            if (mentioned.test(seq)) {
                named.add(seq);
            }
        }
        return past(t, named, deleted);
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
