package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.sinks.RedisCounts;
import dev.unread.sinks.RedisReceipts;
import dev.unread.testing.EventStreams;
import dev.unread.testing.JobHarness;
import dev.unread.testing.Oracle;
import dev.unread.testing.TestRedis;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code unread bootstrap} against a real MariaDB and a Flink cluster: the savepoint it writes from
 * a chat history holds exactly what SQL counts over that history (read back by {@code savepoint
 * inspect}), {@code savepoint republish} writes those counts to Redis, and the job started from the
 * savepoint counts every later event on top of the history.
 *
 * <p>The history is random (its seed is printed with any failure); the expected counts come from
 * the contract's oracle and, independently, from SQL over the tables.
 */
class BootstrapITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = JobHarness.miniCluster();

    private static final long SEED = System.nanoTime();

    private static HistoryDatabase db;
    private static Path savepointRoot;
    private static String savepoint;
    private static List<ChatEvent> history;
    private static Oracle historyOracle;

    /** SQL's answers over the history alone, before any test adds to the tables. */
    private static Map<Long, Long> sqlBadges;

    private static Map<Long, Map<Long, Long>> sqlUnread;

    @BeforeAll
    static void bootstrapFromARandomHistory() throws Exception {
        db = HistoryDatabase.create();
        history = bootstrappable(events(new EventStreams(SEED)));
        historyOracle = Oracle.of(history);
        db.record(history);
        db.recordInvalidMessages(historyOracle.users().iterator().next(), EventStreams.T0 + 1);
        sqlBadges = db.badges();
        sqlUnread = db.conversationUnread();

        savepointRoot = Files.createTempDirectory("bootstrap");
        savepoint = savepointRoot.resolve("savepoint").toUri().toString();
        Bootstrap.bootstrap(db.config(""), Bootstrap.DEFAULT_MESSAGES_TABLE, savepoint);
    }

    @AfterAll
    static void dropDatabase() throws Exception {
        if (db != null) {
            db.close();
        }
        if (savepointRoot != null) {
            org.apache.flink.util.FileUtils.deleteDirectory(savepointRoot.toFile());
        }
    }

    /** Three stories on disjoint users, so users, senders and conversations are many. */
    /**
     * What a chat server's tables hold and the bootstrap reads: messages without mentions, inbox
     * opens and reads; preferences and marks exist only as events.
     */
    private static List<ChatEvent> bootstrappable(List<ChatEvent> events) {
        List<ChatEvent> kept = new ArrayList<>();
        for (ChatEvent e : events) {
            if (e.kind == ChatEvent.Kind.MESSAGE
                    || e.kind == ChatEvent.Kind.INBOX_OPENED
                    || e.kind == ChatEvent.Kind.CONVERSATION_READ) {
                ChatEvent copy = EventStreams.copy(e);
                copy.mentioned = false;
                kept.add(copy);
            }
        }
        return kept;
    }

    /**
     * The marks a job started from the bootstrap shows: the tables keep no conversation read's
     * time, so the history's reads clear no later mark older than them.
     */
    private static Map<String, Set<String>> marksAfterBootstrap(
            List<ChatEvent> history, List<ChatEvent> later, String prefix) {
        List<ChatEvent> known = new ArrayList<>();
        for (ChatEvent e : history) {
            ChatEvent copy = EventStreams.copy(e);
            if (copy.kind == ChatEvent.Kind.CONVERSATION_READ) {
                copy.time = 0;
            }
            known.add(copy);
        }
        known.addAll(later);
        return Oracle.of(known).redisMarkedSets(prefix);
    }

    /** All hashes the oracle expects: conversation counts, mentions and totals. */
    private static Map<String, Map<String, String>> hashes(Oracle oracle, String prefix) {
        Map<String, Map<String, String>> hashes =
                new java.util.TreeMap<>(oracle.redisConversationHashes(prefix));
        hashes.putAll(oracle.redisMentionHashes(prefix));
        hashes.putAll(oracle.redisTotals(prefix));
        return hashes;
    }

    private static List<ChatEvent> events(EventStreams streams) {
        List<ChatEvent> events = new ArrayList<>();
        for (int story = 0; story < 3; story++) {
            events.addAll(
                    streams.withIds(10_000 + 1_000 * story, 80_000 + 1_000 * story).events(250));
        }
        return events;
    }

    @Test
    void sqlOverTheTablesAgreesWithTheContractsOracle() {
        seeded(
                () -> {
                    assertThat(sqlBadges).isEqualTo(historyOracle.badges());
                    assertThat(withoutZeros(sqlUnread))
                            .isEqualTo(historyOracle.conversationUnread());
                });
    }

    @Test
    void inspectingTheSavepointShowsEachUsersStateAsSqlCountsIt() throws Exception {
        Map<Long, UserState> expected = expectedStates(historyOracle);

        List<UserState> users = SavepointInspect.users(savepoint);
        SavepointInspect.Summary summary = SavepointInspect.inspect(savepoint, 10);

        seeded(
                () -> {
                    Map<Long, UserState> byUser = new TreeMap<>();
                    users.forEach(user -> byUser.put(user.userId(), user));
                    assertThat(byUser).isEqualTo(expected);

                    assertThat(summary.maxParallelism()).isEqualTo(128);
                    assertThat(summary.users()).isEqualTo(expected.size());
                    assertThat(summary.senders()).isEqualTo(sum(historyOracle.badges()));
                    assertThat(summary.usersWithBadge()).isEqualTo(historyOracle.badges().size());
                    assertThat(summary.inboxCursors())
                            .isEqualTo(historyOracle.userActivityRows().size());
                    assertThat(summary.conversations())
                            .isEqualTo(
                                    expected.values().stream()
                                            .mapToLong(UserState::conversations)
                                            .sum());
                    assertThat(summary.conversationCursors())
                            .isEqualTo(historyOracle.conversationMemberRows().size());
                    assertThat(summary.unreadSeqs()).isEqualTo(unreadSeqs(historyOracle));
                    assertThat(summary.badgeMismatches()).isZero();
                    assertThat(summary.largest())
                            .isEqualTo(
                                    expected.values().stream()
                                            .sorted(
                                                    Comparator.comparingLong(UserState::size)
                                                            .reversed()
                                                            .thenComparingLong(UserState::userId))
                                            .limit(10)
                                            .toList());
                });
    }

    @Test
    void theInspectCommandPrintsTheTotals() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SavepointInspect.print(
                savepoint,
                SavepointInspect.inspect(savepoint, 3),
                new PrintStream(bytes, true, "UTF-8"));
        String printed = bytes.toString(StandardCharsets.UTF_8);

        seeded(
                () -> {
                    assertThat(printed)
                            .containsPattern("senders held +" + sum(historyOracle.badges()) + " ");
                    assertThat(printed)
                            .containsPattern("unread seqs +" + unreadSeqs(historyOracle) + " ");
                    assertThat(printed).contains("Largest users");
                });
    }

    @Test
    void theBootstrapCommandPrintsWhatItWrote() throws Exception {
        String output = savepointRoot.resolve("from-command").toUri().toString();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Bootstrap.bootstrap(db.config(""), Bootstrap.DEFAULT_MESSAGES_TABLE, output);
        Bootstrap.report(output, new PrintStream(bytes, true, "UTF-8"));
        String printed = bytes.toString(StandardCharsets.UTF_8);

        seeded(
                () -> {
                    assertThat(printed)
                            .containsPattern(
                                    "inbox cursors +"
                                            + historyOracle.userActivityRows().size()
                                            + " ");
                    assertThat(printed)
                            .containsPattern("senders held +" + sum(historyOracle.badges()) + " ");
                    assertThat(printed).contains("flink run -s " + output);
                });
    }

    @Test
    void aJobStartedFromTheBootstrapCountsLaterEventsOnTopOfTheHistory() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        UnreadConfig config = db.config(prefix);
        try {
            // Redis lost its data: the savepoint's counts are written back first.
            long written = SavepointRepublish.republish(savepoint, config).counts();
            seeded(
                    () -> {
                        assertThat(TestRedis.strings(prefix))
                                .isEqualTo(historyOracle.redisSenderKeys(prefix));
                        Map<String, Map<String, String>> hashes = hashes(historyOracle, prefix);
                        assertThat(TestRedis.hashes(prefix)).isEqualTo(hashes);
                        assertThat(written)
                                .isEqualTo(
                                        historyOracle.badges().size()
                                                + hashes.values().stream()
                                                        .mapToLong(Map::size)
                                                        .sum());
                    });

            // The same users go on chatting (at times among and after the history's).
            List<ChatEvent> later = events(new EventStreams(SEED + 1));
            Configuration restore = UnreadJob.settings(config);
            restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(restore);
            new UnreadJob(
                            EventSources.of(later, true),
                            EventSources.of(later, false),
                            EventSources.oneRefusedRecord("chat-conversations"),
                            new UnreadJob.Outputs(
                                    new RedisCounts(config),
                                    new RedisReceipts(config),
                                    new DiscardingSink<>(),
                                    new DiscardingSink<>(),
                                    new DiscardingSink<>(),
                                    new DiscardingSink<>()))
                    .execute(env);

            List<ChatEvent> all = new ArrayList<>(history);
            all.addAll(later);
            Oracle expected = Oracle.of(all);
            Map<Long, Long> sqlBadgesOfAll;
            Map<Long, Map<Long, Long>> sqlUnreadOfAll;
            // The whole story in tables of its own: the other tests read the history's.
            try (HistoryDatabase whole = HistoryDatabase.create()) {
                whole.record(all);
                sqlBadgesOfAll = whole.badges();
                sqlUnreadOfAll = withoutZeros(whole.conversationUnread());
            }
            seeded(
                    () -> {
                        assertThat(sqlBadgesOfAll).isEqualTo(expected.badges());
                        assertThat(sqlUnreadOfAll).isEqualTo(expected.conversationUnread());
                        assertThat(TestRedis.strings(prefix))
                                .isEqualTo(expected.redisSenderKeys(prefix));
                        assertThat(TestRedis.hashes(prefix)).isEqualTo(hashes(expected, prefix));
                        assertThat(TestRedis.sets(prefix))
                                .isEqualTo(marksAfterBootstrap(history, later, prefix));
                    });
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    /**
     * What UnreadCounter holds per user after the events: the watermark, the senders past it, each
     * conversation with a cursor or unread seqs. Users with nothing held are absent.
     */
    static Map<Long, UserState> expectedStates(Oracle oracle) {
        Map<Long, Set<Long>> conversations = new TreeMap<>();
        Map<Long, Long> cursors = new TreeMap<>();
        oracle.conversationMemberRows()
                .keySet()
                .forEach(
                        member -> {
                            conversations
                                    .computeIfAbsent(member.userId(), u -> new TreeSet<>())
                                    .add(member.conversationId());
                            cursors.merge(member.userId(), 1L, Long::sum);
                        });
        oracle.conversationUnread()
                .forEach(
                        (user, counts) ->
                                conversations
                                        .computeIfAbsent(user, u -> new TreeSet<>())
                                        .addAll(counts.keySet()));
        // Any message from another, read, preference or mark gives the conversation a state.
        for (long user : oracle.users()) {
            conversations
                    .computeIfAbsent(user, u -> new TreeSet<>())
                    .addAll(oracle.conversationsOf(user));
        }

        Map<Long, UserState> states = new TreeMap<>();
        for (long user : oracle.users()) {
            long badge = oracle.badge(user);
            long held = conversations.getOrDefault(user, Set.of()).size();
            long unread =
                    oracle.conversationUnread().getOrDefault(user, Map.of()).values().stream()
                            .mapToLong(Long::longValue)
                            .sum();
            if (oracle.lastReadAt(user) > 0 || badge > 0 || held > 0) {
                states.put(
                        user,
                        new UserState(
                                user,
                                oracle.lastReadAt(user),
                                badge,
                                badge,
                                held,
                                cursors.getOrDefault(user, 0L),
                                unread,
                                conversations.getOrDefault(user, Set.of()).stream()
                                        .mapToLong(c -> oracle.mentions(user, c))
                                        .sum(),
                                conversations.getOrDefault(user, Set.of()).stream()
                                        .filter(c -> oracle.markedUnread(user, c))
                                        .count(),
                                conversations.getOrDefault(user, Set.of()).stream()
                                        .filter(c -> oracle.preference(user, c) != ChatEvent.ALL)
                                        .count()));
            }
        }
        return states;
    }

    private static long sum(Map<Long, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    private static long unreadSeqs(Oracle oracle) {
        return oracle.conversationUnread().values().stream()
                .flatMap(counts -> counts.values().stream())
                .mapToLong(Long::longValue)
                .sum();
    }

    private static Map<Long, Map<Long, Long>> withoutZeros(Map<Long, Map<Long, Long>> unread) {
        Map<Long, Map<Long, Long>> result = new TreeMap<>();
        unread.forEach(
                (user, counts) ->
                        counts.forEach(
                                (conversation, count) -> {
                                    if (count > 0) {
                                        result.computeIfAbsent(user, u -> new TreeMap<>())
                                                .put(conversation, count);
                                    }
                                }));
        return result;
    }

    /** Runs assertions and names the random history's seed if one fails. */
    private static void seeded(ThrowingRunnable assertions) {
        try {
            assertions.run();
        } catch (AssertionError e) {
            throw new AssertionError("history seed " + SEED + ": " + e.getMessage(), e);
        } catch (Exception e) {
            throw new AssertionError("history seed " + SEED, e);
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
