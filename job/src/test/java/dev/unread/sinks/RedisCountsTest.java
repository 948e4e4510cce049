package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import dev.unread.events.UnreadCount;
import dev.unread.testing.CapturedLog;
import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** {@link RedisCounts}' writer against the real Redis, its clock moved by the test. */
class RedisCountsTest {
    private static final String URL = "redis://127.0.0.1:6379/0";
    private static final long INTERVAL_MS = 200;
    private static final long USER = 10086;
    private static final long CONVERSATION = 80001;

    /**
     * Per changed user per flush, for a user with a live stream (USER is one): SET of the version
     * key and PUBLISH of UNREAD_CHANGED.
     */
    private static final int PUSH = 2;

    /** Per flush: ZMSCORE of the changed users in the live users. */
    private static final int LIVE = 1;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final TestWriterContext context = new TestWriterContext();
    private String prefix;
    private Jedis redis;
    private SinkWriter<UnreadCount> writer;
    private final List<SinkWriter<UnreadCount>> otherWriters = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        prefix = TestRedis.uniquePrefix();
        redis = TestRedis.connect(0);
        writer = new RedisCounts(TestRedis.config(URL, prefix, INTERVAL_MS)).createWriter(context);
        TestRedis.live(redis, prefix, USER);
    }

    @AfterEach
    void stop() throws Exception {
        writer.close();
        for (SinkWriter<UnreadCount> other : otherWriters) {
            other.close();
        }
        TestRedis.deleteKeys(0, prefix);
        redis.close();
    }

    /** A writer of its own to {@code url}, under this test's prefix; closed after the test. */
    private SinkWriter<UnreadCount> writerTo(String url) throws IOException {
        SinkWriter<UnreadCount> other =
                new RedisCounts(TestRedis.config(url, prefix, INTERVAL_MS))
                        .createWriter(new TestWriterContext());
        otherWriters.add(other);
        return other;
    }

    private String badge(long userId) {
        return redis.get(Count.SENDERS.key(prefix, userId));
    }

    private Map<String, String> conversations(long userId) {
        return redis.hgetAll(Count.CONVERSATION.key(prefix, userId));
    }

    /**
     * Jedis warns on every connection it opens that it cannot negotiate RESP3 unless the client
     * config fixes the protocol (RedisEndpoint.clientConfigBuilder): one line per writer open and
     * reconnect on every TaskManager, noise that hides real warnings.
     */
    @Test
    void openingTheConnectionLogsNoWarningFromJedis() throws Exception {
        try (CapturedLog log = CapturedLog.start()) {
            writer.write(UnreadCount.senders(USER, 1), null);
            writer.flush(false);

            assertThat(badge(USER)).as("the writer connected and wrote").isEqualTo("1");
            assertThat(log.text()).doesNotContain("WARN redis.clients");
        }
    }

    @Test
    void updatesOfOneKeyInOneIntervalCostOneCommandCarryingTheLastValue() throws Exception {
        writer.write(UnreadCount.senders(USER, 1), null);
        writer.write(UnreadCount.senders(USER, 2), null);
        writer.write(UnreadCount.senders(USER, 3), null);
        writer.write(UnreadCount.conversation(USER, CONVERSATION, 5), null);
        writer.write(UnreadCount.conversation(USER, CONVERSATION, 4), null);
        context.advance(INTERVAL_MS);
        awaitCommands(2 + PUSH + LIVE);

        assertThat(badge(USER)).isEqualTo("3");
        assertThat(conversations(USER)).containsExactly(Map.entry("80001", "4"));
        assertThat(context.counter("redisCommands")).isEqualTo(2 + PUSH + LIVE);
        assertThat(context.counter("redisCoalescedUpdates")).isEqualTo(3);
    }

    @Test
    void theFieldsOfOneKeyInOneFlushCostOneCommandToSetAndOneToDelete() throws Exception {
        // Issue 24: a user's conversations, and the totals, change several fields at once.
        for (long c = CONVERSATION; c < CONVERSATION + 5; c++) {
            writer.write(UnreadCount.conversation(USER, c, c - CONVERSATION + 1), null);
        }
        writer.write(UnreadCount.conversation(USER, CONVERSATION + 5, 0), null);
        writer.write(UnreadCount.conversation(USER, CONVERSATION + 6, 0), null);
        writer.write(UnreadCount.total(USER, Count.TOTAL_MESSAGES, 15), null);
        writer.write(UnreadCount.total(USER, Count.TOTAL_CONVERSATIONS, 5), null);
        writer.write(UnreadCount.marked(USER, CONVERSATION, true), null);
        writer.write(UnreadCount.marked(USER, CONVERSATION + 1, true), null);
        writer.flush(false);

        assertThat(conversations(USER))
                .containsOnly(
                        Map.entry("80001", "1"),
                        Map.entry("80002", "2"),
                        Map.entry("80003", "3"),
                        Map.entry("80004", "4"),
                        Map.entry("80005", "5"));
        assertThat(redis.hgetAll(Count.TOTAL_MESSAGES.key(prefix, USER)))
                .containsOnly(Map.entry("messages", "15"), Map.entry("conversations", "5"));
        assertThat(redis.smembers(Count.MARKED.key(prefix, USER))).containsOnly("80001", "80002");
        // HSET and HDEL of the conversations, HSET of the totals, SADD of the marks.
        assertThat(context.counter("redisCommands")).isEqualTo(4 + PUSH + LIVE);
    }

    @Test
    void theBadgesOfOneFlushCostOneCommandToSetAndOneToDeleteWhateverTheirUsers() throws Exception {
        // Issue 46: at production sparsity every badge a flush writes is another user's key.
        for (long u = 1; u <= 5; u++) {
            writer.write(UnreadCount.senders(u, u), null);
        }
        writer.flush(false);
        long first = context.counter("redisCommands");
        for (long u = 1; u <= 3; u++) {
            writer.write(UnreadCount.senders(u, 0), null);
        }
        for (long u = 6; u <= 8; u++) {
            writer.write(UnreadCount.senders(u, u), null);
        }
        writer.flush(false);

        for (long u = 1; u <= 3; u++) {
            assertThat(redis.exists(Count.SENDERS.key(prefix, u))).isFalse();
        }
        for (long u = 4; u <= 8; u++) {
            assertThat(badge(u)).isEqualTo(String.valueOf(u));
        }
        assertThat(first).as("MSET of five badges, the live users").isEqualTo(1 + LIVE);
        assertThat(context.counter("redisCommands") - first)
                .as("DEL of three badges, MSET of three, the live users")
                .isEqualTo(2 + LIVE);
        assertThat(context.counter(RedisCounts.UNCHANGED_METRIC)).isZero();
    }

    @Test
    void manyBadgesAreSetInCommandsOfBoundedSize() throws Exception {
        int users = 2 * KeyCommands.FIELDS_PER_COMMAND + 1;
        for (int u = 1; u <= users; u++) {
            writer.write(UnreadCount.senders(u, u), null);
        }
        writer.flush(false);

        assertThat(badge(users)).isEqualTo(String.valueOf(users));
        assertThat(TestRedis.keys(redis, prefix)).hasSize(users + 1);
        assertThat(context.counter("redisCommands")).isEqualTo(3 + LIVE);
    }

    @Test
    void manyFieldsOfOneKeyAreSetInCommandsOfBoundedSize() throws Exception {
        // A republish writes every conversation of a user at once; one command of them all would
        // hold Redis (and a wrong-type script's Lua stack) for as long as it takes.
        int fields = 2 * KeyCommands.FIELDS_PER_COMMAND + 1;
        for (int c = 1; c <= fields; c++) {
            writer.write(UnreadCount.conversation(USER, c, c), null);
        }
        redis.set(Count.CONVERSATION.key(prefix, USER), "not a hash");
        writer.flush(false);

        assertThat(conversations(USER)).hasSize(fields).containsEntry("1", "1");
        assertThat(context.counter("redisCommands")).isEqualTo(3 + PUSH + LIVE);
        assertThat(context.counter("redisWrongTypeKeysReplaced")).isEqualTo(1);
    }

    @Test
    void nothingIsWrittenBeforeTheIntervalEnds() throws Exception {
        writer.write(UnreadCount.senders(USER, 2), null);
        context.advance(INTERVAL_MS - 1);
        assertThat(badge(USER)).isNull();

        context.advance(1);
        awaitCommands(1 + PUSH + LIVE);
        assertThat(badge(USER)).isEqualTo("2");
    }

    @Test
    void theIntervalRestartsWithTheFirstUpdateAfterAFlush() throws Exception {
        writer.write(UnreadCount.senders(USER, 1), null);
        context.advance(INTERVAL_MS);
        writer.write(UnreadCount.senders(USER, 2), null);
        context.advance(INTERVAL_MS - 1);
        awaitCommands(1 + PUSH + LIVE);
        assertThat(badge(USER)).isEqualTo("1");

        context.advance(1);
        awaitCommands(2 * (1 + PUSH + LIVE));
        assertThat(badge(USER)).isEqualTo("2");
        assertThat(context.counter("redisCommands")).isEqualTo(2 * (1 + PUSH + LIVE));
    }

    @Test
    void aCheckpointFlushStartsANewIntervalForTheNextUpdate() throws Exception {
        writer.write(UnreadCount.senders(USER, 1), null);
        context.advance(INTERVAL_MS / 2);
        writer.flush(false);
        writer.write(UnreadCount.senders(USER, 2), null);
        context.advance(INTERVAL_MS / 2);
        assertThat(badge(USER)).isEqualTo("1");

        context.advance(INTERVAL_MS / 2);
        awaitCommands(2 * (1 + PUSH + LIVE));
        assertThat(badge(USER)).isEqualTo("2");
    }

    @Test
    void zeroDeletesTheBadgeKeyAndOnlyThatConversationsField() throws Exception {
        writer.write(UnreadCount.senders(USER, 2), null);
        writer.write(UnreadCount.conversation(USER, CONVERSATION, 5), null);
        writer.write(UnreadCount.conversation(USER, 80002, 1), null);
        writer.flush(false);
        assertThat(badge(USER)).isEqualTo("2");
        assertThat(conversations(USER)).containsOnlyKeys("80001", "80002");

        writer.write(UnreadCount.senders(USER, 0), null);
        writer.write(UnreadCount.conversation(USER, CONVERSATION, 0), null);
        writer.flush(false);

        assertThat(redis.exists(Count.SENDERS.key(prefix, USER))).isFalse();
        assertThat(conversations(USER)).containsExactly(Map.entry("80002", "1"));
    }

    @Test
    void aConversationBackToZeroWithinTheIntervalCostsOneDeletion() throws Exception {
        writer.write(UnreadCount.conversation(USER, CONVERSATION, 5), null);
        writer.flush(false);
        writer.write(UnreadCount.conversation(USER, CONVERSATION, 6), null);
        writer.write(UnreadCount.conversation(USER, CONVERSATION, 0), null);
        writer.flush(false);

        assertThat(redis.exists(Count.CONVERSATION.key(prefix, USER))).isFalse();
        assertThat(context.counter("redisCommands")).isEqualTo(2 * (1 + PUSH + LIVE));
    }

    @Test
    void flushWritesEverythingBufferedAcrossSeveralRoundTrips() throws Exception {
        int users = RedisConnection.BATCH_SIZE * 2 + 500;
        for (int u = 1; u <= users; u++) {
            writer.write(UnreadCount.senders(u, u), null);
            writer.write(UnreadCount.conversation(u, CONVERSATION, u + 1), null);
        }
        writer.flush(true);

        // The badge and the conversations of each user (none of them live: no versions), and
        // the live users.
        assertThat(TestRedis.keys(redis, prefix)).hasSize(2 * users + 1);
        assertThat(badge(users)).isEqualTo(String.valueOf(users));
        assertThat(conversations(users))
                .containsExactly(Map.entry("80001", String.valueOf(users + 1)));
        // An HSET per user, the badges in MSETs of at most 500, the live users.
        long commands = users + users / KeyCommands.FIELDS_PER_COMMAND + LIVE;
        assertThat(context.counter("redisCommands")).isEqualTo(commands);
        assertThat(context.counter(RedisCounts.FLUSHES_METRIC)).isEqualTo(1L);
        // One round trip per batch of 1,000 commands, the read of who is live ending the last.
        assertThat(context.counter(RedisCounts.ROUND_TRIPS_METRIC))
                .isEqualTo(
                        (commands + RedisConnection.BATCH_SIZE - 1) / RedisConnection.BATCH_SIZE);
    }

    @Test
    void aFullBufferIsSentWithoutWaitingForTheInterval() throws Exception {
        writer.write(UnreadCount.senders(USER, 1), null);
        for (int u = 1; u < RedisWriter.MAX_BUFFERED; u++) {
            writer.write(UnreadCount.senders(u, 1), null);
        }
        awaitCommands(LIVE + 1 + PUSH);

        // The live user's badge and version, and the live users; the others wait for the
        // background flush (RedisCountsBackgroundTest).
        assertThat(TestRedis.keys(redis, prefix)).hasSize(3);
        assertThat(badge(USER)).isEqualTo("1");
    }

    @Test
    void aRecordReusedByFlinkAfterWriteDoesNotChangeWhatIsWritten() throws Exception {
        UnreadCount reused = UnreadCount.senders(USER, 4);
        writer.write(reused, null);
        reused.userId = USER + 1;
        reused.kind = Count.CONVERSATION;
        reused.conversationId = CONVERSATION;
        reused.count = 9;
        writer.write(reused, null);
        reused.count = 0;
        writer.flush(false);

        assertThat(badge(USER)).isEqualTo("4");
        assertThat(conversations(USER + 1)).containsExactly(Map.entry("80001", "9"));
    }

    @Test
    void keysLiveUnderTheConfiguredPrefixWithTheContractsNames() throws Exception {
        writer.write(UnreadCount.senders(USER, 3), null);
        writer.write(UnreadCount.conversation(USER, CONVERSATION, 18), null);
        writer.flush(false);

        Map<String, Object> expected = new HashMap<>();
        expected.put(prefix + "unread:senders:10086", "3");
        expected.put(prefix + "chat:unread:10086", Map.of("80001", "18"));
        assertThat(TestRedis.contents(redis, prefix)).isEqualTo(expected);
    }

    @Test
    void theDatabaseInTheUrlIsTheOneWrittenTo() throws Exception {
        SinkWriter<UnreadCount> db2 = writerTo("redis://127.0.0.1:6379/2");
        try (Jedis redis2 = TestRedis.connect(2)) {
            db2.write(UnreadCount.senders(USER, 7), null);
            db2.flush(false);

            assertThat(redis2.get(Count.SENDERS.key(prefix, USER))).isEqualTo("7");
            assertThat(badge(USER)).isNull();
        } finally {
            TestRedis.deleteKeys(2, prefix);
        }
    }

    @Test
    void userAndPasswordInTheUrlAuthenticate() throws Exception {
        // An ACL user of this test's own, allowed only its prefix: the shared server keeps its
        // password-less default user.
        String user = "unread-test-" + UUID.randomUUID();
        // Keys and channels under the prefix: the sink publishes UNREAD_CHANGED too.
        redis.aclSetUser(
                user, "on", ">pa:ss@word", "~" + prefix + "*", "&" + prefix + "*", "+@all");
        String url = "redis://" + user + ":pa%3Ass%40word@127.0.0.1:6379/0";
        try {
            SinkWriter<UnreadCount> authenticated = writerTo(url);
            authenticated.write(UnreadCount.senders(USER, 5), null);
            authenticated.flush(false);
            assertThat(badge(USER)).isEqualTo("5");
        } finally {
            redis.aclDelUser(user);
        }
    }

    @Test
    void aWrongPasswordFailsTheFlushInsteadOfDroppingTheWrite() throws Exception {
        String user = "unread-test-" + UUID.randomUUID();
        redis.aclSetUser(user, "on", ">right", "~" + prefix + "*", "+@all");
        String url = "redis://" + user + ":wrong@127.0.0.1:6379/0";
        try {
            SinkWriter<UnreadCount> refused = writerTo(url);
            refused.write(UnreadCount.senders(USER, 5), null);
            assertThatThrownBy(() -> refused.flush(false)).isInstanceOf(IOException.class);
        } finally {
            redis.aclDelUser(user);
        }
    }

    @Test
    void keysOfTheWrongTypeInTheJobsKeySpaceAreReplaced() throws Exception {
        // Issue 17, item 7: leftovers or another application's keys where the job writes.
        long other = USER + 1;
        long third = USER + 2;
        redis.set(Count.CONVERSATION.key(prefix, USER), "not a hash");
        redis.sadd(Count.CONVERSATION.key(prefix, other), "a set");
        redis.rpush(Count.CONVERSATION.key(prefix, third), "a list");
        redis.rpush(Count.SENDERS.key(prefix, USER), "a list");
        writer.write(UnreadCount.conversation(USER, CONVERSATION, 3), null);
        writer.write(UnreadCount.conversation(other, CONVERSATION, 0), null);
        writer.write(UnreadCount.conversation(third, CONVERSATION, 2), null);
        writer.write(UnreadCount.conversation(third, CONVERSATION + 1, 4), null);
        writer.write(UnreadCount.senders(USER, 5), null);

        writer.flush(false);

        assertThat(conversations(USER)).containsExactly(Map.entry("80001", "3"));
        assertThat(redis.exists(Count.CONVERSATION.key(prefix, other))).isFalse();
        assertThat(conversations(third))
                .containsOnly(Map.entry("80001", "2"), Map.entry("80002", "4"));
        assertThat(badge(USER)).isEqualTo("5");
        assertThat(context.counter("redisWrongTypeKeysReplaced")).isEqualTo(3);
        // The third user's two conversations in one HSET.
        assertThat(context.counter("redisCommands")).isEqualTo(4 + PUSH + LIVE);
    }

    @Test
    void mentionsMarksAndTotalsGoToTheirKeysAbsoluteAndCoalesced() throws Exception {
        long other = CONVERSATION + 1;
        writer.write(UnreadCount.mentions(USER, CONVERSATION, 1), null);
        writer.write(UnreadCount.mentions(USER, CONVERSATION, 2), null);
        writer.write(UnreadCount.mentions(USER, other, 0), null);
        writer.write(UnreadCount.marked(USER, CONVERSATION, true), null);
        writer.write(UnreadCount.marked(USER, other, true), null);
        writer.write(UnreadCount.marked(USER, other, false), null);
        writer.write(UnreadCount.total(USER, Count.TOTAL_MESSAGES, 7), null);
        writer.write(UnreadCount.total(USER, Count.TOTAL_MENTIONS, 2), null);
        writer.write(UnreadCount.total(USER, Count.TOTAL_CONVERSATIONS, 0), null);
        writer.flush(false);

        assertThat(redis.hgetAll(Count.MENTIONS.key(prefix, USER)))
                .containsExactly(Map.entry("80001", "2"));
        assertThat(redis.smembers(Count.MARKED.key(prefix, USER))).containsExactly("80001");
        assertThat(redis.hgetAll(Count.TOTAL_MESSAGES.key(prefix, USER)))
                .containsOnly(Map.entry("messages", "7"), Map.entry("mentions", "2"));
        // A command to set and one to delete per key: 2 mentions, 2 marks, 2 totals.
        assertThat(context.counter("redisCommands")).isEqualTo(6 + PUSH + LIVE);

        writer.write(UnreadCount.marked(USER, CONVERSATION, false), null);
        writer.write(UnreadCount.mentions(USER, CONVERSATION, 0), null);
        writer.write(UnreadCount.total(USER, Count.TOTAL_MESSAGES, 0), null);
        writer.write(UnreadCount.total(USER, Count.TOTAL_MENTIONS, 0), null);
        writer.flush(false);

        assertThat(redis.exists(Count.MARKED.key(prefix, USER))).isFalse();
        assertThat(redis.exists(Count.MENTIONS.key(prefix, USER))).isFalse();
        assertThat(redis.exists(Count.TOTAL_MESSAGES.key(prefix, USER))).isFalse();
    }

    @Test
    void aMarkedUnreadKeyOfTheWrongTypeIsReplacedByTheSet() throws Exception {
        redis.set(Count.MARKED.key(prefix, USER), "not a set");
        redis.rpush(Count.TOTAL_MESSAGES.key(prefix, USER), "a list");
        writer.write(UnreadCount.marked(USER, CONVERSATION, true), null);
        writer.write(UnreadCount.total(USER, Count.TOTAL_MESSAGES, 4), null);
        writer.flush(false);

        assertThat(redis.smembers(Count.MARKED.key(prefix, USER))).containsExactly("80001");
        assertThat(redis.hgetAll(Count.TOTAL_MESSAGES.key(prefix, USER)))
                .containsExactly(Map.entry("messages", "4"));
        assertThat(context.counter("redisWrongTypeKeysReplaced")).isEqualTo(2);
    }

    @Test
    void unreadChangedCarriesTheMentionsTotalsAndMarksThatChanged() throws Exception {
        try (TestRedis.Subscriber changes =
                new TestRedis.Subscriber(RedisNames.unreadChangedChannel(prefix, USER))) {
            writer.write(UnreadCount.conversation(USER, CONVERSATION, 18), null);
            writer.write(UnreadCount.mentions(USER, CONVERSATION, 1), null);
            writer.write(UnreadCount.marked(USER, 80002, false), null);
            writer.write(UnreadCount.total(USER, Count.TOTAL_MESSAGES, 18), null);
            writer.write(UnreadCount.total(USER, Count.TOTAL_MENTIONS, 1), null);
            writer.write(UnreadCount.total(USER, Count.TOTAL_CONVERSATIONS, 1), null);
            writer.flush(false);

            JsonNode message = JSON.readTree(changes.next(10_000));
            long version = message.get("version").asLong();
            assertThat(message)
                    .isEqualTo(
                            JSON.readTree(
                                    "{\"type\":\"UNREAD_CHANGED\",\"userId\":10086,\"version\":"
                                            + version
                                            + ",\"conversations\":{\"80001\":18},"
                                            + "\"mentions\":{\"80001\":1},"
                                            + "\"totals\":{\"messages\":18,\"mentions\":1,"
                                            + "\"conversations\":1},"
                                            + "\"markedUnread\":{\"80002\":false}}"));
        }
    }

    /**
     * After a restore the counter rewrites each count it touches once, even when the replay leaves
     * it where it was: Redis, and a live client, may hold the value of the timeline the restore
     * rolled back. So the sink publishes every count it is given, unchanged or not; a client
     * applies the absolute value it already has, or corrects one it should not have.
     */
    @Test
    void aUserWithoutALiveStreamGetsCountsButNoVersionAndNoMessage() throws Exception {
        // Issue 24: the change messages of users nobody watches were a third of the commands.
        long watched = USER;
        long unwatched = USER + 1;
        long expired = USER + 2;
        redis.zadd(
                RedisNames.liveUsersKey(prefix),
                System.currentTimeMillis() - 1,
                Long.toString(expired));
        try (TestRedis.Subscriber changes =
                new TestRedis.Subscriber(
                        RedisNames.unreadChangedChannel(prefix, watched),
                        RedisNames.unreadChangedChannel(prefix, unwatched),
                        RedisNames.unreadChangedChannel(prefix, expired))) {
            for (long user : new long[] {watched, unwatched, expired}) {
                writer.write(UnreadCount.senders(user, 1), null);
            }
            writer.flush(false);

            assertThat(JSON.readTree(changes.next(10_000)).get("userId").asLong())
                    .isEqualTo(watched);
            assertThat(changes.next(500)).isNull();
        }
        for (long user : new long[] {watched, unwatched, expired}) {
            assertThat(badge(user)).isEqualTo("1");
        }
        assertThat(redis.exists(RedisNames.versionKey(prefix, watched))).isTrue();
        assertThat(redis.exists(RedisNames.versionKey(prefix, unwatched))).isFalse();
        assertThat(redis.exists(RedisNames.versionKey(prefix, expired))).isFalse();
        // One MSET of the three badges.
        assertThat(context.counter("redisCommands")).isEqualTo(1 + LIVE + PUSH);
    }

    @Test
    void aLiveUsersKeyOfTheWrongTypeIsReplacedAndNobodyIsLive() throws Exception {
        redis.del(RedisNames.liveUsersKey(prefix));
        redis.set(RedisNames.liveUsersKey(prefix), "not a sorted set");
        writer.write(UnreadCount.senders(USER, 4), null);
        writer.flush(false);

        assertThat(badge(USER)).isEqualTo("4");
        assertThat(redis.exists(RedisNames.liveUsersKey(prefix))).isFalse();
        assertThat(redis.exists(RedisNames.versionKey(prefix, USER))).isFalse();
        assertThat(context.counter("redisWrongTypeKeysReplaced")).isEqualTo(1);
    }

    @Test
    void aCountWrittenAgainWithTheSameValueIsPublishedAgain() throws Exception {
        try (TestRedis.Subscriber changes =
                new TestRedis.Subscriber(RedisNames.unreadChangedChannel(prefix, USER))) {
            writer.write(UnreadCount.senders(USER, 2), null);
            writer.flush(false);
            JsonNode first = JSON.readTree(changes.next(10_000));

            writer.write(UnreadCount.senders(USER, 2), null);
            writer.flush(false);
            JsonNode again = JSON.readTree(changes.next(10_000));

            assertThat(again.get("unreadSenders").asLong()).isEqualTo(2);
            assertThat(again.get("version").asLong()).isGreaterThan(first.get("version").asLong());
        }
    }

    @Test
    void aCommandRedisRefusesForAnotherReasonFailsTheFlush() throws Exception {
        // An ACL user allowed everything but HSET: Redis answers NOPERM, which no retry changes.
        String user = "unread-test-" + UUID.randomUUID();
        redis.aclSetUser(user, "on", ">pw", "~" + prefix + "*", "+@all", "-hset");
        try {
            SinkWriter<UnreadCount> refused = writerTo("redis://" + user + ":pw@127.0.0.1:6379/0");
            refused.write(UnreadCount.conversation(USER, CONVERSATION, 3), null);
            assertThatThrownBy(() -> refused.flush(false))
                    .isInstanceOf(IOException.class)
                    .rootCause()
                    .hasMessageContaining("NOPERM");
        } finally {
            redis.aclDelUser(user);
        }
    }

    @Test
    void aFlushPublishesEachChangedUsersCountsOnceAfterWritingThemAndTheirVersion()
            throws Exception {
        try (TestRedis.Subscriber changes =
                        new TestRedis.Subscriber(RedisNames.unreadChangedChannel(prefix, USER));
                TestRedis.Subscriber others =
                        new TestRedis.Subscriber(
                                RedisNames.unreadChangedChannel(prefix, USER + 1))) {
            TestRedis.live(redis, prefix, USER + 1);
            writer.write(UnreadCount.senders(USER, 1), null);
            writer.write(UnreadCount.senders(USER, 3), null);
            writer.write(UnreadCount.conversation(USER, CONVERSATION, 5), null);
            writer.write(UnreadCount.conversation(USER, CONVERSATION, 4), null);
            writer.write(UnreadCount.conversation(USER, 80002, 0), null);
            writer.write(UnreadCount.conversation(USER + 1, CONVERSATION, 7), null);
            writer.flush(false);

            JsonNode message = JSON.readTree(changes.next(10_000));
            long version = message.get("version").asLong();
            assertThat(message)
                    .isEqualTo(
                            JSON.readTree(
                                    "{\"type\":\"UNREAD_CHANGED\","
                                            + "\"userId\":10086,\"version\":"
                                            + version
                                            + ",\"unreadSenders\":3,"
                                            + "\"conversations\":{\"80001\":4,\"80002\":0}}"));
            assertThat(redis.get(RedisNames.versionKey(prefix, USER)))
                    .isEqualTo(Long.toString(version));
            assertThat(redis.ttl(RedisNames.versionKey(prefix, USER)))
                    .isPositive()
                    .isLessThanOrEqualTo(RedisNames.VERSION_TTL_SECONDS);
            assertThat(changes.next(200)).as("one message per user per flush").isNull();
            // Only what changed: the other user's badge did not.
            assertThat(JSON.readTree(others.next(10_000)).has("unreadSenders")).isFalse();
        }
    }

    @Test
    void versionsRiseWithEveryFlushAndAcrossANewWriterAsAfterARestore() throws Exception {
        try (TestRedis.Subscriber changes =
                new TestRedis.Subscriber(RedisNames.unreadChangedChannel(prefix, USER))) {
            List<Long> versions = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                writer.write(UnreadCount.senders(USER, i), null);
                writer.flush(false);
                versions.add(JSON.readTree(changes.next(10_000)).get("version").asLong());
            }
            // A restore: a new writer, in a new task, with no memory of the old one.
            SinkWriter<UnreadCount> restored = writerTo(URL);
            restored.write(UnreadCount.senders(USER, 2), null);
            restored.flush(false);
            versions.add(JSON.readTree(changes.next(10_000)).get("version").asLong());

            assertThat(versions).isSorted().doesNotHaveDuplicates();
            assertThat(redis.get(RedisNames.versionKey(prefix, USER)))
                    .isEqualTo(Long.toString(versions.get(3)));
        }
    }

    @Test
    void versionsRiseAcrossFlushesOfTheTimerAndOfCheckpointsWhicheverBufferTheyTake()
            throws Exception {
        try (TestRedis.Subscriber changes =
                new TestRedis.Subscriber(RedisNames.unreadChangedChannel(prefix, USER))) {
            List<Long> versions = new ArrayList<>();
            List<Long> counts = new ArrayList<>();
            long commands = 0;
            for (int i = 1; i <= 6; i++) {
                writer.write(UnreadCount.senders(USER, i), null);
                // The count, the version and the change message.
                commands += 3;
                if (i % 2 == 1) {
                    // Sent by the sender thread when the interval ends, from the buffer it took.
                    context.advance(INTERVAL_MS);
                    awaitCommands(commands);
                } else {
                    writer.flush(false);
                }
                var change = JSON.readTree(changes.next(10_000));
                versions.add(change.get("version").asLong());
                counts.add(change.get("unreadSenders").asLong());
            }

            assertThat(versions).isSorted().doesNotHaveDuplicates();
            assertThat(counts).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
            assertThat(redis.get(Count.SENDERS.key(prefix, USER))).isEqualTo("6");
        }
    }

    /** Background flushes land a moment after the timer fired: wait for their commands. */
    private void awaitCommands(long commands) throws Exception {
        Poll.until(
                commands + " commands acknowledged",
                Duration.ofSeconds(30),
                () -> context.counter("redisCommands") >= commands ? true : null);
    }
}
