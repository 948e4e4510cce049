package dev.unread.ops;

import static dev.unread.ops.StoredSavepoints.config;
import static dev.unread.ops.StoredSavepoints.copy;
import static dev.unread.ops.StoredSavepoints.publish;
import static dev.unread.ops.StoredSavepoints.readRecords;
import static dev.unread.ops.StoredSavepoints.records;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.ops.StoredSavepoints.Record;
import dev.unread.ops.StoredSavepoints.Traffic;
import dev.unread.testing.AllReadStreams;
import dev.unread.testing.DeletionStreams;
import dev.unread.testing.EventStreams;
import dev.unread.testing.GroupStreams;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Oracle;
import dev.unread.testing.TestRedis;
import dev.unread.testing.ThreadStreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

/**
 * A savepoint of the production pipeline made by each released version, kept in {@code
 * savepoint-tools/src/test/resources/savepoints/<version>}, restores into this build and counts on:
 * a change that breaks state compatibility (a state type or its format, a descriptor, an operator
 * uid, the key type, max parallelism) fails here rather than in a user's upgrade. Each version is
 * one {@link Version}: what its savepoint was made from, and what the restored job must show before
 * any new event and after the events that follow. The versions restore one after another on one
 * broker and one MiniCluster (see {@link StoredSavepoints}).
 *
 * <p>Each savepoint was made once, by its version's own build, with this test's regeneration step
 * (versions 1 and 2 by the classes of their day, from the traffic {@link Version#traffic} gives). A
 * release that changes what state holds adds its constant and stores its savepoint; after a change
 * that breaks compatibility on purpose (and says so in the release notes) the savepoints it breaks
 * are stored again by the current build. Either way, for one version at a time:
 *
 * <pre>
 * mvn -B -pl savepoint-tools -am verify -Dtest=none -Dit.test=StoredSavepointITCase \
 *     -Dunread.savepoint.regenerate=v4 -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dfailsafe.failIfNoSpecifiedTests=false
 * </pre>
 */
class StoredSavepointITCase {

    /** The version whose savepoint the regeneration step stores, as {@code v4}. */
    static final String REGENERATE = "unread.savepoint.regenerate";

    /** The events in the stored savepoints, and the events after them: fixed, so reproducible. */
    private static final long SEED_BEFORE = 20260101L;

