package dev.unread.sinks;

import dev.unread.contract.Count;
import dev.unread.contract.MessageTypes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One user's counts changed by one flush, as the UNREAD_CHANGED message published on {@code
 * UNREAD_CHANGED:{userId}} (docs/contract.md, "Live push"):
 *
 * <pre>{"type":"UNREAD_CHANGED","userId":10086,"version":1767225600000000,
 *  "unreadSenders":3,"conversations":{"80001":18,"80002":0},"mentions":{"80001":1},
 *  "totals":{"messages":18,"mentions":1,"conversations":1},"markedUnread":{"80002":false}}</pre>
 *
 * <p>Only what changed is there, each as its absolute value: {@code unreadSenders} when the badge
 * changed, {@code conversations} and {@code mentions} with the conversations whose count changed,
 * {@code totals} with the totals that changed, {@code markedUnread} with the conversations whose
 * mark changed (true marked, false no longer).
 */
final class UnreadChanged {

    final long userId;

    private final List<Taken> counts = new ArrayList<>(4);

    /**
     * One count taken, kept raw and rendered by {@link #json} alone: a flush takes every changed
     * user's counts but writes the message only for the few with a live stream, and rendering them
     * all was a share of the Redis writer's time in a profile.
     */
    private static final class Taken {
        private final Count kind;
        private final long conversationId;
        private final long threadSeq;
        private final long count;

        Taken(Count kind, long conversationId, long threadSeq, long count) {
            this.kind = kind;
            this.conversationId = conversationId;
            this.threadSeq = threadSeq;
            this.count = count;
        }

        Count kind() {
            return kind;
        }

        long conversationId() {
            return conversationId;
        }

        long threadSeq() {
            return threadSeq;
        }

        long count() {
            return count;
        }
    }

    UnreadChanged(long userId) {
        this.userId = userId;
    }

    /** Takes one coalesced count of this user; {@code threadSeq} the root of a thread's count. */
    void add(Count kind, long conversationId, long threadSeq, long count) {
        counts.add(new Taken(kind, conversationId, threadSeq, count));
    }

    String json(long version) {
        StringBuilder json =
                new StringBuilder(64 + 24 * counts.size())
                        .append("{\"type\":\"")
                        .append(MessageTypes.UNREAD_CHANGED)
                        .append("\",\"userId\":")
                        .append(userId)
                        .append(",\"version\":")
                        .append(version);
        // Sections in the catalog's order, each count's fields together.
        Map<String, StringBuilder> sections = new LinkedHashMap<>();
        List<Taken> ordered = new ArrayList<>(counts);
        ordered.sort(Comparator.comparing(Taken::kind));
        for (Taken t : ordered) {
            Count kind = t.kind();
            switch (kind.shape()) {
                case STRING ->
                        json.append(",\"").append(kind.section()).append("\":").append(t.count());
                case HASH -> field(sections, kind, t).append(t.count());
                case SET -> field(sections, kind, t).append(t.count() != 0);
            }
        }
        sections.forEach(
                (name, fields) ->
                        json.append(",\"").append(name).append("\":{").append(fields).append('}'));
        return json.append('}').toString();
    }

    private static StringBuilder field(Map<String, StringBuilder> sections, Count kind, Taken t) {
        StringBuilder object = sections.computeIfAbsent(kind.section(), k -> new StringBuilder());
        return object.append(object.length() == 0 ? "" : ",")
                .append('"')
                .append(kind.field(t.conversationId(), t.threadSeq()))
                .append("\":");
    }
}
