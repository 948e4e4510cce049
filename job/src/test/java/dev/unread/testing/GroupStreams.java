package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

/**
 * Seeded random {@code chat-conversations} traffic for the same users and conversation ids as
 * {@link EventStreams} (so group and per-receiver traffic share conversations): members joining,
 * leaving and coming back, a join and a leave at one seq, messages from members and from outsiders
 * with mentions, gaps in the seqs, deletions (of messages, of membership seqs, of seqs in the gaps
 * and of seqs only the per-receiver traffic uses), and the members' reads of those conversations;
 * with {@link #threadTraffic}, replies, thread reads and follows, count preferences, channel-wide
 * mentions, the preference that ignores them, and edits of messages, replies and unknown seqs.
 *
 * <p>{@link #published} gives arrival orders that keep the contract's one precondition and nothing
 * more: a membership event arrives before every message with a higher seq, while messages may
 * arrive late (behind later changes, and behind their own deletion; a root behind its replies),
 * deletions early (before their message and before the joins of members at their seq) and anything
 * may arrive again later. An edit arrives after the first arrival of its message (the precondition
 * edits share with memberships), in any order against the other edits.
 */
public final class GroupStreams {

    /** A conversation's records in seq order, across conversations, and the reads of them. */
    public record Traffic(List<ConversationEvent> records, List<ChatEvent> reads) {}

    private final Random random;
    private final long firstUserId;
    private final long firstConversationId;

    public GroupStreams(Random random, long firstUserId, long firstConversationId) {
        this.random = random;
        this.firstUserId = firstUserId;
        this.firstConversationId = firstConversationId;
    }

    /** About {@code steps} records in up to four conversations among {@code users} users. */
    public Traffic traffic(int steps, int users) {
        return generate(steps, users, false);
    }

    /**
     * {@link #traffic} with threads: a share of the messages reply in a thread of their
     * conversation (to a root sent before them, now and then to a seq no message has), the members'
     * thread reads and follows (unfollow and follow again among them, at setAts that tie), and
     * count preferences; deletions then hit replies and roots alike, and conversation reads pass
     * deleted replies as they pass any seq.
     */
    public Traffic threadTraffic(int steps, int users) {
        return generate(steps, users, true);
    }

    private Traffic generate(int steps, int users, boolean threads) {
        Generation g = new Generation(1 + random.nextInt(4), users, threads);
        for (int i = 0; i < steps; i++) {
            g.step();
        }
        return new Traffic(g.records, g.reads);
    }

    /** One traffic being generated. */
    private final class Generation {
        final int users;
        final boolean threads;
        final long[] seqs;

        /** Per conversation, the seqs of its messages that are no reply: the roots to pick. */
        final List<List<Long>> roots = new ArrayList<>();

        /** "conversation:seq" of each root → its sender. */
        final Map<String, Long> rootSenders = new HashMap<>();

        /** Per conversation, the seqs of all its messages: the ones to edit. */
        final List<List<Long>> sent = new ArrayList<>();

        final List<ConversationEvent> records = new ArrayList<>();
        final List<ChatEvent> reads = new ArrayList<>();
        long clock = EventStreams.T0;

        Generation(int conversations, int users, boolean threads) {
            this.users = users;
            this.threads = threads;
            this.seqs = new long[conversations];
            for (int c = 0; c < conversations; c++) {
                roots.add(new ArrayList<>());
                sent.add(new ArrayList<>());
            }
        }

