package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded random {@code chat-conversations} traffic for the same users and conversation ids as
 * {@link EventStreams} (so group and per-receiver traffic share conversations): members joining,
 * leaving and coming back, a join and a leave at one seq, messages from members and from outsiders
 * with mentions, gaps in the seqs, deletions (of messages, of membership seqs, of seqs in the gaps
 * and of seqs only the per-receiver traffic uses), and the members' reads of those conversations.
 *
 * <p>{@link #published} gives arrival orders that keep the contract's one precondition and nothing
 * more: a membership event arrives before every message with a higher seq, while messages may
 * arrive late (behind later changes, and behind their own deletion) and anything may arrive again
 * later.
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
        int conversations = 1 + random.nextInt(4);
        long[] seqs = new long[conversations];
        List<ConversationEvent> records = new ArrayList<>();
        List<ChatEvent> reads = new ArrayList<>();
        long clock = EventStreams.T0;
        for (int i = 0; i < steps; i++) {
            int c = random.nextInt(conversations);
            long conversation = firstConversationId + c;
            seqs[c] += 1 + (random.nextInt(5) == 0 ? random.nextInt(3) : 0);
            long seq = seqs[c];
            long user = firstUserId + random.nextInt(users);
            clock += random.nextInt(2) * EventStreams.TICK_MS;
            int pick = random.nextInt(10);
            if (pick < 3) {
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
            } else if (pick < 8) {
                long[] mentions = new long[random.nextInt(3)];
                for (int m = 0; m < mentions.length; m++) {
                    mentions[m] = firstUserId + random.nextInt(users);
                }
                records.add(ConversationEvent.message(conversation, seq, user, clock, mentions));
                if (random.nextInt(4) == 0) {
                    // This message, or any earlier seq of the conversation.
                    long deleted = random.nextInt(2) == 0 ? seq : 1 + random.nextInt((int) seq);
                    records.add(ConversationEvent.deleted(conversation, deleted));
                }
            } else {
                long readSeq = random.nextInt((int) seq + 1);
                reads.add(
                        pick == 8
                                ? ChatEvent.conversationRead(user, conversation, readSeq, clock)
                                : ChatEvent.inboxOpened(
                                        user, clock - random.nextInt(3) * EventStreams.TICK_MS));
            }
        }
        return new Traffic(records, reads);
    }

    /**
     * {@code records} as they may arrive: some messages held back behind later records, and about
     * {@code duplicateShare} of all records arriving a second time somewhere after the first.
     */
    public List<ConversationEvent> published(
            List<ConversationEvent> records, double duplicateShare) {
        List<ConversationEvent> order = new ArrayList<>(records.size() * 2);
        List<ConversationEvent> held = new ArrayList<>();
        for (ConversationEvent e : records) {
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
        int size = order.size();
        for (int i = 0; i < size; i++) {
            if (random.nextDouble() < duplicateShare) {
                int at = i + 1 + random.nextInt(order.size() - i);
                order.add(at, copy(order.get(i)));
            }
        }
        return order;
    }

    private static ConversationEvent copy(ConversationEvent e) {
        ConversationEvent c = new ConversationEvent();
        c.kind = e.kind;
        c.conversationId = e.conversationId;
        c.seq = e.seq;
        c.userId = e.userId;
        c.senderId = e.senderId;
        c.sentAt = e.sentAt;
        c.mentions = e.mentions.clone();
        return c;
    }
}
