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

/**
 * Seeded random traffic of channels (the shared design's "Version 5"): each channel declared by
 * {@code CHANNEL} first, members joining, leaving and coming back (a join and a leave at one seq
 * among them), roots and replies from members naming members and others by id and mentioning
 * everyone, replies naming their root's sender (or someone else) or not, replies to seqs that are
 * no root, deletions of messages, membership seqs and unknown seqs, edits (tied on {@code
 * editedAt}, of unknown seqs), and the members' facts: conversation and thread reads, follows and
 * unfollows, count preferences and {@code ignoreChannelMentions}, marks, ALL_READ and an erasure or
 * two; now and then a message past {@code --max-channel-seq}. Every user who sends or has a fact in
 * a channel has a membership event in it, some only at its end: the user's state learns that C is
 * the user's channel from it. {@code sentAt} does not decrease as seq grows in a channel, the
 * contract's precondition.
 *
 * <p>{@link #published} gives the order of arrival, facts among records, in every order the
 * contract allows: messages and memberships held back behind later records (a late membership is
 * applied in a channel), deletions moved ahead of their message (never ahead of the channel's
 * {@code CHANNEL}), facts anywhere (ALL_READ and erasures before messages they cover, follows and
 * preferences before the user's join), each edit after its message's first arrival, every event of
 * an erased user with a time after the erasure after it, and about a share of everything again
 * later.
 */
public final class ChannelTraffic {

    /** The channels' records in production order (each channel's CHANNEL first), and the facts. */
    public record Traffic(List<ConversationEvent> records, List<ChatEvent> facts) {}

    /** One arrival: a {@code chat-conversations} record or a user's fact, the other null. */
    public record Arrival(ConversationEvent record, ChatEvent fact) {

        /** The records among {@code arrivals}, in their order: what the oracle takes. */
        public static List<ConversationEvent> records(List<Arrival> arrivals) {
            return arrivals.stream().filter(a -> a.record != null).map(Arrival::record).toList();
        }

        /** The facts among {@code arrivals}, in their order. */
        public static List<ChatEvent> facts(List<Arrival> arrivals) {
            return arrivals.stream().filter(a -> a.fact != null).map(Arrival::fact).toList();
        }
    }

    private final Random random;
    private final long firstUserId;
    private final long firstChannelId;
    private final long maxChannelSeq;

    public ChannelTraffic(
            Random random, long firstUserId, long firstChannelId, long maxChannelSeq) {
        this.random = random;
        this.firstUserId = firstUserId;
        this.firstChannelId = firstChannelId;
        this.maxChannelSeq = maxChannelSeq;
    }

    /** About {@code steps} records and facts in one to three channels among {@code users} users. */
    public Traffic traffic(int steps, int users) {
        ChannelGeneration g = new ChannelGeneration(random, firstUserId, users, maxChannelSeq);
        int channels = 1 + random.nextInt(3);
        for (int c = 0; c < channels; c++) {
            g.open(firstChannelId + c);
        }
        for (int i = 0; i < steps; i++) {
            g.step();
        }
        g.close();
        return new Traffic(g.records, g.facts);
    }

    /** The arrivals of {@code traffic}, about {@code duplicateShare} of them twice. */
    public List<Arrival> published(Traffic traffic, double duplicateShare) {
        Set<Long> declared = new HashSet<>();
        List<Arrival> order = new ArrayList<>();
        List<Arrival> held = new ArrayList<>();
        for (ConversationEvent e : traffic.records()) {
            Arrival a = new Arrival(e, null);
            if (e.kind == ConversationEvent.Kind.CHANNEL) {
                declared.add(e.conversationId);
                order.add(a);
            } else if (e.kind == ConversationEvent.Kind.MESSAGE_DELETED && random.nextInt(3) == 0) {
                order.add(declared.size() + random.nextInt(order.size() - declared.size() + 1), a);
            } else if ((e.isMessage() && random.nextInt(4) == 0)
                    || (e.isMembership() && random.nextInt(5) == 0)) {
                held.add(a);
            } else {
                order.add(a);
            }
            if (!held.isEmpty() && random.nextInt(3) == 0) {
                order.add(held.remove(random.nextInt(held.size())));
            }
        }
        order.addAll(held);
        for (ChatEvent e : traffic.facts()) {
            order.add(random.nextInt(order.size() + 1), new Arrival(null, e));
        }
        order = erasuresFirst(order);
        order = GroupStreams.editsAfterTheirMessages(order, Arrival::record);
        int size = order.size();
        for (int i = 0; i < size; i++) {
            if (random.nextDouble() < duplicateShare) {
                Arrival a = order.get(i);
                Arrival again =
                        a.record != null
                                ? new Arrival(GroupStreams.copy(a.record), null)
                                : new Arrival(null, EventStreams.copy(a.fact));
                order.add(i + 1 + random.nextInt(order.size() - i), again);
            }
        }
        return order;
    }

