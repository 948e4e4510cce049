package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.RedisNames;
import dev.unread.events.ReaderUpdate;
import dev.unread.testing.TestRedis;
import java.util.Map;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** {@link RedisReaders}' writer against the real Redis. */
class RedisReadersTest {
    private static final String URL = "redis://127.0.0.1:6379/0";
    private static final long INTERVAL_MS = 200;

    private final TestWriterContext context = new TestWriterContext();
    private String prefix;
    private SinkWriter<ReaderUpdate> writer;

    @BeforeEach
    void start() {
        prefix = TestRedis.uniquePrefix();
        writer = new RedisReaders(TestRedis.config(URL, prefix, INTERVAL_MS)).createWriter(context);
    }

    @AfterEach
    void stop() throws Exception {
        writer.close();
        TestRedis.deleteKeys(prefix);
    }

    private Map<String, Map<String, Double>> readers() {
        return TestRedis.sortedSets(prefix);
    }

    @Test
    void aFlushWritesEachReadersHighestCursorOnce() throws Exception {
        ReaderUpdate reused = new ReaderUpdate(80001, 10086, 5, true);
        writer.write(reused, null);
        reused.lastReadSeq = 3;
        writer.write(reused, null);
        reused.userId = 10087;
        reused.lastReadSeq = 7;
        writer.write(reused, null);
        writer.write(new ReaderUpdate(80002, 10086, 1, true), null);
        writer.flush(false);

        assertThat(readers())
                .isEqualTo(
                        Map.of(
                                prefix + "chat:readers:80001", Map.of("10086", 5.0, "10087", 7.0),
                                prefix + "chat:readers:80002", Map.of("10086", 1.0)));
        assertThat(context.counter("redisCommands")).isEqualTo(2);
        assertThat(context.counter("redisCoalescedUpdates")).isEqualTo(1);
    }

    @Test
    void aFlushWritesEachConversationsReadersInOneCommandOfEachKind() throws Exception {
        // Issue 47: in a channel every message raises its sender's score, a member a message.
        writer.write(new ReaderUpdate(80001, 10086, 5, true), null);
        writer.write(new ReaderUpdate(80001, 10087, 7, true), null);
        writer.write(new ReaderUpdate(80001, 10088, 2, true), null);
        writer.write(new ReaderUpdate(80001, 10089, 9, true), null);
        writer.flush(false);
        writer.write(new ReaderUpdate(80001, 10086, 6, true), null);
        writer.write(new ReaderUpdate(80001, 10087, 8, true), null);
        writer.write(ReaderUpdate.removed(80001, 10088), null);
        writer.write(ReaderUpdate.removed(80001, 10090), null);
        writer.write(ReaderUpdate.removed(80001, 10089), null);
        writer.write(new ReaderUpdate(80001, 10089, 3, true), null);
        writer.flush(false);

        assertThat(readers())
                .isEqualTo(
                        Map.of(
                                prefix + "chat:readers:80001",
                                Map.of("10086", 6.0, "10087", 8.0, "10089", 3.0)));
        // ZADD GT of the first four; then ZADD GT of two rises, ZADD of 10089, ZREM of two.
        assertThat(context.counter("redisCommands")).isEqualTo(4);
        // One ZREM of 10088 and 10090: 10090 held no score, which removed nothing.
        assertThat(context.counter("redisUnchangedCommands")).isEqualTo(1);
    }

    @Test
    void aConversationsReadersGoInCommandsOfAtMostTheFieldsOneCarries() throws Exception {
        int readers = 2 * KeyCommands.FIELDS_PER_COMMAND + 1;
        for (int user = 1; user <= readers; user++) {
            writer.write(new ReaderUpdate(80001, user, user, true), null);
        }
        writer.flush(false);

        Map<String, Double> scores = readers().get(prefix + "chat:readers:80001");
        assertThat(scores)
                .hasSize(readers)
                .containsEntry(Integer.toString(readers), (double) readers);
        assertThat(context.counter("redisCommands")).isEqualTo(3);
    }

    @Test
    void aScoreNeverFalls() throws Exception {
        writer.write(new ReaderUpdate(80001, 10086, 9, true), null);
        writer.flush(false);
        writer.write(new ReaderUpdate(80001, 10086, 4, true), null);
        writer.flush(false);

        assertThat(readers())
                .isEqualTo(Map.of(prefix + "chat:readers:80001", Map.of("10086", 9.0)));
    }

    @Test
    void aReaderWhoLeftIsRemovedAndComesBackWhenItsScoreFollowsTheRemoval() throws Exception {
        writer.write(new ReaderUpdate(80001, 10086, 9, true), null);
        writer.write(new ReaderUpdate(80001, 10087, 4, true), null);
        writer.flush(false);
        writer.write(ReaderUpdate.removed(80001, 10086), null);
        writer.write(ReaderUpdate.removed(80001, 10087), null);
        writer.write(new ReaderUpdate(80001, 10087, 4, true), null);
        writer.flush(false);

        assertThat(readers())
                .isEqualTo(Map.of(prefix + "chat:readers:80001", Map.of("10087", 4.0)));
    }

    @Test
    void anErasedReadersLowerCursorAfterItsRemovalInOneFlushReplacesItsScore() throws Exception {
        // Issue 47: an erased channel member reads again, to below the cursor it had; a replay
        // after a restore brings the old score, the erasure and the new cursor into one flush.
        writer.write(new ReaderUpdate(80001, 10086, 127, true), null);
        writer.flush(false);
        writer.write(new ReaderUpdate(80001, 10086, 127, true), null);
        writer.write(ReaderUpdate.removed(80001, 10086), null);
        writer.write(new ReaderUpdate(80001, 10086, 84, true), null);
        writer.flush(false);

        assertThat(readers())
                .isEqualTo(Map.of(prefix + "chat:readers:80001", Map.of("10086", 84.0)));
    }

    @Test
    void aReadersKeyOfTheWrongTypeIsReplaced() throws Exception {
        // Issue 17, item 7: a leftover or another application's key where the job writes.
        try (Jedis redis = new Jedis("127.0.0.1", 6379)) {
            redis.set(RedisNames.readersKey(prefix, 80001), "not a sorted set");
            redis.rpush(RedisNames.readersKey(prefix, 80002), "a list");
        }
        writer.write(new ReaderUpdate(80001, 10086, 5, true), null);
        writer.write(new ReaderUpdate(80001, 10087, 2, true), null);
        writer.write(new ReaderUpdate(80002, 10086, 1, true), null);
        writer.flush(false);

        assertThat(readers())
                .isEqualTo(
                        Map.of(
                                prefix + "chat:readers:80001", Map.of("10086", 5.0, "10087", 2.0),
                                prefix + "chat:readers:80002", Map.of("10086", 1.0)));
        assertThat(context.counter("redisWrongTypeKeysReplaced")).isEqualTo(2);
    }

    @Test
    void aReadersKeyOfTheWrongTypeIsReplacedByAScoreAfterARemoval() throws Exception {
        try (Jedis redis = new Jedis("127.0.0.1", 6379)) {
            redis.set(RedisNames.readersKey(prefix, 80001), "not a sorted set");
        }
        writer.write(ReaderUpdate.removed(80001, 10086), null);
        writer.write(new ReaderUpdate(80001, 10086, 3, true), null);
        writer.flush(false);

        assertThat(readers())
                .isEqualTo(Map.of(prefix + "chat:readers:80001", Map.of("10086", 3.0)));
        assertThat(context.counter("redisWrongTypeKeysReplaced")).isEqualTo(1);
    }
}
