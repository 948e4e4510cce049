package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventSerializer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Seeded random event streams that look like chat traffic but go out of their way to hit the
 * corners of the semantics: few users so senders collide, users messaging themselves, group
 * messages fanned out to every member, repeated seqs and gaps, reads of seq 0 and of conversations
 * nobody wrote in, cursor regressions, resets older than the messages they follow (late resets) and
 * messages older than the resets they follow (late messages), mentions (a seq mentioned on one
 * record and not on another), count preferences with tied {@code setAt}s, marks older, newer and as
 * old as the reads, channel-wide mentions and the preference that ignores them, edits that add or
 * take away a mention (before and after their message, tied, of read and unknown seqs), and times
 * and seqs on a coarse grid so that {@code sentAt == readAt} and {@code seq == readSeq} are common.
 *
 * <p>One instance is one {@link Random}: the same seed and the same calls give the same events, so
 * a failure reproduces from its seed alone.
 */
public final class EventStreams {

    /** 2026-01-01T00:00:00Z, the time every generated stream starts at. */
    public static final long T0 = 1767225600000L;

    /** The time grid: coarse on purpose, so that ties between sends and reads happen. */
    public static final long TICK_MS = 1000;

    private final Random random;
    private long firstUserId = 10_001;
    private long firstConversationId = 80_001;

    public EventStreams(long seed) {
        this.random = new Random(seed);
    }

    /**
     * Moves generated ids, so that tests sharing a Redis or MySQL with other tests (or running
     * several streams through one job) do not collide.
     */
    public EventStreams withIds(long firstUserId, long firstConversationId) {
        this.firstUserId = firstUserId;
        this.firstConversationId = firstConversationId;
        return this;
    }

    public Random random() {
        return random;
    }

    /** A stream of a random length between 1 and 300 events. */
    public List<ChatEvent> events() {
        return events(1 + random.nextInt(300));
    }

    /**
     * About {@code count} events in the order a chat platform would roughly produce them (time
     * mostly increasing, with jitter); a group message fanned out to several receivers counts as
     * one, so the result may be a little longer.
     */
    public List<ChatEvent> events(int count) {
        Generation s = new Generation(3 + random.nextInt(18), 1 + random.nextInt(6));
        // Each stream gets its own mix, so some are read-heavy and some message-heavy.
        int conversationMessages = 1 + random.nextInt(10);
        int plainMessages = random.nextInt(5);
        int inboxOpens = random.nextInt(4);
        int conversationReads = random.nextInt(6);
        int preferences = random.nextInt(3);
        int marks = random.nextInt(3);
        int edits = random.nextInt(4);
        int total =
                conversationMessages
                        + plainMessages
                        + inboxOpens
                        + conversationReads
                        + preferences
                        + marks
                        + edits;
        while (s.out.size() < count) {
            if (random.nextInt(2) == 0) {
                s.clock++;
            }
            int pick = random.nextInt(total);
            if (pick < conversationMessages) {
                s.conversationMessage();
            } else if (pick < conversationMessages + plainMessages) {
                s.plainMessage();
            } else if (pick < conversationMessages + plainMessages + inboxOpens) {
                s.inboxOpened();
            } else if (pick
                    < conversationMessages + plainMessages + inboxOpens + conversationReads) {
                s.conversationRead();
            } else if (pick < total - marks - edits) {
                s.preference();
            } else if (pick < total - edits) {
                s.mark();
            } else {
                s.edit();
            }
        }
        return s.out;
    }

    /** The same events in a random order (new list, same instances). */
    public List<ChatEvent> shuffled(List<ChatEvent> events) {
        List<ChatEvent> copy = new ArrayList<>(events);
        Collections.shuffle(copy, random);
        return copy;
    }

    /**
     * The events with about {@code share} of them delivered twice, each copy right after its
     * original as an at-least-once producer retry would. Copies are new objects with equal fields,
     * so a job that keeps a reference to an input cannot get away with it.
     */
    public List<ChatEvent> withDuplicates(List<ChatEvent> events, double share) {
        List<ChatEvent> result = new ArrayList<>(events.size() * 2);
        for (ChatEvent e : events) {
            result.add(e);
            if (random.nextDouble() < share) {
                result.add(copy(e));
            }
        }
        return result;
    }

