package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.JobSettings;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import dev.unread.events.UnreadCount;
import dev.unread.groups.GroupFanOut;
import dev.unread.testing.AllReadStreams;
import dev.unread.testing.EventStreams;
import dev.unread.testing.Oracle;
import dev.unread.testing.Oracle.Member;
import dev.unread.testing.RedisModel;
import dev.unread.testing.ThreadStreams;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Model-based randomized test of {@link UnreadCounter}: for each seed, one random set of events
 * (see {@link EventStreams}) goes through the counter in several arrival orders with duplicates,
 * and everything the counter emits, applied the way the sinks apply it, must equal what the {@link
 * Oracle} derives from the contract alone. The set includes deletions, as the fan-out tells them to
 * each participant: of messages (mentions among them), of seqs nobody received, and of seqs past
 * every message, arriving before or after their message, duplicated, and replayed; in three seeds
 * of four, ALL_READs ({@link AllReadStreams}) before and after the messages they cover. And it
 * erases about one user in {@link #ERASED_ONE_IN}: the user's events it covers arrive before and
 * after it, duplicated; its later ones after it (see {@link EventStreams#withErasuresInPlace}).
 *
 * <p>Every order of one seed runs through one harness, each under its own user ids (moved by {@link
 * #USERS_PER_ORDER}), so the orders cannot see each other's state and the harness, slow to create
 * on RocksDB, is created once per seed. Every {@link #ROCKSDB_EVERY}th seed runs on the embedded
 * RocksDB backend the job uses; the rest on the heap backend, which is faster and exercises the
 * same logic.
 *
 * <p>Seeds: 1..200 by default; {@code -Dunread.seeds=N} runs 1..N, {@code -Dunread.seed=N} only
 * seed N (a failure message says which seed and order failed).
 */
class UnreadCounterModelTest {

    private static final int ROCKSDB_EVERY = 8;
    private static final long USERS_PER_ORDER = 1_000_000;
    private static final double DUPLICATE_SHARE = 0.2;
    private static final int ERASED_ONE_IN = 4;
    private static final int CHECKPOINT_ONE_IN = 40;

    static Stream<Long> seeds() {
        String one = System.getProperty("unread.seed");
        if (one != null && !one.isBlank()) {
            return Stream.of(Long.parseLong(one.trim()));
        }
        long count = Long.getLong("unread.seeds", 200);
        return LongStream.rangeClosed(1, count).boxed();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyArrivalOrderWithDuplicatesEndsInTheOraclesState(long seed) throws Exception {
        EventStreams streams = new EventStreams(seed);
        // Every other seed as a job with --track-root-senders.
        boolean track = seed % 2 == 0;
        List<ChatEvent> events =
                streams.withErasures(
                        ThreadStreams.withOwnCopies(
                                withDeletions(
                                        streams.random(),
                                        ThreadStreams.withThreads(
                                                streams.random(), streams.events())),
                                track),
                        ERASED_ONE_IN);
        if (seed % 4 != 1) {
            events = AllReadStreams.withAllReads(streams.random(), events);
        }
        List<List<ChatEvent>> orders =
                streams.orders(events, 3 + (int) (seed % 3), DUPLICATE_SHARE);
        boolean rocksDb = seed % ROCKSDB_EVERY == 0;
        // Every third seed with a record cache too small to hold one user's records, so that it
        // writes back on nearly every event, and a checkpoint now and then.
        boolean writingBack = seed % 3 == 0;

        try (KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness =
                harness(rocksDb, track, writingBack)) {
            long checkpoint = 0;
            for (int i = 0; i < orders.size(); i++) {
                List<ChatEvent> order =
                        EventStreams.withErasuresInPlace(
                                EventStreams.withUsersMovedBy(
                                        orders.get(i), (i + 1) * USERS_PER_ORDER));
                for (ChatEvent e : order) {
                    harness.processElement(e, 0L);
                    if (writingBack && e.hashCode() % CHECKPOINT_ONE_IN == 0) {
                        harness.snapshot(++checkpoint, 0L);
                    }
                }
                Run run = new Run(seed, i, rocksDb, track, order);
                run.check(
                        drain(harness.getOutput()),
                        drain(harness.getSideOutput(UnreadCounter.INBOX_CURSORS)),
                        drain(harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS)));
            }
        }
    }

    /**
     * The events with deletions added: about one in ten of the conversations' seqs, one seq past
     * them now and then (unknown), each told to every user of the conversation in the events, as
     * {@link GroupFanOut} tells its participants.
     */
    static List<ChatEvent> withDeletions(java.util.Random random, List<ChatEvent> events) {
        Map<Long, TreeSet<Long>> users = new TreeMap<>();
        Map<Long, TreeSet<Long>> seqs = new TreeMap<>();
        for (ChatEvent e : events) {
            if (!e.hasConversation()) {
                continue;
            }
            TreeSet<Long> in = users.computeIfAbsent(e.conversationId, c -> new TreeSet<>());
            in.add(e.userId);
            if (e.kind == ChatEvent.Kind.MESSAGE) {
                in.add(e.senderId);
                seqs.computeIfAbsent(e.conversationId, c -> new TreeSet<>()).add(e.seq);
            }
        }
        List<ChatEvent> result = new ArrayList<>(events);
        seqs.forEach(
                (conversation, sent) -> {
                    List<Long> deleted = new ArrayList<>();
                    for (long seq : sent) {
                        if (random.nextInt(10) == 0) {
                            deleted.add(seq);
                        }
                    }
                    if (random.nextInt(3) == 0) {
                        deleted.add(sent.last() + 1 + random.nextInt(3));
                    }
                    for (long seq : deleted) {
                        for (long user : users.get(conversation)) {
                            result.add(ChatEvent.deleted(user, conversation, seq));
                        }
                    }
                });
        return result;
    }

    private static KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness(
            boolean rocksDb, boolean track, boolean writingBack) throws Exception {
        KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        writingBack
                                ? new UnreadCounterOperator(
                                        0, track, ThreadSets.DEFAULT_MAX_BARE_THREADS, 3, 2)
                                : new UnreadCounterOperator(0, track),
                        e -> e.userId,
                        Types.LONG);
        // The job's own settings (object reuse on, Kryo fallback off) so that the counter's
        // state types are checked the way production creates them.
        harness.getExecutionConfig()
                .configure(
                        JobSettings.of(UnreadConfig.with(Map.of())),
                        UnreadCounterModelTest.class.getClassLoader());
        assertThat(harness.getExecutionConfig().getSerializerConfig().hasGenericTypesDisabled())
                .isTrue();
        if (rocksDb) {
            harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        }
        harness.open();
        return harness;
    }

    /** Values of the records in {@code queue} (skipping watermarks), and empties it. */
    @SuppressWarnings("unchecked")
    private static <T> List<T> drain(Collection<?> queue) {
        List<T> values = new ArrayList<>();
        if (queue == null) {
            return values;
        }
        for (Object o : queue) {
            if (o instanceof StreamRecord) {
                values.add(((StreamRecord<T>) o).getValue());
            }
        }
        queue.clear();
        return values;
    }

    /** One arrival order and the checks of what the counter emitted for it. */
    private static final class Run {
        final long seed;
        final int orderIndex;
        final boolean rocksDb;
        final boolean track;
        final List<ChatEvent> order;
        final Oracle oracle;

        Run(long seed, int orderIndex, boolean rocksDb, boolean track, List<ChatEvent> order) {
            this.seed = seed;
            this.orderIndex = orderIndex;
            this.rocksDb = rocksDb;
            this.track = track;
            this.order = order;
            this.oracle = Oracle.of(order, List.of(), track);
        }

        void check(
                List<UnreadCount> counts,
                List<InboxCursor> inboxCursors,
                List<ConversationCursor> conversationCursors) {
            TreeSet<Long> users = new TreeSet<>(oracle.users());
            counts.forEach(c -> users.add(c.userId));
            inboxCursors.forEach(c -> users.add(c.userId));
            conversationCursors.forEach(c -> users.add(c.userId));

            // Per user first, so that a failure names one user and shows that user's events.
            for (long user : users) {
                checkCounts(user, only(counts, c -> c.userId == user));
                checkInboxCursors(user, only(inboxCursors, c -> c.userId == user));
                checkConversationCursors(user, only(conversationCursors, c -> c.userId == user));
            }
            // Then whole, as an end-to-end test compares with Redis and MySQL.
            RedisModel redis = new RedisModel();
            counts.forEach(redis::apply);
            assertThat(redis.senders).as(context(null)).isEqualTo(oracle.redisSenderKeys());
            assertThat(redis.conversations)
                    .as(context(null))
                    .isEqualTo(oracle.redisConversationHashes());
            assertThat(redis.mentions).as(context(null)).isEqualTo(oracle.redisMentionHashes(""));
            assertThat(redis.marked).as(context(null)).isEqualTo(oracle.redisMarkedSets(""));
            assertThat(redis.totals).as(context(null)).isEqualTo(oracle.redisTotals(""));
            assertThat(redis.threads)
                    .as(context(null))
                    .isEqualTo(oracle.redisThreadHashes("", false));
            assertThat(redis.threadMentions)
                    .as(context(null))
                    .isEqualTo(oracle.redisThreadHashes("", true));
            assertThat(redis.channelMentions)
                    .as(context(null))
                    .isEqualTo(oracle.redisChannelMentionHashes(""));
            assertThat(redis.threadChannelMentions)
                    .as(context(null))
                    .isEqualTo(oracle.redisThreadChannelMentionHashes(""));
        }

        void checkCounts(long user, List<UnreadCount> counts) {
            Map<String, Long> last = new HashMap<>();
            for (int i = 0; i < counts.size(); i++) {
                UnreadCount c = counts.get(i);
                if (c.erased) {
                    // Every key of the user goes.
                    last.clear();
                    continue;
                }
                int at = i;
                assertThat(c.count).as(context(user, () -> "emission " + at)).isNotNegative();
                // The first emission of a key since the counter opened may repeat a value: it
                // refreshes what Redis may hold from a timeline a restore rolled back.
                String key = key(c);
                // What the sink leaves out rests on this: a count's before is what the counter
                // showed of that key last, 0 before anything (issue 46).
                long shown = last.getOrDefault(key, 0L);
                assertThat(c.before)
                        .as(context(user, () -> "emission " + at + " " + c + " says before"))
                        .isEqualTo(shown);
                if (last.containsKey(key)) {
                    long previous = last.get(key);
                    assertThat(c.count)
                            .as(
                                    context(
                                            user,
                                            () ->
                                                    "emission "
                                                            + at
                                                            + " "
                                                            + c
                                                            + " repeats "
                                                            + previous
                                                            + " (a count must change)"))
                            .isNotEqualTo(previous);
                }
                last.put(key, c.count);
            }
            last.values().removeIf(n -> n == 0);
            Map<String, Long> expected = new TreeMap<>();
            oracle.conversationUnread()
                    .getOrDefault(user, Map.of())
                    .forEach((c, n) -> expected.put("unread " + c, n));
            long badge = oracle.badge(user);
            if (badge > 0) {
                expected.put("unread " + UnreadCount.SENDER_BADGE, badge);
            }
            for (long c : oracle.conversationUnread().getOrDefault(user, Map.of()).keySet()) {
                long mentions = oracle.mentions(user, c);
                if (mentions > 0) {
                    expected.put("mentions " + c, mentions);
                }
            }
            oracle.redisMentionHashes("")
                    .getOrDefault(Oracle.MENTIONS_KEY + user, Map.of())
                    .forEach((c, n) -> expected.put("mentions " + c, Long.parseLong(n)));
            oracle.redisChannelMentionHashes("")
                    .getOrDefault(Oracle.CHANNEL_MENTIONS_KEY + user, Map.of())
                    .forEach((c, n) -> expected.put("channelMentions " + c, Long.parseLong(n)));
            oracle.redisMarkedSets("")
                    .getOrDefault(Oracle.MARKED_UNREAD_KEY + user, Set.of())
                    .forEach(c -> expected.put("marked " + c, 1L));
            oracle.redisThreadHashes("", false)
                    .getOrDefault(Oracle.THREADS_KEY + user, Map.of())
                    .forEach((t, n) -> expected.put("thread " + t, Long.parseLong(n)));
            oracle.redisThreadHashes("", true)
                    .getOrDefault(Oracle.THREAD_MENTIONS_KEY + user, Map.of())
                    .forEach((t, n) -> expected.put("threadMentions " + t, Long.parseLong(n)));
            oracle.redisThreadChannelMentionHashes("")
                    .getOrDefault(Oracle.THREAD_CHANNEL_MENTIONS_KEY + user, Map.of())
                    .forEach(
                            (t, n) ->
                                    expected.put("threadChannelMentions " + t, Long.parseLong(n)));
            long[] totals = oracle.totals(user);
            String[] names = {
                "totalMessages", "totalMentions", "totalConversations", "totalThreads"
            };
            for (int i = 0; i < names.length; i++) {
                if (totals[i] != 0) {
                    expected.put(names[i] + " 0", totals[i]);
                }
            }
            assertThat(new TreeMap<>(last))
                    .as(context(user, () -> "last count per kind and conversation (0 = none)"))
                    .isEqualTo(expected);
        }

        private static String key(UnreadCount c) {
            String kind =
                    switch (c.kind) {
                        case SENDERS, CONVERSATION -> "unread";
                        case MENTIONS -> "mentions";
                        case CHANNEL_MENTIONS -> "channelMentions";
                        case MARKED -> "marked";
                        case TOTAL_MESSAGES -> "totalMessages";
                        case TOTAL_MENTIONS -> "totalMentions";
                        case TOTAL_CONVERSATIONS -> "totalConversations";
                        case TOTAL_THREADS -> "totalThreads";
                        case THREAD -> "thread";
                        case THREAD_MENTIONS -> "threadMentions";
                        case THREAD_CHANNEL_MENTIONS -> "threadChannelMentions";
                    };
            return kind + " " + c.conversationId + (c.kind.perThread() ? ":" + c.threadSeq : "");
        }

        void checkInboxCursors(long user, List<InboxCursor> cursors) {
            long greatest = 0;
            for (InboxCursor c : cursors) {
                if (c.erased) {
                    greatest = 0;
                    continue;
                }
                long before = greatest;
                assertThat(c.lastReadAt)
                        .as(context(user, () -> c + " does not advance past " + before))
                        .isGreaterThan(before);
                greatest = c.lastReadAt;
            }
            assertThat(greatest)
                    .as(context(user, () -> "user_activity.last_read_at (0 = no row)"))
                    .isEqualTo(oracle.userActivityRows().getOrDefault(user, 0L));
        }

        void checkConversationCursors(long user, List<ConversationCursor> cursors) {
            Map<Member, ConversationCursor> rows = new TreeMap<>();
            // A cursor before the user's last erasure counted messages the erasure covers; its
            // row is gone with them.
            int lastErasure = -1;
            for (int i = 0; i < cursors.size(); i++) {
                if (cursors.get(i).erased) {
                    lastErasure = i;
                }
            }
            for (ConversationCursor c : cursors.subList(lastErasure + 1, cursors.size())) {
                Member member = new Member(c.conversationId, c.userId);
                ConversationCursor before = rows.get(member);
                long beforeSeq = before == null ? 0 : before.lastReadSeq;
                assertThat(c.lastReadSeq)
                        .as(context(user, () -> c + " does not advance past " + beforeSeq))
                        .isGreaterThan(beforeSeq);
                assertThat(c.unreadCount)
                        .as(context(user, () -> c + " unread_count out of bounds"))
                        .isBetween(0L, oracle.unreadCountUpperBound(member, c.lastReadSeq));
                // GREATEST(last_read_seq): the row keeps the cursor with the highest seq.
                rows.put(member, c);
            }
            Map<Member, Long> seqs = new TreeMap<>();
            Map<Member, Long> unread = new TreeMap<>();
            rows.forEach(
                    (m, c) -> {
                        seqs.put(m, c.lastReadSeq);
                        unread.put(m, c.unreadCount);
                    });
            assertThat(seqs)
                    .as(context(user, () -> "conversation_member.last_read_seq"))
                    .isEqualTo(forUser(oracle.conversationMemberRows(), user));
            assertThat(unread)
                    .as(context(user, () -> "conversation_member.unread_count in this order"))
                    .isEqualTo(forUser(Oracle.unreadAfterLastRead(order), user));
        }

        Supplier<String> context(Long user) {
            return context(user, () -> "");
        }

        /** Seed, order and backend, how to rerun, and the user's events in arrival order. */
        Supplier<String> context(Long user, Supplier<String> what) {
            return () -> {
                StringBuilder s =
                        new StringBuilder()
                                .append("seed ")
                                .append(seed)
                                .append(", order ")
                                .append(orderIndex)
                                .append(rocksDb ? " (RocksDB)" : " (heap)")
                                .append(track ? " --track-root-senders" : "")
                                .append(" [rerun: -Dunread.seed=")
                                .append(seed)
                                .append("] ")
                                .append(what.get());
                if (user != null) {
                    long moved = (orderIndex + 1) * USERS_PER_ORDER;
                    s.append("\nuser ")
                            .append(user)
                            .append(" (")
                            .append(user - moved)
                            .append(" in the generated set)")
                            .append(", events in arrival order:\n  ")
                            .append(
                                    only(order, e -> e.userId == user).stream()
                                            .map(ChatEvent::toString)
                                            .collect(Collectors.joining("\n  ")));
                }
                return s.toString();
            };
        }
    }

    private static <T> List<T> only(List<T> values, java.util.function.Predicate<T> keep) {
        return values.stream().filter(keep).collect(Collectors.toList());
    }

    private static Map<Member, Long> forUser(Map<Member, Long> rows, long user) {
        Map<Member, Long> result = new TreeMap<>();
        rows.forEach(
                (m, v) -> {
                    if (m.userId() == user) {
                        result.put(m, v);
                    }
                });
        return result;
    }
}
