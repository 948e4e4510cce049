package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.JobOutputs;
import dev.unread.UnreadJob;
import dev.unread.config.JobSettings;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.sinks.RedisCounts;
import dev.unread.sinks.RedisReaders;
import dev.unread.sinks.RedisReceipts;
import dev.unread.state.StateSchema;
import dev.unread.testing.EventStreams;
import dev.unread.testing.GroupStreams;
import dev.unread.testing.JobHarness;
import dev.unread.testing.Oracle;
import dev.unread.testing.TestRedis;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code unread bootstrap} against a real MariaDB and a Flink cluster: the savepoint it writes from
 * a chat history holds exactly what SQL counts over that history (read back by {@code savepoint
 * inspect}), {@code savepoint republish} writes those counts and readers to Redis, and the job
 * started from the savepoint counts every later event on top of the history.
 *
 * <p>The history is random (its seed is printed with any failure): per-receiver messages and reads,
 * and group conversations in the same conversations with members joining, leaving and coming back.
 * The expected counts come from the contract's oracle and, independently, from SQL over the tables.
 */
class BootstrapITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = JobHarness.miniCluster();

    private static final long SEED = System.nanoTime();

    /**
     * The later traffic's group seqs start past every seq of the history: a membership event
     * governs the messages above it, and one that arrived after them (the history's) would break
     * the contract's one precondition.
     */
    private static final long LATER_SEQS = 10_000;

    private static HistoryDatabase db;
    private static Path savepointRoot;
    private static String savepoint;
    private static Story history;
    private static Oracle historyOracle;

    /** SQL's answers over the history alone, before any test adds to the tables. */
    private static Map<Long, Long> sqlBadges;

    private static Map<Long, Map<Long, Long>> sqlUnread;

    @BeforeAll
    static void bootstrapFromARandomHistory() throws Exception {
        db = HistoryDatabase.create();
        // What a chat server's tables hold: no mentions, preferences or marks.
        history = story(SEED, 0).bootstrappable();
        historyOracle = history.oracle();
        db.record(history.events());
        db.recordGroups(history.groups());
        db.recordInvalidMessages(historyOracle.users().iterator().next(), EventStreams.T0 + 1);
        ConversationEvent aGroup = history.groups().get(0);
        db.recordInvalidGroupRows(aGroup.conversationId, 10_000, EventStreams.T0 + 1);
        sqlBadges = db.badges();
        sqlUnread = db.conversationUnread();

        savepointRoot = Files.createTempDirectory("bootstrap");
        savepoint = savepointRoot.resolve("savepoint").toUri().toString();
        Bootstrap.bootstrap(db.config(""), Bootstrap.Tables.DEFAULT, savepoint);
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

    /**
     * Chat traffic: per-receiver events, the chat-conversations records (as a set, and in an order
     * they may be published in, with duplicates) and the reads of their conversations.
     */
    private record Story(
            List<ChatEvent> events,
            List<ConversationEvent> groups,
            List<ConversationEvent> published) {

        Oracle oracle() {
            return Oracle.of(events, groups);
        }

        /**
         * What a chat server's tables hold and the bootstrap reads: messages without mentions,
         * inbox opens and reads; preferences and marks exist only as events.
         */
        Story bootstrappable() {
            List<ChatEvent> kept = new ArrayList<>();
            for (ChatEvent e : events) {
                if (e.kind == ChatEvent.Kind.MESSAGE
                        || e.kind == ChatEvent.Kind.INBOX_OPENED
                        || e.kind == ChatEvent.Kind.CONVERSATION_READ) {
                    ChatEvent copy = EventStreams.copy(e);
                    copy.mentioned = false;
                    copy.mentionsAll = false;
                    kept.add(copy);
                }
            }
            return new Story(kept, withoutMentions(groups), withoutMentions(published));
        }

        private static List<ConversationEvent> withoutMentions(List<ConversationEvent> records) {
            List<ConversationEvent> kept = new ArrayList<>();
            for (ConversationEvent e : records) {
                kept.add(
                        e.isMessage()
                                ? ConversationEvent.message(
                                        e.conversationId, e.seq, e.senderId, e.sentAt)
                                : e);
            }
            return kept;
        }
    }

    /**
     * Three stories on disjoint users, so users, senders and conversations are many; each with
     * groups in its conversations among its users, their seqs from {@code firstSeq} on.
     */
    private static Story story(long seed, long firstSeq) {
        EventStreams streams = new EventStreams(seed);
        List<ChatEvent> events = new ArrayList<>();
        List<ConversationEvent> groups = new ArrayList<>();
        List<ConversationEvent> published = new ArrayList<>();
        for (int story = 0; story < 3; story++) {
            long firstUser = 10_000 + 1_000 * story;
            long firstConversation = 80_000 + 1_000 * story;
            events.addAll(streams.withIds(firstUser, firstConversation).events(250));
            GroupStreams groupStreams =
                    new GroupStreams(streams.random(), firstUser, firstConversation);
            GroupStreams.Traffic traffic = groupStreams.traffic(150, 12);
            List<ConversationEvent> records = new ArrayList<>();
            // A chat server's tables hold no deletions, so the history has none.
            traffic.records().stream()
                    .filter(e -> e.kind != ConversationEvent.Kind.MESSAGE_DELETED)
                    .forEach(e -> records.add(movedBy(e, firstSeq)));
            traffic.reads().forEach(e -> events.add(movedBy(e, firstSeq)));
            groups.addAll(records);
            // The stories' conversations are disjoint: one after the other keeps each one's order.
            published.addAll(groupStreams.published(records, 0.2));
        }
        return new Story(events, groups, published);
    }

    /**
     * What a job started from the bootstrap shows: the tables keep no conversation read's time, so
     * the history's reads clear no later mark older than them (and the totals count such a mark).
     */
    private static Oracle afterBootstrap(Story history, Story later) {
        List<ChatEvent> known = new ArrayList<>();
        for (ChatEvent e : history.events()) {
            ChatEvent copy = EventStreams.copy(e);
            if (copy.kind == ChatEvent.Kind.CONVERSATION_READ) {
                copy.time = 0;
            }
            known.add(copy);
        }
        known.addAll(later.events());
        List<ConversationEvent> groups = new ArrayList<>(history.groups());
        groups.addAll(later.groups());
        return Oracle.of(known, groups);
    }

    /** All hashes the oracle expects: conversation counts, mentions and totals. */
    private static Map<String, Map<String, String>> hashes(Oracle oracle, String prefix) {
        Map<String, Map<String, String>> hashes =
                new java.util.TreeMap<>(oracle.redisConversationHashes(prefix));
        hashes.putAll(oracle.redisMentionHashes(prefix));
        hashes.putAll(oracle.redisChannelMentionHashes(prefix));
        hashes.putAll(oracle.redisTotals(prefix));
        return hashes;
    }

    private static ConversationEvent movedBy(ConversationEvent e, long seqs) {
        if (e.isMessage()) {
            return ConversationEvent.message(
                    e.conversationId, e.seq + seqs, e.senderId, e.sentAt, e.mentions);
        }
        return e.kind == ConversationEvent.Kind.MEMBER_JOINED
                ? ConversationEvent.joined(e.conversationId, e.userId, e.seq + seqs)
                : ConversationEvent.left(e.conversationId, e.userId, e.seq + seqs);
    }

    private static ChatEvent movedBy(ChatEvent read, long seqs) {
        return read.kind == ChatEvent.Kind.CONVERSATION_READ
                ? ChatEvent.conversationRead(
                        read.userId, read.conversationId, read.seq + seqs, read.time)
                : read;
    }

    @Test
    void sqlOverTheTablesAgreesWithTheContractsOracle() {
        seeded(
                () -> {
                    assertThat(historyOracle.conversationUnread())
                            .as("the history has a group member's counts")
                            .isNotEqualTo(Oracle.of(history.events()).conversationUnread());
                    assertThat(sqlBadges).isEqualTo(historyOracle.badges());
                    assertThat(withoutZeros(sqlUnread))
                            .isEqualTo(historyOracle.conversationUnread());
                });
    }

    @Test
    void inspectingTheSavepointShowsEachUsersStateAsSqlCountsIt() throws Exception {
        Map<Long, UserState> expected = tableStates(historyOracle, history.groups());
        SavepointInspect.Groups expectedGroups = expectedGroups(history);

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
                    assertThat(summary.unreadSeqs()).isEqualTo(heldSeqs(expected));
                    assertThat(summary.badgeMismatches()).isZero();
                    assertThat(summary.groups()).isEqualTo(expectedGroups);
                    assertThat(expectedGroups.leavers()).as("the history has leavers").isPositive();
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
    void theFanOutHoldsEveryMembershipEventAndTheReadersEveryParticipantAndCursor()
            throws Exception {
        Map<Oracle.Member, Set<Long>> events = new TreeMap<>();
        for (ConversationEvent e : history.groups()) {
            if (!e.isMessage()) {
                events.computeIfAbsent(
                                new Oracle.Member(e.conversationId, e.userId), m -> new TreeSet<>())
                        .add(e.kind == ConversationEvent.Kind.MEMBER_JOINED ? e.seq : -e.seq);
            }
        }
        Set<String> members = new TreeSet<>();
        // By seq, and at one seq the join before the leave: the order the contract's rule reads.
        Comparator<Long> bySeq =
                Comparator.<Long>comparingLong(Math::abs).thenComparing(Comparator.reverseOrder());
        events.forEach(
                (member, seqs) ->
                        members.add(
                                member.conversationId()
                                        + "/"
                                        + member.userId()
                                        + "="
                                        + Arrays.toString(
                                                seqs.stream()
                                                        .sorted(bySeq)
                                                        .mapToLong(Long::longValue)
                                                        .toArray())));

        // A participant's value is its cursor (0 before it reads), a reader's who is none the
        // cursor negated.
        Set<String> readers = new TreeSet<>();
        for (long conversation : conversationsOf(history)) {
            for (long user : historyOracle.participants(conversation)) {
                readers.add(
                        conversation
                                + "/"
                                + user
                                + "="
                                + historyOracle.lastReadSeq(user, conversation));
            }
        }
        historyOracle
                .conversationMemberRows()
                .forEach(
                        (member, cursor) -> {
                            if (!historyOracle
                                    .participants(member.conversationId())
                                    .contains(member.userId())) {
                                readers.add(
                                        member.conversationId()
                                                + "/"
                                                + member.userId()
                                                + "="
                                                + -cursor);
                            }
                        });

        Set<String> heldMembers = entries(CounterSavepoints.FAN_OUT, new MembersOf());
        Set<String> heldReaders = entries(CounterSavepoints.READERS, new ReadersOf());
        seeded(
                () -> {
                    assertThat(heldMembers).isEqualTo(members);
                    assertThat(heldReaders).isEqualTo(readers);
                });
    }

    /** The entries of one operator's map state in the bootstrap's savepoint, as "C/U=value". */
    private static Set<String> entries(
            OperatorIdentifier operator, KeyedStateReaderFunction<Long, String> reader)
            throws Exception {
        Set<String> entries = new TreeSet<>();
        try (BatchJobs jobs = BatchJobs.start();
                CloseableIterator<String> all =
                        SavepointReader.read(
                                        jobs.environment(),
                                        savepoint,
                                        CounterSavepoints.stateBackend())
                                .readKeyedState(operator, reader, Types.LONG, Types.STRING)
                                .executeAndCollect("read " + operator)) {
            all.forEachRemaining(entries::add);
        }
        return entries;
    }

    /** GroupFanOut's members of each conversation and their events. */
    static final class MembersOf extends KeyedStateReaderFunction<Long, String> {
        private transient MapState<Long, long[]> members;

        @Override
        public void open(OpenContext openContext) {
            members = getRuntimeContext().getMapState(StateSchema.MEMBERS);
        }

        @Override
        public void readKey(Long conversation, Context context, Collector<String> out)
                throws Exception {
            for (Map.Entry<Long, long[]> member : members.entries()) {
                out.collect(
                        conversation
                                + "/"
                                + member.getKey()
                                + "="
                                + Arrays.toString(member.getValue()));
            }
        }
    }

    /** ConversationReaders' participants and cursors of each conversation. */
    static final class ReadersOf extends KeyedStateReaderFunction<Long, String> {
        private transient MapState<Long, Long> readers;

        @Override
        public void open(OpenContext openContext) {
            readers = getRuntimeContext().getMapState(StateSchema.READERS);
        }

        @Override
        public void readKey(Long conversation, Context context, Collector<String> out)
                throws Exception {
            for (Map.Entry<Long, Long> reader : readers.entries()) {
                out.collect(conversation + "/" + reader.getKey() + "=" + reader.getValue());
            }
        }
    }

    @Test
    void theInspectCommandPrintsTheTotals() throws Exception {
        Map<Long, UserState> expected = tableStates(historyOracle, history.groups());
        SavepointInspect.Groups groups = expectedGroups(history);
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
                    assertThat(printed).containsPattern("unread seqs +" + heldSeqs(expected) + " ");
                    assertThat(printed).containsPattern("members +" + groups.members() + " ");
                    assertThat(printed).containsPattern("leavers +" + groups.leavers() + " ");
                    assertThat(printed)
                            .containsPattern("participants +" + groups.participants() + "\\R");
                    assertThat(printed).containsPattern("readers +" + groups.readers() + " ");
                    assertThat(printed).contains("Largest users");
                });
    }

    @Test
    void theBootstrapCommandPrintsWhatItWrote() throws Exception {
        String output = savepointRoot.resolve("from-command").toUri().toString();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Bootstrap.bootstrap(db.config(""), Bootstrap.Tables.DEFAULT, output);
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
                    assertThat(printed)
                            .containsPattern(
                                    "group conversations +"
                                            + expectedGroups(history).conversations()
                                            + " ");
                    assertThat(printed).contains("flink run -s " + output);
                });
    }

    @Test
    void aMissingGroupTableIsNamedBeforeAnyWork() {
        Path output = savepointRoot.resolve("never-written");
        Bootstrap.Tables tables =
                new Bootstrap.Tables(
                        Bootstrap.DEFAULT_MESSAGES_TABLE,
                        "no_group_messages",
                        Bootstrap.DEFAULT_MEMBERSHIP_TABLE,
                        Bootstrap.DEFAULT_CHANNELS_TABLE);

        assertThatThrownBy(
                        () -> Bootstrap.bootstrap(db.config(""), tables, output.toUri().toString()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cannot read table no_group_messages (");
        assertThat(output).doesNotExist();
    }

    @Test
    void aJobStartedFromTheBootstrapCountsLaterEventsOnTopOfTheHistory() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        UnreadConfig config = db.config(prefix);
        try {
            // Redis lost its data: the savepoint's counts and readers are written back first.
            SavepointRepublish.Written written = SavepointRepublish.republish(savepoint, config);
            seeded(
                    () -> {
                        assertRedisHolds(prefix, historyOracle);
                        Map<String, Map<String, String>> hashes = hashes(historyOracle, prefix);
                        assertThat(written.counts())
                                .isEqualTo(
                                        historyOracle.badges().size()
                                                + hashes.values().stream()
                                                        .mapToLong(Map::size)
                                                        .sum());
                        assertThat(written.readerScores())
                                .isEqualTo(expectedGroups(history).readers());
                    });

            // The same users go on chatting (at times among and after the history's), in the
            // same groups; the history's group records come again, as a replay would bring them:
            // each message must reach the members it reached then.
            Story later = story(SEED + 1, LATER_SEQS);
            List<ConversationEvent> published = new ArrayList<>(later.published());
            Random replay = new Random(SEED);
            for (ConversationEvent e : history.groups()) {
                published.add(replay.nextInt(published.size() + 1), e);
            }
            Configuration restore = JobSettings.of(config);
            restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(restore);
            // One split per source, so chat-conversations arrive in their published order.
            env.setParallelism(1);
            new UnreadJob(
                            EventSources.of(later.events(), true),
                            EventSources.of(later.events(), false),
                            EventSources.conversations(published),
                            new JobOutputs(
                                    new RedisCounts(config),
                                    new RedisReceipts(config),
                                    new DiscardingSink<>(),
                                    new DiscardingSink<>(),
                                    new RedisReaders(config),
                                    new DiscardingSink<>(),
                                    new DiscardingSink<>()))
                    .execute(env);

            List<ChatEvent> all = new ArrayList<>(history.events());
            all.addAll(later.events());
            List<ConversationEvent> allGroups = new ArrayList<>(history.groups());
            allGroups.addAll(later.groups());
            Oracle expected = Oracle.of(all, allGroups);
            Map<Long, Long> sqlBadgesOfAll;
            Map<Long, Map<Long, Long>> sqlUnreadOfAll;
            // The whole story in tables of its own: the other tests read the history's.
            try (HistoryDatabase whole = HistoryDatabase.create()) {
                whole.record(all);
                whole.recordGroups(allGroups);
                sqlBadgesOfAll = whole.badges();
                sqlUnreadOfAll = withoutZeros(whole.conversationUnread());
            }
            seeded(
                    () -> {
                        assertThat(sqlBadgesOfAll).isEqualTo(expected.badges());
                        assertThat(sqlUnreadOfAll).isEqualTo(expected.conversationUnread());
                        assertRedisHolds(prefix, afterBootstrap(history, later));
                    });
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    /** Every key under {@code prefix} (but the live push's versions) is what the oracle says. */
    private static void assertRedisHolds(String prefix, Oracle oracle) {
        Map<String, String> strings = oracle.redisSenderKeys(prefix);
        Map<String, Set<String>> marks = oracle.redisMarkedSets(prefix);
        Map<String, Map<String, String>> hashes = hashes(oracle, prefix);
        Map<String, Map<String, Double>> readers = oracle.redisReaders(prefix);
        assertThat(TestRedis.strings(prefix)).isEqualTo(strings);
        assertThat(TestRedis.hashes(prefix)).isEqualTo(hashes);
        assertThat(TestRedis.sortedSets(prefix)).isEqualTo(readers);
        assertThat(TestRedis.sets(prefix)).isEqualTo(marks);
        Set<String> keys = new TreeSet<>(strings.keySet());
        keys.addAll(hashes.keySet());
        keys.addAll(marks.keySet());
        keys.addAll(readers.keySet());
        try (var jedis = TestRedis.connect(0)) {
            Set<String> held = new TreeSet<>(TestRedis.keys(jedis, prefix));
            held.removeIf(TestRedis::isNotACount);
            assertThat(held).isEqualTo(keys);
        }
    }

    /**
     * What the job's UnreadCounter holds per user after per-receiver events alone: as {@link
     * #tableStates}, and a conversation any event touched (a message from another, a read, a
     * preference or a mark) holds state too, as does every user an event went to.
     */
    static Map<Long, UserState> expectedStates(Oracle oracle) {
        return expectedStates(oracle, List.of(), true);
    }

    /**
     * What UnreadCounter holds per user when built from tables (the bootstrap) or by the first
     * release (its savepoint): the watermark, the senders past it, each conversation with a cursor,
     * unread seqs (hidden ones too) or a membership event. A read that moved no cursor left no
     * trace there. Users with nothing held are absent.
     */
    static Map<Long, UserState> tableStates(Oracle oracle, List<ConversationEvent> groups) {
        return expectedStates(oracle, groups, false);
    }

    private static Map<Long, UserState> expectedStates(
            Oracle oracle, List<ConversationEvent> groups, boolean everyTouchedConversation) {
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
        // A member's conversation is held from the first membership event, hidden counts with it.
        newestMembership(groups)
                .keySet()
                .forEach(
                        member ->
                                conversations
                                        .computeIfAbsent(member.userId(), u -> new TreeSet<>())
                                        .add(member.conversationId()));
        if (everyTouchedConversation) {
            for (long user : oracle.users()) {
                conversations
                        .computeIfAbsent(user, u -> new TreeSet<>())
                        .addAll(oracle.conversationsOf(user));
            }
            // A user's own reply is kept, in a thread the user follows, in the record of the
            // conversation it was sent in; so is a message to themselves that mentions them.
            oracle.ownMessagesIn()
                    .forEach(
                            (user, sentIn) ->
                                    conversations
                                            .computeIfAbsent(user, u -> new TreeSet<>())
                                            .addAll(sentIn));
        }

        Set<Long> users = new TreeSet<>(oracle.users());
        users.addAll(conversations.keySet());
        if (everyTouchedConversation) {
            // The job keeps a state for every user an event went to, if only its last active day.
            users.addAll(oracle.addressedUsers());
        }
        Map<Long, UserState> states = new TreeMap<>();
        for (long user : users) {
            long badge = oracle.badge(user);
            Set<Long> held = conversations.getOrDefault(user, Set.of());
            long unread = 0;
            for (long conversation : held) {
                unread += oracle.unreadCountUpperBound(new Oracle.Member(conversation, user));
            }
            if (oracle.lastReadAt(user) > 0
                    || badge > 0
                    || !held.isEmpty()
                    || (everyTouchedConversation && oracle.addressedUsers().contains(user))) {
                states.put(
                        user,
                        new UserState(
                                user,
                                oracle.lastReadAt(user),
                                badge,
                                badge,
                                held.size(),
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

    /**
     * Each member's newest membership event in a conversation, from the contract's rule: the
     * largest seq, a leave winning over a join at that seq; as the seq, negated for a leave.
     */
    private static Map<Oracle.Member, Long> newestMembership(List<ConversationEvent> groups) {
        Map<Oracle.Member, Long> newest = new TreeMap<>();
        for (ConversationEvent e : groups) {
            if (!e.isMessage()) {
                long event = e.kind == ConversationEvent.Kind.MEMBER_JOINED ? e.seq : -e.seq;
                newest.merge(
                        new Oracle.Member(e.conversationId, e.userId),
                        event,
                        (a, b) ->
                                Math.abs(b) > Math.abs(a) || (Math.abs(b) == Math.abs(a) && b < 0)
                                        ? b
                                        : a);
            }
        }
        return newest;
    }

    /** The group state of a story: its groups' members and leavers, participants and readers. */
    private static SavepointInspect.Groups expectedGroups(Story story) {
        Oracle oracle = story.oracle();
        Map<Oracle.Member, Long> newest = newestMembership(story.groups());
        Set<Long> groups = new TreeSet<>();
        newest.keySet().forEach(member -> groups.add(member.conversationId()));
        long members = newest.values().stream().filter(event -> event > 0).count();

        Set<Long> conversations = conversationsOf(story);
        long participants =
                conversations.stream().mapToLong(c -> oracle.participants(c).size()).sum();
        long readers =
                oracle.redisReaders("").values().stream().mapToLong(scores -> scores.size()).sum();
        return new SavepointInspect.Groups(
                groups.size(),
                members,
                newest.size() - members,
                conversations.size(),
                participants,
                readers);
    }

    /**
     * The conversations of a story with readers' state: with a membership event, a cursor or a
     * per-receiver message.
     */
    private static Set<Long> conversationsOf(Story story) {
        Set<Long> conversations = new TreeSet<>();
        story.groups().stream()
                .filter(e -> !e.isMessage())
                .forEach(e -> conversations.add(e.conversationId));
        story.oracle()
                .conversationMemberRows()
                .keySet()
                .forEach(m -> conversations.add(m.conversationId()));
        story.events().stream()
                .filter(e -> e.kind == ChatEvent.Kind.MESSAGE && e.conversationId > 0)
                .forEach(e -> conversations.add(e.conversationId));
        return conversations;
    }

    private static long heldSeqs(Map<Long, UserState> states) {
        return states.values().stream().mapToLong(UserState::unreadSeqs).sum();
    }

    private static long sum(Map<Long, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
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
