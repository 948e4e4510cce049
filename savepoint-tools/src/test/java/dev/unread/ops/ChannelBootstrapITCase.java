package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.JobOutputs;
import dev.unread.UnreadJob;
import dev.unread.config.JobSettings;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.RedisNames;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.sinks.RedisChannels;
import dev.unread.sinks.RedisCounts;
import dev.unread.sinks.RedisReaders;
import dev.unread.sinks.RedisReceipts;
import dev.unread.testing.ChannelTraffic;
import dev.unread.testing.EventStreams;
import dev.unread.testing.JobHarness;
import dev.unread.testing.Oracle;
import dev.unread.testing.OracleChannels;
import dev.unread.testing.TestRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code unread bootstrap} of a channel declared in {@code group_channels}: a channel with members
 * who join late, leave and come back, messages of each, and cursors in {@code conversation_member}
 * (one of a reader who never joined), beside a group of the same users. Its savepoint, republished,
 * gives every member the oracle's counts by the readers' recipe and the keys the job writes when
 * fed the same history; the job restored from it counts later channel records and reads on top, and
 * a late {@code CHANNEL} of the bootstrapped group changes nothing.
 */
class ChannelBootstrapITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = JobHarness.miniCluster();

    private static final long A = 61_001;
    private static final long B = 61_002;
    private static final long D = 61_003;
    private static final long E = 61_004;
    private static final long READER = 61_005;
    private static final long CHANNEL = 95_001;
    private static final long GROUP = 95_002;
    private static final long T0 = EventStreams.T0;

    private static HistoryDatabase db;
    private static Path root;
    private static String savepoint;

    /** The channel's and the group's records, the channel declared before the others. */
    private static List<ConversationEvent> records() {
        return List.of(
                ConversationEvent.channel(CHANNEL),
                ConversationEvent.joined(CHANNEL, A, 1),
                ConversationEvent.joined(CHANNEL, B, 2),
                ConversationEvent.joined(CHANNEL, D, 3),
                ConversationEvent.message(CHANNEL, 4, A, T0 + 4),
                ConversationEvent.message(CHANNEL, 5, B, T0 + 5),
                ConversationEvent.left(CHANNEL, D, 6),
                ConversationEvent.message(CHANNEL, 7, A, T0 + 7),
                ConversationEvent.message(CHANNEL, 8, A, T0 + 8),
                ConversationEvent.joined(CHANNEL, D, 9),
                ConversationEvent.message(CHANNEL, 10, B, T0 + 10),
                ConversationEvent.message(CHANNEL, 11, D, T0 + 11),
                ConversationEvent.joined(CHANNEL, E, 12),
                ConversationEvent.message(CHANNEL, 13, A, T0 + 13),
                ConversationEvent.joined(GROUP, A, 1),
                ConversationEvent.joined(GROUP, B, 2),
                ConversationEvent.message(GROUP, 3, A, T0 + 3),
                ConversationEvent.message(GROUP, 4, B, T0 + 4));
    }

    /**
     * A message to one receiver, and the cursors {@code conversation_member} holds, as the reads
     * that moved them.
     */
    private static List<ChatEvent> events() {
        long at = T0 + 100;
        return List.of(
                ChatEvent.message(A, READER, T0 + 50),
                ChatEvent.conversationRead(A, CHANNEL, 5, at),
                ChatEvent.conversationRead(B, CHANNEL, 11, at),
                ChatEvent.conversationRead(D, CHANNEL, 4, at),
                ChatEvent.conversationRead(READER, CHANNEL, 7, at),
                ChatEvent.conversationRead(B, GROUP, 3, at));
    }

    @BeforeAll
    static void bootstrapTheHistory() throws Exception {
        db = HistoryDatabase.create();
        db.recordGroups(records());
        db.record(events());
        root = Files.createTempDirectory("channel-bootstrap");
        savepoint = root.resolve("savepoint").toUri().toString();
        Bootstrap.bootstrap(db.config(""), Bootstrap.Tables.DEFAULT, savepoint);
    }

    @AfterAll
    static void dropDatabase() throws Exception {
        if (db != null) {
            db.close();
        }
        if (root != null) {
            FileUtils.deleteDirectory(root.toFile());
        }
    }

    @Test
    void republishedChannelCountsAreTheOraclesAndInspectShowsTheTracks() throws Exception {
        OracleChannels oracle = Oracle.of(events(), records()).channels();
        String prefix = TestRedis.uniquePrefix();
        try {
            SavepointRepublish.Written written =
                    SavepointRepublish.republish(savepoint, db.config(prefix));

            // B read to 11, past its own 10: A's 13 counts; D was away from 7 to 9 and sent 11;
            // E joined at 12.
            assertThat(oracle.unread(B, CHANNEL)).isEqualTo(1);
            assertThat(oracle.unread(D, CHANNEL)).isEqualTo(1);
            assertThat(oracle.unread(E, CHANNEL)).isEqualTo(1);
            assertThat(ChannelKeys.differences(0, prefix, oracle)).isEmpty();
            assertThat(written.channelIndexes()).isEqualTo(1);
            assertThat(written.tracks()).isEqualTo(4);

            Map<String, String> tracks = hash(RedisNames.channelTracksKey(prefix, D));
            assertThat(tracks.get(Long.toString(CHANNEL))).contains("\"members\":[[4,6],[10]]");
            assertThat(SavepointUser.inspect(savepoint, D).tracks()).isEqualTo(tracks);
            assertThat(SavepointUser.inspect(savepoint, READER).tracks()).isEmpty();

            // A member's own messages raise its cursor as its reads do; the reader who never
            // joined has none.
            assertThat(TestRedis.sortedSets(prefix).get(prefix + RedisNames.READERS + CHANNEL))
                    .isEqualTo(
                            Map.of(
                                    Long.toString(A), 13.0,
                                    Long.toString(B), 11.0,
                                    Long.toString(D), 11.0));
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    @Test
    void theSavepointWritesWhatTheJobWritesAfterTheSameHistory() throws Exception {
        String bootstrapped = TestRedis.uniquePrefix();
        String fed = TestRedis.uniquePrefix();
        try {
            SavepointRepublish.republish(savepoint, db.config(bootstrapped));
            run(db.config(fed), records(), events(), null);

            Map<String, Object> channels = unprefixed(ChannelKeys.contents(0, fed), fed);
            assertThat(channels).as("the job's channel keys").hasSizeGreaterThan(4);
            assertThat(unprefixed(ChannelKeys.contents(0, bootstrapped), bootstrapped))
                    .isEqualTo(channels);
            Map<String, Object> counts = unprefixed(counts(fed), fed);
            assertThat(counts).as("the job's other keys").isNotEmpty();
            assertThat(unprefixed(counts(bootstrapped), bootstrapped)).isEqualTo(counts);
        } finally {
            TestRedis.deleteKeys(bootstrapped);
            TestRedis.deleteKeys(fed);
        }
    }

    @Test
    void aJobRestoredFromTheBootstrapCountsLaterChannelRecordsAndReads() throws Exception {
        List<ConversationEvent> later =
                List.of(
                        ConversationEvent.message(CHANNEL, 14, B, T0 + 200, E),
                        ConversationEvent.left(CHANNEL, A, 15),
                        ConversationEvent.message(CHANNEL, 16, D, T0 + 202),
                        ConversationEvent.joined(CHANNEL, READER, 17),
                        // Too late: the group stays one, counted per member.
                        ConversationEvent.channel(GROUP),
                        ConversationEvent.message(GROUP, 5, A, T0 + 203));
        List<ChatEvent> laterEvents =
                List.of(
                        ChatEvent.message(B, READER, T0 + 250),
                        ChatEvent.conversationRead(E, CHANNEL, 14, T0 + 300),
                        ChatEvent.conversationRead(B, CHANNEL, 11, T0 + 300));
        List<ConversationEvent> allRecords = new ArrayList<>(records());
        allRecords.addAll(later);
        List<ChatEvent> allEvents = new ArrayList<>(events());
        allEvents.addAll(laterEvents);
        Oracle oracle = Oracle.of(allEvents, allRecords);
        String prefix = TestRedis.uniquePrefix();
        try {
            SavepointRepublish.republish(savepoint, db.config(prefix));
            run(db.config(prefix), later, laterEvents, savepoint);

            // B's own 14 raised its cursor past its read of 11; E read B's 14: D's 16 counts.
            assertThat(oracle.channels().unread(B, CHANNEL)).isEqualTo(1);
            assertThat(oracle.channels().unread(E, CHANNEL)).isEqualTo(1);
            assertThat(oracle.channels().left(A, CHANNEL)).isTrue();
            // The reader's cursor of the history, kept as a group's, goes to the stage at its join.
            assertThat(
                            hash(RedisNames.channelTracksKey(prefix, READER))
                                    .get(Long.toString(CHANNEL)))
                    .contains("\"read\":7");
            assertThat(ChannelKeys.differences(0, prefix, oracle.channels())).isEmpty();
            // B's mention of E enters E's badge: the fan-out knew E a member of the channel.
            assertThat(oracle.badge(E)).isEqualTo(1);
            assertThat(withoutChannels(TestRedis.strings(prefix), prefix))
                    .isEqualTo(oracle.redisSenderKeys(prefix));
            assertThat(oracle.conversationUnread().get(B)).containsEntry(GROUP, 1L);
            Map<String, Map<String, String>> hashes =
                    new TreeMap<>(oracle.redisConversationHashes(prefix));
            hashes.putAll(oracle.redisMentionHashes(prefix));
            hashes.putAll(oracle.redisChannelMentionHashes(prefix));
            hashes.putAll(oracle.redisTotals(prefix));
            assertThat(withoutChannels(TestRedis.hashes(prefix), prefix)).isEqualTo(hashes);
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    /**
     * Random channels (several members, joins, leaves and returns, a join and a leave at one seq)
     * with what their tables can hold: roots naming no one, memberships, and reads. The seed is
     * printed with a failure.
     */
    @Test
    void aRandomChannelHistoryBootstrapsToWhatTheJobWrites() throws Exception {
        long seed = System.nanoTime();
        ChannelTraffic.Traffic traffic =
                new ChannelTraffic(
                                new Random(seed),
                                72_001,
                                97_001,
                                OracleChannels.DEFAULT_MAX_CHANNEL_SEQ)
                        .traffic(300, 8);
        List<ConversationEvent> records = new ArrayList<>();
        for (ConversationEvent e : traffic.records()) {
            if (e.kind == ConversationEvent.Kind.CHANNEL || e.isMembership()) {
                records.add(e);
            } else if (e.isMessage() && e.threadSeq == 0) {
                records.add(
                        ConversationEvent.message(e.conversationId, e.seq, e.senderId, e.sentAt));
            }
        }
        List<ChatEvent> events = new ArrayList<>();
        events.add(ChatEvent.message(72_001, 72_002, T0));
        traffic.facts().stream()
                .filter(e -> e.kind == ChatEvent.Kind.CONVERSATION_READ)
                .forEach(events::add);
        OracleChannels oracle = Oracle.of(events, records).channels();
        String bootstrapped = TestRedis.uniquePrefix();
        String fed = TestRedis.uniquePrefix();
        try (HistoryDatabase random = HistoryDatabase.create()) {
            random.recordGroups(records);
            random.record(events);
            String output = root.resolve("random").toUri().toString();
            Bootstrap.bootstrap(random.config(""), Bootstrap.Tables.DEFAULT, output);
            SavepointRepublish.republish(output, random.config(bootstrapped));
            run(random.config(fed), records, events, null);

            assertThat(ChannelKeys.differences(0, bootstrapped, oracle))
                    .as("seed %d", seed)
                    .isEmpty();
            assertThat(unprefixed(ChannelKeys.contents(0, bootstrapped), bootstrapped))
                    .as("seed %d", seed)
                    .isEqualTo(unprefixed(ChannelKeys.contents(0, fed), fed));
            assertThat(unprefixed(counts(bootstrapped), bootstrapped))
                    .as("seed %d", seed)
                    .isEqualTo(unprefixed(counts(fed), fed));
            assertThat(oracle.channels().stream().mapToLong(c -> oracle.users(c).size()).sum())
                    .as("members")
                    .isGreaterThan(oracle.channels().size());
        } finally {
            TestRedis.deleteKeys(bootstrapped);
            TestRedis.deleteKeys(fed);
        }
    }

    @Test
    void withoutTheChannelsTableEveryConversationIsAGroup() throws Exception {
        try (HistoryDatabase old = HistoryDatabase.create()) {
            old.recordGroups(records());
            old.record(events());
            old.execute("DROP TABLE " + Bootstrap.DEFAULT_CHANNELS_TABLE);
            String output = root.resolve("without-channels").toUri().toString();

            Bootstrap.bootstrap(old.config(""), Bootstrap.Tables.DEFAULT, output);

            assertThat(CounterSavepoints.operatorState(output, ChannelSavepoints.CHANNELS))
                    .isEmpty();
            List<ConversationEvent> undeclared = new ArrayList<>(records());
            undeclared.remove(ConversationEvent.channel(CHANNEL));
            Map<Long, Long> unread = Oracle.of(events(), undeclared).conversationUnread().get(B);
            assertThat(unread).as("the channel counted as a group").containsEntry(CHANNEL, 1L);
            UserState b =
                    SavepointInspect.users(output).stream()
                            .filter(user -> user.userId() == B)
                            .findFirst()
                            .orElseThrow();
            assertThat(b.unreadSeqs())
                    .isEqualTo(unread.values().stream().mapToLong(Long::longValue).sum());

            Bootstrap.Tables named =
                    new Bootstrap.Tables(
                            Bootstrap.DEFAULT_MESSAGES_TABLE,
                            Bootstrap.DEFAULT_GROUP_MESSAGES_TABLE,
                            Bootstrap.DEFAULT_MEMBERSHIP_TABLE,
                            "no_channels");
            Path never = root.resolve("never-written");
            assertThatThrownBy(
                            () ->
                                    Bootstrap.bootstrap(
                                            old.config(""), named, never.toUri().toString()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("cannot read table no_channels (");
            assertThat(never).doesNotExist();
        }
    }

    /**
     * Runs the job over {@code records} (in their order) and {@code events} (a source may not be
     * empty), from {@code restored} unless null, to the Redis of {@code config}; returns when it
     * has taken them all.
     */
    private static void run(
            UnreadConfig config,
            List<ConversationEvent> records,
            List<ChatEvent> events,
            String restored)
            throws Exception {
        Configuration settings = JobSettings.of(config);
        if (restored != null) {
            settings.set(StateRecoveryOptions.SAVEPOINT_PATH, restored);
        }
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(settings);
        // One split per source, so chat-conversations arrive in their order.
        env.setParallelism(1);
        new UnreadJob(
                        EventSources.of(events, true),
                        EventSources.of(events, false),
                        EventSources.conversations(records),
                        new JobOutputs(
                                new RedisCounts(config),
                                new RedisReceipts(config),
                                new DiscardingSink<>(),
                                new DiscardingSink<>(),
                                new RedisReaders(config),
                                new DiscardingSink<>(),
                                new RedisChannels(config)))
                .execute(env);
    }

    /** Every key under {@code prefix} but the channels' (and the push's versions). */
    private static Map<String, Object> counts(String prefix) {
        Map<String, Object> counts = new TreeMap<>(TestRedis.strings(prefix));
        counts.putAll(TestRedis.hashes(prefix));
        counts.putAll(TestRedis.sortedSets(prefix));
        counts.putAll(TestRedis.sets(prefix));
        return withoutChannels(counts, prefix);
    }

    /** {@code keys} but the channels' index keys and tracks, which ChannelKeys compares. */
    private static <V> Map<String, V> withoutChannels(Map<String, V> keys, String prefix) {
        Map<String, V> result = new TreeMap<>(keys);
        result.keySet()
                .removeIf(
                        key ->
                                key.startsWith(prefix + RedisNames.CHANNEL)
                                        || key.startsWith(prefix + RedisNames.CHANNEL_TRACKS));
        return result;
    }

    private static Map<String, Object> unprefixed(Map<String, Object> keys, String prefix) {
        Map<String, Object> result = new TreeMap<>();
        keys.forEach((key, value) -> result.put(key.substring(prefix.length()), value));
        return result;
    }

    private static Map<String, String> hash(String key) {
        try (var jedis = TestRedis.connect(0)) {
            return jedis.hgetAll(key);
        }
    }
}
