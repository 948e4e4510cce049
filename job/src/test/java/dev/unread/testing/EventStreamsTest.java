package dev.unread.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEvent.Kind;
import dev.unread.testing.Oracle.Member;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The generator keeps hitting the corners it promises. Without this, an innocent change to {@link
 * EventStreams} could leave every randomized test green while testing only easy streams.
 */
class EventStreamsTest {

    private static final int SEEDS = 200;

    @Test
    void theSameSeedGivesTheSameStreamAndOrders() {
        EventStreams a = new EventStreams(42);
        EventStreams b = new EventStreams(42);
        List<ChatEvent> events = a.events();
        assertThat(b.events()).isEqualTo(events);
        assertThat(b.orders(events, 4, 0.2)).isEqualTo(a.orders(events, 4, 0.2));
    }

    @Test
    void ordersHoldTheSameSetWithDuplicates() {
        EventStreams streams = new EventStreams(7);
        List<ChatEvent> events = streams.events(200);
        for (List<ChatEvent> order : streams.orders(events, 4, 0.2)) {
            assertThat(new HashSet<>(order)).isEqualTo(new HashSet<>(events));
            assertThat(order.size()).isGreaterThan(events.size());
        }
    }

    @Test
    void movingUsersMovesReceiversReadersAndSendersAlike() {
        List<ChatEvent> moved =
                EventStreams.withUsersMovedBy(
                        List.of(
                                ChatEvent.message(1, 2, 80001, 5, 10),
                                ChatEvent.message(2, 2, 10),
                                ChatEvent.conversationRead(2, 80001, 5, 11)),
                        100);
        assertThat(moved)
                .containsExactly(
                        ChatEvent.message(101, 102, 80001, 5, 10),
                        ChatEvent.message(102, 102, 10),
                        ChatEvent.conversationRead(102, 80001, 5, 11));
    }

    @Test
    void streamsHitEveryCornerOfTheSemanticsOften() {
        Map<String, Integer> corners = new TreeMap<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            count(new EventStreams(seed).events(), corners);
        }
        assertThat(corners)
                .as("corner cases over %d seeds", SEEDS)
                .allSatisfy((corner, n) -> assertThat(n).as(corner).isGreaterThanOrEqualTo(100))
                .hasSize(13);
    }

    /** Counts, in generation order, the situations the semantics single out. */
    private static void count(List<ChatEvent> events, Map<String, Integer> corners) {
        Map<Long, Long> watermark = new HashMap<>();
        Map<Member, Long> cursor = new HashMap<>();
        Map<Long, Set<Long>> sentAtTo = new HashMap<>();
        Map<Long, Long> newestSentAtTo = new HashMap<>();
        Map<Member, Set<Long>> seqsTo = new HashMap<>();
        Map<List<Long>, Integer> fanOut = new HashMap<>();
        Set<Long> senders = new HashSet<>();
        for (ChatEvent e : events) {
            if (e.kind == Kind.MESSAGE) {
                if (e.senderId == e.userId) {
                    add(corners, "message to oneself");
                    continue;
                }
                senders.add(e.userId * 1_000_003L + e.senderId);
                if (e.time <= watermark.getOrDefault(e.userId, 0L)) {
                    add(corners, "late message (sentAt <= watermark)");
                }
                sentAtTo.computeIfAbsent(e.userId, u -> new HashSet<>()).add(e.time);
                newestSentAtTo.merge(e.userId, e.time, Math::max);
                if (e.conversationId == 0) {
                    add(corners, "message without conversation");
                    continue;
                }
                Member member = new Member(e.conversationId, e.userId);
                if (e.seq <= cursor.getOrDefault(member, 0L)) {
                    add(corners, "late message (seq <= cursor)");
                }
                if (!seqsTo.computeIfAbsent(member, m -> new HashSet<>()).add(e.seq)) {
                    add(corners, "repeated seq");
                }
                List<Long> message = List.of(e.senderId, e.conversationId, e.seq, e.time);
                if (fanOut.merge(message, 1, Integer::sum) == 2) {
                    add(corners, "group message fanned out");
                }
            } else if (e.kind == Kind.INBOX_OPENED) {
                if (sentAtTo.getOrDefault(e.userId, Set.of()).contains(e.time)) {
                    add(corners, "reset at exactly a sentAt");
                }
                if (e.time < newestSentAtTo.getOrDefault(e.userId, 0L)) {
                    add(corners, "late reset (older than a message before it)");
                }
                if (e.time < watermark.getOrDefault(e.userId, 0L)) {
                    add(corners, "inbox watermark regression");
                }
                watermark.merge(e.userId, e.time, Math::max);
            } else {
                Member member = new Member(e.conversationId, e.userId);
                if (e.seq == 0) {
                    add(corners, "readSeq 0");
                }
                if (seqsTo.getOrDefault(member, Set.of()).contains(e.seq)) {
                    add(corners, "readSeq at exactly a message seq");
                }
                if (e.seq < cursor.getOrDefault(member, 0L)) {
                    add(corners, "cursor regression");
                }
                cursor.merge(member, e.seq, Math::max);
            }
        }
        Oracle oracle = Oracle.of(events);
        long counted = oracle.users().stream().mapToLong(oracle::badge).sum();
        if (counted > 0 && counted < senders.size()) {
            add(corners, "stream whose resets cleared some senders, not all");
        }
    }

    private static void add(Map<String, Integer> corners, String corner) {
        corners.merge(corner, 1, Integer::sum);
    }
}