    private static final long SEED_AFTER = 20260102L;

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(3)
                            .build());

    /** The stored versions, each with its traffic and the checks of its restore. */
    enum Version {
        /**
         * Version 1 wrote neither the totals nor the readers: the restored job brings them before
         * any new event. Threads count from the first event after (version 1 had none).
         */
        V1 {
            @Override
            void restoreAndCountOn(Path work) throws Exception {
                restoreVersion1AndCountOn(stored(), work);
            }
        },

        /**
         * Version 2 (commit 173172e, the last before version 3's work): Redis stays as it left it
         * (no reader that version did not have: its readers stage kept who takes part), and threads
         * count from the first event after the restore.
         */
        V2 {
            @Override
            void restoreAndCountOn(Path work) throws Exception {
                StoredSavepoints.restoreAndCountOn(
                        KAFKA,
                        stored(),
                        before -> Traffic.of(StoredSavepoints.eventsAfter(SEED_AFTER)),
                        Version::afterAnUpgrade,
                        work);
            }
        },

        /**
         * Version 3 (commit c8c14af), the first to keep its records in the compact form ({@code
         * CompactStateSerializer}) and threads: its traffic has replies, thread reads and follows,
         * and the events after the restore reply, read and follow in the stored threads too, which
         * count right only if the restored job read their records as version 3 wrote them.
         */
        V3 {
            @Override
            Traffic traffic() {
                return Traffic.of(
                        ThreadStreams.withThreads(new Random(SEED_BEFORE), plainTraffic()));
            }

            @Override
            void restoreAndCountOn(Path work) throws Exception {
                StoredSavepoints.restoreAndCountOn(
                        KAFKA,
                        stored(),
                        before -> Traffic.of(inStoredThreads(before.events())),
                        Version::afterAnUpgrade,
                        work);
            }
        },

        /**
         * Version 4 added the channel-wide mentions and their preference, edits, ALL_READ (the
         * {@code sentAt}s it reads), erasures and implicit follows to the records. Its traffic has
         * all of them, with groups, threads and deletions; the events after the restore add, to
         * version 3's, edits of stored group messages, newer preferences on channel-wide mentions
         * and ALL_READs at stored times, each of which reads a field version 4 added. Its follows
         * are this build's, so the oracle takes all the events as one run.
         */
        V4 {
            @Override
            Traffic traffic() {
                EventStreams streams = new EventStreams(SEED_BEFORE).withIds(30_000, 95_000);
                List<ChatEvent> events =
                        ThreadStreams.withThreads(new Random(SEED_BEFORE), streams.events(300));
                GroupStreams groups = new GroupStreams(streams.random(), GROUP_USERS, GROUPS);
                GroupStreams.Traffic group = groups.threadTraffic(100, 12);
                events.addAll(group.reads());
                List<ConversationEvent> conversations =
                        groups.published(
                                DeletionStreams.among(group.records(), events, streams.random()),
                                0.1);
                events = AllReadStreams.withAllReads(streams.random(), events, conversations);
                events.add(erasure(events));
                Traffic traffic = new Traffic(events, conversations);
                assertThat(kinds(traffic))
                        .as("what version 4's savepoint must hold")
                        .containsAll(VERSION_4_KINDS);
                return traffic;
            }

            @Override
            void restoreAndCountOn(Path work) throws Exception {
                assertThat(kinds(StoredSavepoints.traffic(readRecords(records()))))
                        .as("what the stored savepoint of version 4 holds")
                        .containsAll(VERSION_4_KINDS);
                // The channel stage is version 5's: it starts empty, and the restore takes no
                // operator step (no state is left unclaimed, none is written before it).
                assertThat(
                                CounterSavepoints.operatorState(
                                        stored().resolve("savepoint").toUri().toString(),
                                        ChannelSavepoints.CHANNELS))
                        .as("the channel stage's state in version 4's savepoint")
                        .isEmpty();
                StoredSavepoints.restoreAndCountOn(
                        KAFKA,
                        stored(),
                        StoredSavepointITCase::afterVersion4,
                        (before, after) -> {
                            Traffic all = before.and(after);
                            return Oracle.of(all.events(), all.conversations());
                        },
                        work);
            }
        };

        /**
         * The traffic the regeneration step stores the savepoint of: for versions 1 and 2,
         * messages, reads, marks and preferences.
         */
        Traffic traffic() {
            return Traffic.of(plainTraffic());
        }

        /** Restores the stored savepoint and checks that the job counts on from it. */
        abstract void restoreAndCountOn(Path work) throws Exception;

        String directory() {
            return name().toLowerCase(Locale.ROOT);
        }

        Path stored() {
            return StoredSavepoints.ROOT.resolve(directory());
        }

        Path records() {
            return stored().resolve("records.tsv");
        }

        /**
         * What a job of an earlier version wrote, whose savepoint this build restored, and the
         * events after: the follows the stored state holds keep their value, those made by taking
         * part counting as defaults.
         */
        private static Oracle afterAnUpgrade(Traffic before, Traffic after) {
            return Oracle.afterUpgrade(before.events(), after.events());
        }
    }

    /** The first user and conversation of version 4's groups, apart from the other traffic's. */
    private static final long GROUP_USERS = 31_000;

    private static final long GROUPS = 96_000;

    /** Kinds of record version 4's traffic holds: each writes some field version 4 added. */
    private static final Set<String> VERSION_4_KINDS =
            Set.of(
                    "MEMBER_JOINED",
                    "reply",
                    "MESSAGE_DELETED",
                    "MESSAGE_EDITED",
                    "channel-wide mention",
                    "ignoreChannelMentions",
                    "ALL_READ",
                    "USER_ERASED");

    @ParameterizedTest(name = "{0}")
    @EnumSource(Version.class)
    @DisabledIfSystemProperty(named = REGENERATE, matches = ".+")
    void aStoredSavepointRestoresAndCountsOn(Version version, @TempDir Path work) throws Exception {
        version.restoreAndCountOn(work);
    }

    @Test
    @EnabledIfSystemProperty(named = REGENERATE, matches = ".+")
    void regenerateTheStoredSavepoint(@TempDir Path work) throws Exception {
        Version version = Version.valueOf(System.getProperty(REGENERATE).toUpperCase(Locale.ROOT));
        StoredSavepoints.store(KAFKA, version.stored(), version.traffic(), work);
    }

    private static List<ChatEvent> plainTraffic() {
        return new EventStreams(SEED_BEFORE).withIds(30_000, 95_000).events(300);
    }

    /**
     * The events after the restore: those the version 2 savepoint gets, and more replies, reads and
     * follows in the stored threads.
     */
    private static List<ChatEvent> inStoredThreads(List<ChatEvent> before) {
        List<ChatEvent> after = StoredSavepoints.eventsAfter(SEED_AFTER);
        List<ChatEvent> all = new ArrayList<>(before);
        all.addAll(after);
        List<ChatEvent> inStoredThreads = ThreadStreams.threads(new Random(SEED_AFTER), all);
        Set<Long> storedRoots = new HashSet<>();
        before.stream().filter(ChatEvent::isReply).forEach(e -> storedRoots.add(e.threadSeq));
        assertThat(inStoredThreads)
                .as("thread events on roots the stored savepoint has threads of")
                .anyMatch(e -> storedRoots.contains(e.threadSeq));
        after.addAll(inStoredThreads);
        return after;
    }

    /**
     * Version 3's events after the restore, and: an edit of one stored group message in three,
     * newer than any stored edit, mentioning the whole channel or some members; for each stored
     * group member and group a preference on channel-wide mentions newer than any stored one; and
     * ALL_READs at the stored messages' times.
     */
    private static Traffic afterVersion4(Traffic before) {
        Random random = new Random(SEED_AFTER);
        List<ChatEvent> events = new ArrayList<>(inStoredThreads(before.events()));
        List<ConversationEvent> edits = new ArrayList<>();
        Set<Long> groups = new HashSet<>();
        Set<Long> members = new HashSet<>();
        long latest = EventStreams.T0;
        for (ConversationEvent e : before.conversations()) {
            groups.add(e.conversationId);
            if (e.isMembership()) {
                members.add(e.userId);
            }
            latest = Math.max(latest, e.sentAt);
        }
        for (ConversationEvent e : before.conversations()) {
            if (e.isMessage() && random.nextInt(3) == 0) {
                edits.add(
                        ConversationEvent.edited(
                                e.conversationId,
                                e.seq,
                                latest + EventStreams.TICK_MS,
                                random.nextBoolean(),
                                GROUP_USERS + random.nextInt(12)));
            }
        }
        for (long group : groups) {
            for (long member : members) {
                // Stored setAts are 1 to 4.
                events.add(
                        ChatEvent.ignoreChannelMentions(
                                member,
                                group,
                                ChatEvent.NO_COUNT_PREFERENCE,
                                random.nextBoolean(),
                                5));
            }
        }
        AllReadStreams.withAllReads(random, before.events(), before.conversations()).stream()
                .filter(e -> e.kind == ChatEvent.Kind.ALL_READ)
                .forEach(events::add);
        return new Traffic(events, edits);
    }

    /**
     * The erasure of one user outside the groups (whose deliveries come on another topic) at the
     * newest time of the user's events, so that every event of the user is covered by it whichever
     * topic it came on and when (see {@link Oracle}); the events after the restore then meet a user
     * erased in the stored state.
     */
    private static ChatEvent erasure(List<ChatEvent> events) {
        TreeMap<Long, Long> newest = new TreeMap<>();
        for (ChatEvent e : events) {
            if (e.userId < GROUP_USERS && e.time > 0) {
                newest.merge(e.userId, e.time, Math::max);
            }
        }
        long user = newest.lastKey();
        return ChatEvent.userErased(user, newest.get(user));
    }

    /** The kinds of {@link #VERSION_4_KINDS} the traffic holds. */
    private static Set<String> kinds(Traffic traffic) {
        Set<String> kinds = new HashSet<>();
        for (ChatEvent e : traffic.events()) {
            kinds.add(e.kind.name());
            if (e.isReply()) {
                kinds.add("reply");
            }
            if (e.kind == ChatEvent.Kind.MESSAGE && e.mentionsAll) {
                kinds.add("channel-wide mention");
            }
            if (e.kind == ChatEvent.Kind.CONVERSATION_PREFERENCE
                    && e.carriesIgnoreChannelMentions()) {
                kinds.add("ignoreChannelMentions");
            }
        }
        for (ConversationEvent e : traffic.conversations()) {
            kinds.add(e.kind.name());
            if (e.isMessage() && e.threadSeq > 0) {
                kinds.add("reply");
            }
            if (e.isMessage() && e.mentionsAll) {
                kinds.add("channel-wide mention");
            }
        }
        return kinds;
    }

    /**
     * Restores version 1's savepoint, whose held state must be what its records make, over Redis as
     * version 1 left it; before any new event the job writes the totals and readers version 1 never
     * wrote, and after the events that follow counts as the oracle says.
     */
    private static void restoreVersion1AndCountOn(Path stored, Path work) throws Exception {
        List<Record> records = readRecords(stored.resolve("records.tsv"));
        List<ChatEvent> before = StoredSavepoints.traffic(records).events();
        Oracle old = Oracle.of(before);
        // The job may claim files of the savepoint it starts from: it gets a copy.
        Path savepoint = work.resolve("v1");
        copy(stored.resolve("savepoint"), savepoint);

        Map<Long, UserState> held = new TreeMap<>();
        SavepointInspect.users(savepoint.toUri().toString())
                .forEach(user -> held.put(user.userId(), user));
        assertThat(held).isEqualTo(BootstrapITCase.tableStates(old, List.of()));

        String prefix = TestRedis.uniquePrefix();
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = config(KAFKA, db, prefix);
            publish(KAFKA, config, records);

            writeWhatVersion1Wrote(prefix, old);

            ProductionJob job = ProductionJob.start(config, 3, savepoint.toUri().toString());
            try {
                // Before any new event: the totals and readers version 1 never wrote.
                ProductionJob.awaitRedis(config, old);
                Map<String, Map<String, Double>> readers = awaitReaders(prefix, old, old);
                System.out.printf(
                        "restored from v1, before any event: totals of %d users, %d readers in %d"
                                + " conversations%n",
                        old.redisTotals(prefix).size(),
                        readers.values().stream().mapToInt(Map::size).sum(),
                        readers.size());

                // Threads too: version 1 had none, they count from the first event after.
                List<ChatEvent> after = StoredSavepoints.eventsAfter(SEED_AFTER);
                publish(KAFKA, config, records(after));
                List<ChatEvent> all = new ArrayList<>(before);
                all.addAll(after);
                Oracle now = Oracle.of(all);
                assertThat(now.redisThreadHashes(prefix, false)).isNotEmpty();
                ProductionJob.awaitRedis(config, now);
                awaitReaders(prefix, now, old);
                StoredSavepoints.savesCompressed(job, now, work);
            } finally {
                job.cancel();
            }
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    /**
     * Redis as a version 1 job leaves it: badges and conversation counts, but no totals and no
     * readers (version 1 wrote neither), so only the restored job can bring them.
     */
    private static void writeWhatVersion1Wrote(String prefix, Oracle old) {
        try (Jedis jedis = TestRedis.connect(0)) {
            old.redisSenderKeys(prefix).forEach(jedis::set);
            old.redisConversationHashes(prefix).forEach(jedis::hset);
        }
        assertThat(TestRedis.hashes(prefix))
                .doesNotContainKeys(old.redisTotals(prefix).keySet().toArray(String[]::new));
    }

    /**
     * Waits until every {@code chat:readers:{C}} equals the oracle's and returns them, where a
     * cursor in the restored state also makes its user a participant (docs/contract.md, "Upgrades":
     * version 1 kept no participants, and its state cannot tell who took part from who only read).
     */
    private static Map<String, Map<String, Double>> awaitReaders(
            String prefix, Oracle expected, Oracle restored) throws Exception {
        Map<String, Map<String, Double>> readers = new TreeMap<>(expected.redisReaders(prefix));
        for (Oracle.Member m : restored.conversationMemberRows().keySet()) {
            readers.computeIfAbsent(
                            prefix + Oracle.READERS_KEY + m.conversationId(), c -> new TreeMap<>())
                    .put(
                            Long.toString(m.userId()),
                            (double) expected.lastReadSeq(m.userId(), m.conversationId()));
        }
        assertThat(readers).isNotEmpty();
        ProductionJob.awaitReaders(prefix, readers);
        return readers;
    }
}