        void step() {
            int c = random.nextInt(seqs.length);
            long conversation = firstConversationId + c;
            seqs[c] += 1 + (random.nextInt(5) == 0 ? random.nextInt(3) : 0);
            long seq = seqs[c];
            long user = user();
            clock += random.nextInt(2) * EventStreams.TICK_MS;
            // Without threads, the draws of the traffic before them, record for record.
            int pick = random.nextInt(threads ? 15 : 10);
            if (pick < 3) {
                membership(conversation, user, seq);
            } else if (pick < 8) {
                message(c, conversation, user, seq);
            } else if (pick < 10) {
                long readSeq = random.nextInt((int) seq + 1);
                reads.add(
                        pick == 8
                                ? ChatEvent.conversationRead(user, conversation, readSeq, clock)
                                : ChatEvent.inboxOpened(
                                        user, clock - random.nextInt(3) * EventStreams.TICK_MS));
            } else if (pick == 10) {
                reads.add(ChatEvent.threadRead(user, conversation, root(c), seq(seq), clock));
            } else if (pick == 11) {
                follow(c, conversation, user);
            } else if (pick == 12) {
                reads.add(ChatEvent.preference(user, conversation, random.nextInt(3), setAt()));
            } else if (pick == 13) {
                reads.add(
                        ChatEvent.ignoreChannelMentions(
                                user,
                                conversation,
                                random.nextBoolean()
                                        ? ChatEvent.NO_COUNT_PREFERENCE
                                        : random.nextInt(3),
                                random.nextBoolean(),
                                setAt()));
            } else {
                edit(c, conversation, seq);
            }
        }

        /**
         * An edit of one of the conversation's messages (now and then of a seq no message has), at
         * an editedAt from a few values, so that edits tie.
         */
        void edit(int c, long conversation, long seq) {
            List<Long> candidates = sent.get(c);
            long edited =
                    candidates.isEmpty() || random.nextInt(8) == 0
                            ? 1 + random.nextInt((int) seq)
                            : candidates.get(random.nextInt(candidates.size()));
            records.add(
                    ConversationEvent.edited(
                            conversation,
                            edited,
                            clock + random.nextInt(3) * EventStreams.TICK_MS,
                            random.nextInt(4) == 0,
                            mentions()));
        }

        long[] mentions() {
            long[] mentions = new long[random.nextInt(3)];
            for (int m = 0; m < mentions.length; m++) {
                mentions[m] = user();
            }
            return mentions;
        }

        long user() {
            return firstUserId + random.nextInt(users);
        }

        void membership(long conversation, long user, long seq) {
            boolean joined = random.nextInt(3) != 0;
            records.add(
                    joined
                            ? ConversationEvent.joined(conversation, user, seq)
                            : ConversationEvent.left(conversation, user, seq));
            if (random.nextInt(10) == 0) {
                records.add(
                        joined
                                ? ConversationEvent.left(conversation, user, seq)
                                : ConversationEvent.joined(conversation, user, seq));
            }
        }

        void message(int c, long conversation, long user, long seq) {
            long[] mentions = new long[random.nextInt(3)];
            for (int m = 0; m < mentions.length; m++) {
                mentions[m] = user();
            }
            ConversationEvent message =
                    ConversationEvent.message(conversation, seq, user, clock, mentions);
            if (threads && random.nextInt(5) < 2 && seq > 1) {
                // Now and then a thread whose root is no message, as nothing forbids.
                message.threadSeq =
                        random.nextInt(8) == 0 ? 1 + random.nextInt((int) seq - 1) : root(c);
                // Named by a producer of version 4, not by one of version 3.
                Long rootSender = rootSenders.get(conversation + ":" + message.threadSeq);
                if (rootSender != null && random.nextInt(3) != 0) {
                    message.rootSenderId = rootSender;
                }
            } else {
                roots.get(c).add(seq);
                rootSenders.put(conversation + ":" + seq, user);
            }
            if (threads) {
                message.mentionsAll = random.nextInt(6) == 0;
                sent.get(c).add(seq);
            }
            records.add(message);
            if (random.nextInt(4) == 0) {
                // This message, or any earlier seq of the conversation.
                long deleted = random.nextInt(2) == 0 ? seq : 1 + random.nextInt((int) seq);
                records.add(ConversationEvent.deleted(conversation, deleted));
            }
        }

        /**
         * A follow or an unfollow; now and then an unfollow and a later follow again, whichever
         * arrives first.
         */
        void follow(int c, long conversation, long user) {
            long root = root(c);
            long setAt = followAt();
            if (random.nextInt(4) == 0) {
                reads.add(ChatEvent.threadFollowed(user, conversation, root, false, setAt));
                reads.add(ChatEvent.threadFollowed(user, conversation, root, true, setAt + 1));
            } else {
                reads.add(
                        ChatEvent.threadFollowed(
                                user, conversation, root, random.nextBoolean(), setAt));
            }
        }

