package dev.unread.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEvent.Kind;
import dev.unread.events.ConversationEvent;
import dev.unread.events.ConversationParser;
import dev.unread.events.EventParser;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The traffic of the end-to-end and reliability tests has threads and deletions in every run and in
 * every part of it, so that each fault is crossed by them, and edits, channel-wide mentions and the
 * preference that ignores them in one-to-one conversations and groups alike. Without this, a change
 * to the harness or the generators could leave the suites green while they compare empty thread
 * keys.
 */
class JobHarnessTrafficTest {

    private static final int SEEDS = 30;

    /** The parts the fault tests split a run into at most (TaskManagerLossITCase: 4). */
    private static final int PARTS = 4;

    @Test
    void everyRunHasThreadsAndDeletionsInEveryPart() {
        UnreadConfig config = UnreadConfig.with(Map.of());
        Map<String, Integer> runs = new TreeMap<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            JobHarness.Traffic traffic = JobHarness.traffic(config, seed, 3000, List.of());
            Set<String> corners = corners(traffic);
            String context = JobHarness.context(seed) + ", " + traffic.describe();
            assertThat(traffic.records().size()).as(context).isBetween(3000, 9000);
            int part = 0;
            for (List<ProducerRecord<byte[], byte[]>> records : traffic.parts(PARTS)) {
                part++;
                assertThat(records.stream().filter(JobHarnessTrafficTest::ofAThread).count())
                        .as("records of threads in part %d of %d, %s", part, PARTS, context)
                        .isPositive();
            }
            corners.forEach(c -> runs.merge(c, 1, Integer::sum));
        }
        assertThat(runs)
                .as("runs of %d with each", SEEDS)
                .containsOnlyKeys(
                        "reply",
                        "reply that mentions",
                        "thread read",
                        "follow",
                        "unfollow",
                        "edit",
                        "group edit",
                        "channel-wide mention",
                        "group channel-wide mention",
                        "ignore channel mentions",
                        "group reply",
                        "deleted reply",
                        "deleted root",
                        "deleted group message",
                        "conversation read past a deleted reply",
                        "followed thread with unread replies",
                        "followed thread with mentions",
                        "totals with threads")
                .allSatisfy(
                        (corner, n) ->
                                assertThat(n).as(corner).isGreaterThanOrEqualTo(SEEDS * 9 / 10));
    }

    /**
     * Every group record reaches the job as the oracle reads it: the JSON the harness publishes
     * parses back to the event, a reply's root sender and a message's @all included.
     */
    @Test
    void everyGroupRecordParsesBackToItsEvent() throws Exception {
        UnreadConfig config = UnreadConfig.with(Map.of());
        ConversationParser parser = new ConversationParser();
        for (long seed = 1; seed <= SEEDS; seed++) {
            List<ConversationEvent> events =
                    JobHarness.traffic(config, seed, 3000, List.of()).conversations();
            List<ProducerRecord<byte[], byte[]>> records =
                    ChatRecords.ofConversations(config, events);
            for (int i = 0; i < events.size(); i++) {
                assertThat(parser.parse(records.get(i).value()).toString())
                        .as(JobHarness.context(seed))
                        .isEqualTo(events.get(i).toString());
            }
        }
    }

    /**
     * Every run erases users, and as Kafka gets the records (the one order the job keeps with an
     * erasure is that of the user's chat-reads partition): late messages the erasure covers after
     * it, deletions before it with their message after it and the other way round, and the user's
     * later reads after it, never a later event of the user on another topic.
     */
    @Test
    void everyRunErasesUsersAroundTheirDeletionsAndLateMessages() throws Exception {
        UnreadConfig config = UnreadConfig.with(Map.of());
        Map<String, Integer> runs = new TreeMap<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            JobHarness.Traffic traffic = JobHarness.traffic(config, seed, 3000, List.of());
            erasureCorners(config, traffic, JobHarness.context(seed))
                    .forEach(c -> runs.merge(c, 1, Integer::sum));
        }
        assertThat(runs)
                .as("runs of %d with each", SEEDS)
                .containsOnlyKeys(
                        "erasure",
                        "late message after the erasure",
                        "deletion before the erasure, its message after",
                        "message before the erasure, its deletion after",
                        "the user's later reads after the erasure")
                .allSatisfy(
                        (corner, n) ->
                                assertThat(n).as(corner).isGreaterThanOrEqualTo(SEEDS * 9 / 10));
    }

    /**
     * The erasure corners of a run, read from its records in the order they are published; fails if
     * an event of an erased user with a time after the erasure comes first or is on another topic
     * than the user's reads.
     */
    private static Set<String> erasureCorners(
            UnreadConfig config, JobHarness.Traffic traffic, String context) throws Exception {
        EventParser events = new EventParser();
        ConversationParser conversations = new ConversationParser();
        Map<Long, Long> erasedAt = new TreeMap<>();
        for (ChatEvent e : traffic.events()) {
            if (e.kind == Kind.USER_ERASED) {
                erasedAt.put(e.userId, e.time);
            }
        }
        Set<String> corners = new HashSet<>();
        Set<Long> erased = new HashSet<>();
        Map<String, Boolean> deletedBeforeErasure = new HashMap<>();
        Map<String, Boolean> receivedBeforeErasure = new HashMap<>();
        for (ProducerRecord<byte[], byte[]> record : traffic.records()) {
            if (record.topic().equals(config.conversationsTopic)) {
                ConversationEvent e = conversations.parse(record.value());
                if (e.kind == ConversationEvent.Kind.MESSAGE_DELETED) {
                    for (long user : erasedAt.keySet()) {
                        String message = user + ":" + e.conversationId + ":" + e.seq;
                        deletedBeforeErasure.putIfAbsent(message, !erased.contains(user));
                        if (Boolean.TRUE.equals(receivedBeforeErasure.get(message))
                                && erased.contains(user)) {
                            corners.add("message before the erasure, its deletion after");
                        }
                    }
                }
                continue;
            }
            boolean message = record.topic().equals(config.messagesTopic);
            ChatEvent e =
                    message
                            ? events.parseMessage(record.value())
                            : events.parseRead(record.value());
            Long at = erasedAt.get(e.userId);
            if (at == null) {
                continue;
            }
            if (e.kind == Kind.USER_ERASED) {
                erased.add(e.userId);
                corners.add("erasure");
                continue;
            }
            if (e.time > at) {
                assertThat(erased)
                        .as("erasure of %d before %s, %s", e.userId, e, context)
                        .contains(e.userId);
                assertThat(message).as("%s after the erasure at %d, %s", e, at, context).isFalse();
                corners.add("the user's later reads after the erasure");
            }
            if (message && e.kind == Kind.MESSAGE && e.hasConversation()) {
                String key = e.userId + ":" + e.conversationId + ":" + e.seq;
                boolean after = erased.contains(e.userId);
                receivedBeforeErasure.putIfAbsent(key, !after);
                if (after) {
                    corners.add("late message after the erasure");
                    if (Boolean.TRUE.equals(deletedBeforeErasure.get(key))) {
                        corners.add("deletion before the erasure, its message after");
                    }
                }
            }
        }
        return corners;
    }

    /** A reply, thread read or follow: the one kind of record that names a thread. */
    private static boolean ofAThread(ProducerRecord<byte[], byte[]> record) {
        return new String(record.value(), UTF_8).contains("\"threadSeq\"");
    }

    private static Set<String> corners(JobHarness.Traffic traffic) {
        Set<String> corners = new HashSet<>();
        Set<String> replies = new HashSet<>();
        Set<String> roots = new HashSet<>();
        for (ChatEvent e : traffic.events()) {
            if (e.kind == Kind.MESSAGE && e.isReply()) {
                corners.add("reply");
                if (e.mentioned) {
                    corners.add("reply that mentions");
                }
                replies.add(e.conversationId + ":" + e.seq);
                roots.add(e.conversationId + ":" + e.threadSeq);
            } else if (e.kind == Kind.THREAD_READ) {
                corners.add("thread read");
            } else if (e.kind == Kind.THREAD_FOLLOWED) {
                corners.add(e.seq == 1 ? "follow" : "unfollow");
            } else if (e.kind == Kind.MESSAGE_EDITED) {
                corners.add("edit");
            } else if (e.kind == Kind.CONVERSATION_PREFERENCE && e.carriesIgnoreChannelMentions()) {
                corners.add("ignore channel mentions");
            }
            if (e.mentionsAll && e.kind == Kind.MESSAGE) {
                corners.add("channel-wide mention");
            }
        }
        Map<Long, Long> cursors = new TreeMap<>();
        for (ChatEvent e : traffic.events()) {
            if (e.kind == Kind.CONVERSATION_READ) {
                cursors.merge(e.conversationId, e.seq, Math::max);
            }
        }
        Set<String> groupMessages = new HashSet<>();
        for (ConversationEvent e : traffic.conversations()) {
            if (e.isMessage()) {
                groupMessages.add(e.conversationId + ":" + e.seq);
                if (e.threadSeq > 0) {
                    corners.add("group reply");
                }
                if (e.mentionsAll) {
                    corners.add("group channel-wide mention");
                }
            } else if (e.kind == ConversationEvent.Kind.MESSAGE_EDITED) {
                corners.add("group edit");
            }
        }
        for (ConversationEvent e : traffic.conversations()) {
            String message = e.conversationId + ":" + e.seq;
            if (e.kind != ConversationEvent.Kind.MESSAGE_DELETED) {
                continue;
            }
            if (replies.contains(message)) {
                corners.add("deleted reply");
                if (cursors.getOrDefault(e.conversationId, 0L) >= e.seq) {
                    corners.add("conversation read past a deleted reply");
                }
            }
            if (roots.contains(message)) {
                corners.add("deleted root");
            }
            if (groupMessages.contains(message)) {
                corners.add("deleted group message");
            }
        }
        Oracle oracle = traffic.oracle();
        if (!oracle.redisThreadHashes("", false).isEmpty()) {
            corners.add("followed thread with unread replies");
        }
        if (!oracle.redisThreadHashes("", true).isEmpty()) {
            corners.add("followed thread with mentions");
        }
        if (oracle.redisTotals("").values().stream().anyMatch(t -> t.containsKey("threads"))) {
            corners.add("totals with threads");
        }
        return corners;
    }
}
