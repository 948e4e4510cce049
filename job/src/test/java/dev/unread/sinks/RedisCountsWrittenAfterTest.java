package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import dev.unread.events.UnreadCount;
import dev.unread.testing.TestRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The job's counts writer ({@link RedisCounts#ofCounter}) against the real Redis: no command that
 * changes nothing where Redis holds what the counter showed (a fresh job, a restore after a stop
 * with a savepoint), and every count written where Redis may hold what a lost timeline wrote (a
 * restore after writes past the checkpoint, and every later restore of that lineage). Issue 46.
 *
 * <p>The counts are the counter's first writes of a record in an incarnation: the user's one
 * message in a conversation, with its mention count, mark and zero totals unchanged.
 */
class RedisCountsWrittenAfterTest {
    private static final String URL = "redis://127.0.0.1:6379/0";
    private static final long INTERVAL_MS = 200;
    private static final long USER = 10086;
    private static final long CONVERSATION = 80001;

    private String prefix;
    private Jedis redis;
    private final List<StatefulSinkWriter<UnreadCount, Void>> writers = new ArrayList<>();

    @BeforeEach
    void start() {
        prefix = TestRedis.uniquePrefix();
        redis = TestRedis.connect(0);
    }

    @AfterEach
    void stop() throws Exception {
        for (StatefulSinkWriter<UnreadCount, Void> writer : writers) {
            writer.close();
        }
        TestRedis.deleteKeys(0, prefix);
        redis.close();
    }

    private StatefulSinkWriter<UnreadCount, Void> writer(TestWriterContext context) {
        StatefulSinkWriter<UnreadCount, Void> writer =
                RedisCounts.ofCounter(TestRedis.config(URL, prefix, INTERVAL_MS))
                        .createWriter(context);
        writers.add(writer);
        return writer;
    }

    /** A first touch: one message in the conversation, nothing else of the user shown. */
    private static void firstMessage(StatefulSinkWriter<UnreadCount, Void> writer, long user)
            throws Exception {
        writer.write(UnreadCount.conversation(user, CONVERSATION, 1).from(0), null);
        writer.write(UnreadCount.mentions(user, CONVERSATION, 0).from(0), null);
        writer.write(UnreadCount.marked(user, CONVERSATION, false).from(0), null);
        writer.write(UnreadCount.total(user, Count.TOTAL_MESSAGES, 1).from(0), null);
        writer.write(UnreadCount.total(user, Count.TOTAL_MENTIONS, 0).from(0), null);
        writer.write(UnreadCount.total(user, Count.TOTAL_THREADS, 0).from(0), null);
        // A message and the inbox open after it within the interval: the badge is where it was.
        writer.write(UnreadCount.senders(user, 1).from(0), null);
        writer.write(UnreadCount.senders(user, 0).from(1), null);
    }

    /** A restored incarnation's first touch of a record that did not change: every count as is. */
    private static void refresh(StatefulSinkWriter<UnreadCount, Void> writer, long user)
            throws Exception {
        writer.write(UnreadCount.conversation(user, CONVERSATION, 0).from(0), null);
        writer.write(UnreadCount.mentions(user, CONVERSATION, 0).from(0), null);
        writer.write(UnreadCount.marked(user, CONVERSATION, false).from(0), null);
        writer.write(UnreadCount.senders(user, 0).from(0), null);
    }

    private String unread(long user) {
        return redis.hget(Count.CONVERSATION.key(prefix, user), Long.toString(CONVERSATION));
    }

    private static long unchanged(TestWriterContext context) {
        return context.counter(RedisCounts.UNCHANGED_METRIC);
    }

    @Test
    void aFreshJobSendsNoCommandThatChangesNothing() throws Exception {
        TestWriterContext context = new TestWriterContext();
        StatefulSinkWriter<UnreadCount, Void> writer = writer(context);

        firstMessage(writer, USER);
        writer.flush(false);

        assertThat(unread(USER)).isEqualTo("1");
        assertThat(redis.hgetAll(Count.TOTAL_MESSAGES.key(prefix, USER)))
                .containsExactly(Map.entry(RedisNames.TOTAL_MESSAGES, "1"));
        assertThat(redis.exists(Count.SENDERS.key(prefix, USER))).isFalse();
        assertThat(unchanged(context))
                .as("no HDEL of mentions or totals, SREM of the mark, DEL of the badge")
                .isZero();
    }

    @Test
    void theWriterOutsideTheCounterWritesEveryCountAsBefore() throws Exception {
        // The savepoint republish and the Kafka Streams peer know nothing of what Redis holds.
        TestWriterContext context = new TestWriterContext();
        StatefulSinkWriter<UnreadCount, Void> writer =
                new RedisCounts(TestRedis.config(URL, prefix, INTERVAL_MS)).createWriter(context);
        writers.add(writer);

        firstMessage(writer, USER);
        writer.flush(false);

        assertThat(unread(USER)).isEqualTo("1");
        assertThat(unchanged(context))
                .as(
                        "HDEL mentions, SREM marked, HDEL of two totals, DEL badge: five things"
                                + " removed that were not there")
                .isEqualTo(5);
        assertThat(redis.exists(RedisNames.countsWrittenAfterKey(prefix))).isFalse();
    }