        /** One of the conversation's first roots, so that threads gather replies; 1 if none. */
        long root(int c) {
            List<Long> candidates = roots.get(c);
            return candidates.isEmpty()
                    ? 1
                    : candidates.get(random.nextInt(Math.min(3, candidates.size())));
        }

        /** A seq up to {@code seq}, from 0. */
        long seq(long seq) {
            return random.nextInt((int) seq + 1);
        }

        /**
         * About the clock the replies are sent at, in its ticks: a follow ties with a reply, or
         * comes a tick before or after it.
         */
        long followAt() {
            return clock + (random.nextInt(3) - 1) * EventStreams.TICK_MS;
        }

        /** From a few values, so that two settings tie. */
        long setAt() {
            return 1 + random.nextInt(4);
        }
    }

    /**
     * {@code records} as they may arrive: some messages held back behind later records, some
     * deletions moved ahead of earlier records, and about {@code duplicateShare} of all records
     * arriving a second time somewhere after the first.
     */
    public List<ConversationEvent> published(
            List<ConversationEvent> records, double duplicateShare) {
        List<ConversationEvent> early = new ArrayList<>(records.size());
        for (ConversationEvent e : records) {
            int at = early.size();
            if (e.kind == ConversationEvent.Kind.MESSAGE_DELETED && random.nextInt(3) == 0) {
                at = random.nextInt(at + 1);
            }
            early.add(at, e);
        }
        List<ConversationEvent> order = new ArrayList<>(records.size() * 2);
        List<ConversationEvent> held = new ArrayList<>();
        for (ConversationEvent e : early) {
            if (e.isMessage() && random.nextInt(4) == 0) {
                held.add(e);
            } else {
                order.add(e);
            }
            if (!held.isEmpty() && random.nextInt(3) == 0) {
                order.add(held.remove(random.nextInt(held.size())));
            }
        }
        order.addAll(held);
        order = editsAfterTheirMessages(order, e -> e);
        int size = order.size();
        for (int i = 0; i < size; i++) {
            if (random.nextDouble() < duplicateShare) {
                int at = i + 1 + random.nextInt(order.size() - i);
                order.add(at, copy(order.get(i)));
            }
        }
        return order;
    }

    /**
     * {@code order} with each edit moved, if it came first, to just after the first arrival of its
     * message: the precondition. An edit of a seq no message has stays where it is. {@code record}
     * gives an arrival's {@code chat-conversations} record, null for one of another topic.
     */
    static <T> List<T> editsAfterTheirMessages(
            List<T> order, Function<T, ConversationEvent> record) {
        List<T> result = new ArrayList<>(order.size());
        Map<String, List<T>> waiting = new HashMap<>();
        Set<String> arrived = new HashSet<>();
        Set<String> messages = new HashSet<>();
        for (T t : order) {
            ConversationEvent e = record.apply(t);
            if (e != null && e.isMessage()) {
                messages.add(e.conversationId + "#" + e.seq);
            }
        }
        for (T t : order) {
            ConversationEvent e = record.apply(t);
            String key = e == null ? null : e.conversationId + "#" + e.seq;
            if (e != null
                    && e.kind == ConversationEvent.Kind.MESSAGE_EDITED
                    && messages.contains(key)
                    && !arrived.contains(key)) {
                waiting.computeIfAbsent(key, k -> new ArrayList<>()).add(t);
                continue;
            }
            result.add(t);
            if (e != null && e.isMessage() && arrived.add(key)) {
                result.addAll(waiting.getOrDefault(key, List.of()));
                waiting.remove(key);
            }
        }
        return result;
    }

    static ConversationEvent copy(ConversationEvent e) {
        ConversationEvent c = new ConversationEvent();
        c.kind = e.kind;
        c.conversationId = e.conversationId;
        c.seq = e.seq;
        c.userId = e.userId;
        c.senderId = e.senderId;
        c.sentAt = e.sentAt;
        c.mentions = e.mentions.clone();
        c.threadSeq = e.threadSeq;
        c.rootSenderId = e.rootSenderId;
        c.mentionsAll = e.mentionsAll;
        return c;
    }
}
