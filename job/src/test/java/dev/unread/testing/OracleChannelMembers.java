package dev.unread.testing;

import dev.unread.events.ConversationEvent;
import dev.unread.testing.Oracle.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The memberships of {@link OracleChannels}: version 2's member(U,C,s) over every membership event
 * of U in C whenever it arrived, as a channel applies a late one to the messages it governs.
 */
final class OracleChannelMembers {

    private final Map<Member, List<ConversationEvent>> memberships = new TreeMap<>();

    void add(ConversationEvent e) {
        memberships
                .computeIfAbsent(new Member(e.conversationId, e.userId), m -> new ArrayList<>())
                .add(e);
    }

    /** Every (channel, user) with a membership event: the tracks. */
    Set<Member> tracks() {
        return memberships.keySet();
    }

    Set<Long> users(long conversationId) {
        Set<Long> users = new TreeSet<>();
        for (Member m : memberships.keySet()) {
            if (m.conversationId() == conversationId) {
                users.add(m.userId());
            }
        }
        return users;
    }

    Set<Long> channelsOf(long userId) {
        Set<Long> of = new TreeSet<>();
        for (Member m : memberships.keySet()) {
            if (m.userId() == userId) {
                of.add(m.conversationId());
            }
        }
        return of;
    }

    boolean member(long userId, long conversationId, long seq) {
        return Oracle.isMember(changes(userId, conversationId), seq);
    }

    boolean left(long userId, long conversationId) {
        List<ConversationEvent> changes = changes(userId, conversationId);
        return !changes.isEmpty() && Oracle.newestIsLeft(changes);
    }

    private List<ConversationEvent> changes(long userId, long conversationId) {
        return memberships.getOrDefault(new Member(conversationId, userId), List.of());
    }

    /**
     * The seqs at which U is a member as inclusive intervals {a, b}, the last {a} while open: a
     * join at j starts one at j + 1, a leave at l ends it at l, a leave winning a tie.
     */
    List<long[]> intervals(long userId, long conversationId) {
        TreeMap<Long, Boolean> joinedAt = new TreeMap<>();
        for (ConversationEvent e : changes(userId, conversationId)) {
            joinedAt.merge(
                    e.seq, e.kind == ConversationEvent.Kind.MEMBER_JOINED, Boolean::logicalAnd);
        }
        List<long[]> intervals = new ArrayList<>();
        long start = -1;
        for (Map.Entry<Long, Boolean> change : joinedAt.entrySet()) {
            if (change.getValue() && start < 0) {
                start = change.getKey() + 1;
            } else if (!change.getValue() && start >= 0) {
                intervals.add(new long[] {start, change.getKey()});
                start = -1;
            }
        }
        if (start >= 0) {
            intervals.add(new long[] {start});
        }
        return intervals;
    }
}