    @Test
    void aRemovalOfSeveralKeysCountsEachThatWasNotThere() throws Exception {
        // One DEL takes every badge a flush clears: Redis holds one of the two.
        redis.set(Count.SENDERS.key(prefix, USER), "3");
        TestWriterContext context = new TestWriterContext();
        StatefulSinkWriter<UnreadCount, Void> writer =
                new RedisCounts(TestRedis.config(URL, prefix, INTERVAL_MS)).createWriter(context);
        writers.add(writer);

        writer.write(UnreadCount.senders(USER, 0).from(0), null);
        writer.write(UnreadCount.senders(USER + 1, 0).from(0), null);
        writer.flush(false);

        assertThat(redis.exists(Count.SENDERS.key(prefix, USER))).isFalse();
        assertThat(unchanged(context)).as("the other user's badge was not there").isEqualTo(1);
    }

    @Test
    void aRestoreAfterAStopWithASavepointSendsNoCommandThatChangesNothing() throws Exception {
        StatefulSinkWriter<UnreadCount, Void> stopped = writer(new TestWriterContext());
        firstMessage(stopped, USER);
        stopped.flush(false);
        stopped.snapshotState(1);
        firstMessage(stopped, USER + 1);
        stopped.flush(false);
        // Stopped with savepoint 2: nothing is written after its barrier.
        stopped.snapshotState(2);
        stopped.close();

        TestWriterContext context = new TestWriterContext().restoredFrom(2);
        StatefulSinkWriter<UnreadCount, Void> restored = writer(context);
        refresh(restored, USER + 2);
        restored.write(UnreadCount.conversation(USER, CONVERSATION, 2).from(1), null);
        restored.flush(false);

        assertThat(unread(USER)).isEqualTo("2");
        assertThat(unread(USER + 1)).isEqualTo("1");
        assertThat(unchanged(context)).isZero();
    }

    @Test
    void aRestoreAfterWritesPastItsCheckpointRepairsWhatTheLostTimelineWrote() throws Exception {
        StatefulSinkWriter<UnreadCount, Void> crashed = writer(new TestWriterContext());
        firstMessage(crashed, USER);
        crashed.flush(false);
        crashed.snapshotState(1);
        // After checkpoint 1's barrier: the lost timeline's message to two users, then a crash.
        crashed.write(UnreadCount.conversation(USER + 1, CONVERSATION, 5).from(0), null);
        crashed.write(UnreadCount.conversation(USER + 2, CONVERSATION, 7).from(0), null);
        crashed.flush(false);
        crashed.close();

        // The replay reads first and the message after it, behind the cursor: 0 stays 0.
        TestWriterContext context = new TestWriterContext().restoredFrom(1);
        StatefulSinkWriter<UnreadCount, Void> restored = writer(context);
        refresh(restored, USER + 1);
        restored.flush(false);

        assertThat(unread(USER + 1)).as("the refresh deleted the lost timeline's 5").isNull();
        assertThat(unread(USER + 2)).as("not touched yet").isEqualTo("7");

        // Stopped with a savepoint before the replay reached the other user: a restore from it
        // still writes every count, or the 7 would stay.
        restored.snapshotState(2);
        restored.close();
        StatefulSinkWriter<UnreadCount, Void> later =
                writer(new TestWriterContext().restoredFrom(2));
        refresh(later, USER + 2);
        later.flush(false);

        assertThat(unread(USER + 2)).isNull();
        assertThat(unread(USER)).isEqualTo("1");
    }

    @Test
    void aWriterDoesNotTakeItsSiblingsWritesForWritesAfterTheCheckpoint() throws Exception {
        // The job before wrote after checkpoint 2 and stopped with savepoint 3.
        redis.hset(
                RedisNames.countsWrittenAfterKey(prefix),
                Map.of("0", "2", "1", "2", "2", "2", "3", "2"));
        // Two subtasks over four key groups: each reads its own key groups' marks only.
        StatefulSinkWriter<UnreadCount, Void> first =
                writer(new TestWriterContext().restoredFrom(3).subtask(0, 2, 4));
        first.write(UnreadCount.conversation(USER, CONVERSATION, 1).from(0), null);
        first.flush(false);

        TestWriterContext context = new TestWriterContext().restoredFrom(3).subtask(1, 2, 4);
        StatefulSinkWriter<UnreadCount, Void> second = writer(context);
        refresh(second, USER + 1);
        second.flush(false);

        assertThat(unchanged(context)).isZero();
        assertThat(redis.hgetAll(RedisNames.countsWrittenAfterKey(prefix)))
                .as("the first wrote after checkpoint 3; the second has written nothing yet")
                .containsExactlyInAnyOrderEntriesOf(Map.of("0", "3", "1", "3", "2", "2", "3", "2"));
    }
}