    /**
     * {@code arrivals} as they may go to Kafka, where the job reads {@code chat-conversations} and
     * each user's {@code chat-reads} partition at its own pace: each erasure (its copies too) at no
     * earlier than the newest time of the channel records that name its user (a message or edit the
     * user sent, that mentions the user by id or names the user as root sender), so that no event
     * of the user with a later time can reach the job before it ("Erasure", precondition). The
     * user's later facts stay after it, on its own partition.
     */
    public static List<Arrival> onKafka(List<Arrival> arrivals) {
        Map<Long, Long> lastNamed = new HashMap<>();
        for (ConversationEvent e : Arrival.records(arrivals)) {
            if (e.isMessage() || e.kind == ConversationEvent.Kind.MESSAGE_EDITED) {
                for (long user : e.mentions) {
                    lastNamed.merge(user, e.sentAt, Math::max);
                }
                lastNamed.merge(e.senderId, e.sentAt, Math::max);
                lastNamed.merge(e.rootSenderId, e.sentAt, Math::max);
            }
        }
        List<Arrival> result = new ArrayList<>(arrivals.size());
        for (Arrival a : arrivals) {
            ChatEvent f = a.fact;
            long last = f == null ? 0 : lastNamed.getOrDefault(f.userId, 0L);
            result.add(
                    f != null && f.kind == ChatEvent.Kind.USER_ERASED && f.time < last
                            ? new Arrival(null, ChatEvent.userErased(f.userId, last))
                            : a);
        }
        return result;
    }

    /**
     * {@code order} with every event of an erased user with a time after the erasure that came
     * before it moved to just after it: a fact of the user, a message the user sent, a message
     * naming the user by id (the erasure acts on what the job holds, "Erasure").
     */
    private static List<Arrival> erasuresFirst(List<Arrival> order) {
        Map<Long, Long> erasedAt = new HashMap<>();
        for (Arrival a : order) {
            if (a.fact != null && a.fact.kind == ChatEvent.Kind.USER_ERASED) {
                erasedAt.merge(a.fact.userId, a.fact.time, Math::max);
            }
        }
        List<Arrival> result = order;
        for (Map.Entry<Long, Long> erased : erasedAt.entrySet()) {
            int erasure = 0;
            while (!isErasure(result.get(erasure), erased.getKey())) {
                erasure++;
            }
            List<Arrival> kept = new ArrayList<>(result.size());
            List<Arrival> moved = new ArrayList<>();
            for (Arrival a : result.subList(0, erasure)) {
                (after(a, erased.getKey(), erased.getValue()) ? moved : kept).add(a);
            }
            kept.add(result.get(erasure));
            kept.addAll(moved);
            kept.addAll(result.subList(erasure + 1, result.size()));
            result = kept;
        }
        return result;
    }

    private static boolean isErasure(Arrival a, long user) {
        return a.fact != null && a.fact.kind == ChatEvent.Kind.USER_ERASED && a.fact.userId == user;
    }

    /** {@code a} is an event of {@code user} with a time after {@code at}. */
    private static boolean after(Arrival a, long user, long at) {
        if (a.fact != null) {
            return a.fact.userId == user && a.fact.time > at;
        }
        ConversationEvent e = a.record;
        return e.isMessage()
                && e.sentAt > at
                && (e.senderId == user || e.mentions(user) || e.rootSenderId == user);
    }
}