    /** The events followed by a copy of a random tail of them, as a restore replays them. */
    public List<ChatEvent> withReplayedTail(List<ChatEvent> events) {
        List<ChatEvent> result = new ArrayList<>(events);
        for (ChatEvent e : events.subList(random.nextInt(events.size() + 1), events.size())) {
            result.add(copy(e));
        }
        return result;
    }

    /**
     * {@code n} arrival orders of the same set of events, each with duplicates: order 0 is the
     * generation order with retries and a replayed tail (what Kafka usually delivers), the others
     * are full shuffles of the set with about {@code duplicateShare} duplicated.
     */
    public List<List<ChatEvent>> orders(List<ChatEvent> events, int n, double duplicateShare) {
        List<List<ChatEvent>> orders = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            List<ChatEvent> order =
                    i == 0
                            ? withReplayedTail(withDuplicates(events, duplicateShare))
                            : shuffled(withDuplicates(events, duplicateShare));
            orders.add(order);
        }
        return orders;
    }

    /**
     * The events with about one user in {@code oneIn} erased once: at the time of one of the user's
     * own timed events, so that the user has events before, at and after it (the one at it is
     * covered). Put each order through {@link #withErasuresInPlace} before it is processed.
     */
    public List<ChatEvent> withErasures(List<ChatEvent> events, int oneIn) {
        Map<Long, List<Long>> times = new TreeMap<>();
        for (ChatEvent e : events) {
            if (e.time > 0) {
                times.computeIfAbsent(e.userId, u -> new ArrayList<>()).add(e.time);
            }
        }
        List<ChatEvent> result = new ArrayList<>(events);
        times.forEach(
                (user, at) -> {
                    if (random.nextInt(oneIn) == 0) {
                        result.add(ChatEvent.userErased(user, at.get(random.nextInt(at.size()))));
                    }
                });
        return result;
    }

    /**
     * The order with each user's first USER_ERASED moved, where it is not already, before the
     * user's first event with a time after {@code erasedAt}. That is the precondition under which
     * an erasure is a function of the set (see {@link Oracle}); the events it covers stay where
     * they were, before and after it, duplicates and replays included, and so do deletions, which
     * carry no time: a deletion may come before the erasure and its message after it.
     */
    public static List<ChatEvent> withErasuresInPlace(List<ChatEvent> order) {
        List<ChatEvent> result = new ArrayList<>(order);
        Map<Long, Long> erasedAt = new TreeMap<>();
        for (ChatEvent e : order) {
            if (e.kind == ChatEvent.Kind.USER_ERASED) {
                erasedAt.putIfAbsent(e.userId, e.time);
            }
        }
        erasedAt.forEach(
                (user, at) -> {
                    int erasure = -1;
                    int first = -1;
                    for (int i = 0; i < result.size() && (erasure < 0 || first < 0); i++) {
                        ChatEvent e = result.get(i);
                        if (e.userId != user) {
                            continue;
                        }
                        if (erasure < 0 && e.kind == ChatEvent.Kind.USER_ERASED) {
                            erasure = i;
                        } else if (first < 0 && e.time > at) {
                            first = i;
                        }
                    }
                    if (first >= 0 && first < erasure) {
                        result.add(first, result.remove(erasure));
                    }
                });
        return result;
    }

    /** A new event with the same fields. */
    public static ChatEvent copy(ChatEvent e) {
        return ChatEventSerializer.INSTANCE.copy(e);
    }

    /**
     * Copies of the events with every user id (receiver, reader and sender alike) moved by {@code
     * offset}: the same story told by other users, so that several runs can share one keyed
     * operator or one Redis without seeing each other.
     */
    public static List<ChatEvent> withUsersMovedBy(List<ChatEvent> events, long offset) {
        List<ChatEvent> moved = new ArrayList<>(events.size());
        for (ChatEvent e : events) {
            ChatEvent c = copy(e);
            c.userId += offset;
            if (c.kind == ChatEvent.Kind.MESSAGE) {
                c.senderId += offset;
            }
            moved.add(c);
        }
        return moved;
    }

    /** One generation run: its users, conversations, clock and the events so far. */
    private final class Generation {
        final int users;
        final long[][] members;

        /** Highest seq handed out per conversation. */
        final long[] head;

        /** Seqs actually sent per conversation, so reads can land exactly on one. */
        final List<List<Long>> sent = new ArrayList<>();

        /** Message times so far, so resets can land exactly on one. */
        final List<Long> messageTimes = new ArrayList<>();

        /** Last readSeq generated per (user, conversation), to produce regressions. */
        final Map<Oracle.Member, Long> lastRead = new HashMap<>();

        final List<ChatEvent> out = new ArrayList<>();
        long clock;

        Generation(int users, int conversations) {
            this.users = users;
            this.members = new long[conversations][];
            this.head = new long[conversations];
            for (int c = 0; c < conversations; c++) {
                int size = 2 + random.nextInt(Math.min(5, users - 1));
                List<Long> all = new ArrayList<>();
                for (int u = 0; u < users; u++) {
                    all.add(firstUserId + u);
                }
                Collections.shuffle(all, random);
                members[c] = all.subList(0, size).stream().mapToLong(Long::longValue).toArray();
                sent.add(new ArrayList<>());
            }
        }

        long anyUser() {
            return firstUserId + random.nextInt(users);
        }

        /** A skewed choice: the first users talk most, as a few friends send most messages. */
        long chattyUser(long[] among) {
            int i = random.nextInt(among.length);
            return among[random.nextBoolean() ? i / 2 : i];
        }

        /** Around the clock, sometimes earlier than events already produced. */
        long time() {
            long ticks = Math.max(0, clock + random.nextInt(4) - 2);
            return T0 + ticks * TICK_MS;
        }

        void conversationMessage() {
            int c = random.nextInt(members.length);
            long conversationId = firstConversationId + c;
            long seq;
            int kind = random.nextInt(10);
            if (kind < 2 && head[c] > 0) {
                // A seq that was already used: a resend, or two servers racing on one seq.
                seq = Math.max(1, head[c] - random.nextInt(5));
            } else {
                head[c] += kind == 2 ? 2 + random.nextInt(4) : 1;
                seq = head[c];
            }
            sent.get(c).add(seq);
            long sender = chattyUser(members[c]);
            long sentAt = lateOrNow();
            messageTimes.add(sentAt);
            if (random.nextInt(5) == 0) {
                // A group message: one event per receiver, the sender's own copy included.
                for (long receiver : members[c]) {
                    out.add(mentionedOrNot(sender, receiver, conversationId, seq, sentAt));
                }
                return;
            }
            long receiver;
            int r = random.nextInt(20);
            if (r == 0) {
                receiver = sender;
            } else if (r == 1) {
                receiver = anyUser();
            } else {
                receiver = members[c][random.nextInt(members[c].length)];
                if (receiver == sender) {
                    receiver = members[c][(indexOf(members[c], sender) + 1) % members[c].length];
                }
            }
            out.add(mentionedOrNot(sender, receiver, conversationId, seq, sentAt));
        }

        /** One message in four mentions its receiver. */
        ChatEvent mentionedOrNot(
                long sender, long receiver, long conversationId, long seq, long sentAt) {
            ChatEvent message = ChatEvent.message(sender, receiver, conversationId, seq, sentAt);
            message.mentioned = random.nextInt(4) == 0;
            message.mentionsAll = random.nextInt(6) == 0;
            return message;
        }

        /**
         * A member's preference, at a time often shared with another one's: a count preference,
         * whether channel mentions are ignored, or both.
         */
        void preference() {
            int c = random.nextInt(members.length);
            long user = chattyUser(members[c]);
            long setAt = T0 + (clock / 2 + random.nextInt(2)) * TICK_MS;
            int carries = random.nextInt(3);
            long preference = carries == 1 ? ChatEvent.NO_COUNT_PREFERENCE : random.nextInt(3);
            out.add(
                    carries == 0
                            ? ChatEvent.preference(user, firstConversationId + c, preference, setAt)
                            : ChatEvent.ignoreChannelMentions(
                                    user,
                                    firstConversationId + c,
                                    preference,
                                    random.nextBoolean(),
                                    setAt));
        }

        /**
         * An edit of a message to a member, usually one that was sent (maybe still to come in
         * another order), sometimes an unknown seq; at a time on a coarse grid so edits tie.
         */
        void edit() {
            int c = random.nextInt(members.length);
            List<Long> seqs = sent.get(c);
            long seq =
                    seqs.isEmpty() || random.nextInt(6) == 0
                            ? 1 + random.nextInt((int) head[c] + 3)
                            : seqs.get(random.nextInt(seqs.size()));
            long user = random.nextInt(8) == 0 ? anyUser() : chattyUser(members[c]);
            long editedAt = T0 + (clock / 2 + random.nextInt(2)) * TICK_MS;
            out.add(
                    ChatEvent.edited(
                            user,
                            firstConversationId + c,
                            seq,
                            0,
                            editedAt,
                            random.nextInt(3) == 0,
                            random.nextInt(4) == 0));
        }

        /** A member marks a conversation unread, around the time of the reads. */
        void mark() {
            int c = random.nextInt(members.length);
            out.add(
                    ChatEvent.markedUnread(
                            chattyUser(members[c]), firstConversationId + c, time()));
        }

        void plainMessage() {
            long receiver = anyUser();
            long sender = random.nextInt(12) == 0 ? receiver : anyUser();
            long sentAt = lateOrNow();
            messageTimes.add(sentAt);
            out.add(ChatEvent.message(sender, receiver, sentAt));
        }

        /** Usually around now; sometimes well in the past (a late message). */
        long lateOrNow() {
            return random.nextInt(10) == 0
                    ? T0 + random.nextInt((int) clock + 1) * TICK_MS
                    : time();
        }

        void inboxOpened() {
            long user = anyUser();
            long readAt;
            int kind = random.nextInt(10);
            if (kind < 3 && !messageTimes.isEmpty()) {
                // Exactly a message's sentAt: that message must stay read.
                readAt = messageTimes.get(random.nextInt(messageTimes.size()));
            } else if (kind == 3) {
                // A late reset: older than much of what came before it.
                readAt = T0 + random.nextInt((int) clock + 1) * TICK_MS;
            } else {
                readAt = time();
            }
            out.add(ChatEvent.inboxOpened(user, readAt));
        }

        void conversationRead() {
            int c = random.nextInt(members.length);
            long conversationId = firstConversationId + c;
            if (random.nextInt(30) == 0) {
                // A conversation nobody in this stream wrote in.
                conversationId = firstConversationId + members.length + random.nextInt(3);
            }
            long user = random.nextInt(8) == 0 ? anyUser() : chattyUser(members[c]);
            Oracle.Member key = new Oracle.Member(conversationId, user);
            long previous = lastRead.getOrDefault(key, 0L);
            long readSeq;
            int kind = random.nextInt(10);
            List<Long> seqs = sent.get(c);
            if (kind == 0) {
                readSeq = 0;
            } else if (kind == 1 && previous > 0) {
                // A second device that is behind: must never move the cursor back.
                readSeq = random.nextInt((int) previous + 1);
            } else if (kind < 6 && !seqs.isEmpty()) {
                readSeq = seqs.get(random.nextInt(seqs.size()));
            } else {
                readSeq = random.nextInt((int) head[c] + 3);
            }
            lastRead.put(key, Math.max(previous, readSeq));
            out.add(ChatEvent.conversationRead(user, conversationId, readSeq, time()));
        }
    }

    private static int indexOf(long[] values, long value) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == value) {
                return i;
            }
        }
        return -1;
    }
}
