package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The two outputs of a channel that the order of its records decides (the shared design, "Version
 * 5", "Channels"): they keep version 2's precondition that a membership event arrives before the
 * messages it governs. The sender badge takes a message for U when, at one of its arrivals, U's
 * membership events arrived by then make U a member at its seq. The cursor an ALL_READ raises takes
 * the members as the stage knows them when it raises, which is at some moment from the message's
 * first arrival on: the oracle bounds it by every such moment.
 */
final class OracleChannelOrder {

    private OracleChannelOrder() {}

    /**
     * Each message (root or reply) that, as sent, names U by id while U is a member at its seq as
     * known at one of its arrivals, as a badge-only message from its sender to U; U's erasure
     * covers the ones sent at or before it.
     */
    static List<ChatEvent> badgeDeliveries(
            OracleChannels channels, List<ConversationEvent> arrivals) {
        Set<ChatEvent> deliveries = new LinkedHashSet<>();
        Map<Oracle.Member, List<ConversationEvent>> known = new HashMap<>();
        for (ConversationEvent e : arrivals) {
            if (e.isMembership()) {
                known.computeIfAbsent(
                                new Oracle.Member(e.conversationId, e.userId),
                                m -> new ArrayList<>())
                        .add(e);
            }
            if (!e.isMessage() || channels.message(e.conversationId, e.seq) == null) {
                continue;
            }
            for (long user : e.mentions) {
                List<ConversationEvent> changes =
                        known.getOrDefault(new Oracle.Member(e.conversationId, user), List.of());
                if (user != e.senderId
                        && e.sentAt > channels.erasedAt(user)
                        && Oracle.isMember(changes, e.seq)) {
                    deliveries.add(ChatEvent.message(e.senderId, user, e.sentAt));
                }
            }
        }
        return new ArrayList<>(deliveries);
    }

    /**
     * The cursor ALL_READ raises: the largest root of C from another user sent in (erasedAt,
     * allReadAt], deleted or not, at which U is a member as known at every moment the stage may
     * raise it (low), or at some (high).
     */
    static OracleChannels.Bounds allReadRaise(
            OracleChannels channels, List<ConversationEvent> arrivals, long userId, long c) {
        long low = 0;
        long high = 0;
        for (ConversationEvent m : channels.messages(c)) {
            if (m.threadSeq > 0
                    || m.senderId == userId
                    || m.sentAt <= channels.erasedAt(userId)
                    || m.sentAt > channels.allReadAt(userId)) {
                continue;
            }
            boolean always = true;
            boolean ever = false;
            boolean arrived = false;
            List<ConversationEvent> known = new ArrayList<>();
            for (ConversationEvent e : arrivals) {
                if (e.conversationId != c) {
                    continue;
                }
                boolean itself = e.isMessage() && e.seq == m.seq;
                boolean change = e.isMembership() && e.userId == userId;
                if (change) {
                    known.add(e);
                }
                arrived |= itself;
                if (!arrived || !(itself || change)) {
                    continue;
                }
                boolean member = Oracle.isMember(known, m.seq);
                always &= member;
                ever |= member;
            }
            if (always) {
                low = Math.max(low, m.seq);
            }
            if (ever) {
                high = Math.max(high, m.seq);
            }
        }
        return new OracleChannels.Bounds(low, high);
    }
}
