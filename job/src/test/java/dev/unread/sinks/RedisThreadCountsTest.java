package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import dev.unread.events.UnreadCount;
import dev.unread.testing.TestRedis;
import java.io.IOException;
import java.util.Map;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * {@link RedisCounts}' writer on a user's followed threads (issue 25), against the real Redis: the
 * thread hashes take the per-key path of the conversations' hashes, one HSET and one HDEL per key
 * and flush.
 */
class RedisThreadCountsTest {
    private static final String URL = "redis://127.0.0.1:6379/0";
    private static final long USER = 10086;
    private static final long CONVERSATION = 80001;

    /** Per flush for a live user: ZMSCORE, then SET of the version and PUBLISH. */
    private static final int LIVE_AND_PUSH = 3;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final TestWriterContext context = new TestWriterContext();
    private String prefix;
    private Jedis redis;
    private SinkWriter<UnreadCount> writer;

    @BeforeEach
    void start() throws IOException {
        prefix = TestRedis.uniquePrefix();
        redis = TestRedis.connect(0);
        writer = new RedisCounts(TestRedis.config(URL, prefix, 200)).createWriter(context);
        TestRedis.live(redis, prefix, USER);
    }

    @AfterEach
    void stop() throws Exception {
        writer.close();
        TestRedis.deleteKeys(0, prefix);
        redis.close();
    }

    private static UnreadCount thread(long conversation, long threadSeq, long count) {
        return UnreadCount.thread(USER, Count.THREAD, conversation, threadSeq, count);
    }

    private static UnreadCount threadMentions(long conversation, long threadSeq, long count) {
        return UnreadCount.thread(USER, Count.THREAD_MENTIONS, conversation, threadSeq, count);
    }

    @Test
    void threadsOfOneUserCostOneCommandToSetAndOneToDeletePerHash() throws Exception {
        try (TestRedis.Subscriber changes =
                new TestRedis.Subscriber(RedisNames.unreadChangedChannel(prefix, USER))) {
            // Two threads of one conversation: the root's seq tells them apart, in the buffer too.
            writer.write(thread(CONVERSATION, 1038, 2), null);
            writer.write(thread(CONVERSATION, 1040, 5), null);
            writer.write(thread(CONVERSATION + 1, 7, 1), null);
            writer.write(thread(CONVERSATION + 1, 9, 0), null);
            writer.write(threadMentions(CONVERSATION, 1038, 1), null);
            writer.write(UnreadCount.total(USER, Count.TOTAL_THREADS, 3), null);
            writer.write(UnreadCount.total(USER, Count.TOTAL_MENTIONS, 1), null);
            writer.flush(false);

            assertThat(redis.hgetAll(Count.THREAD.key(prefix, USER)))
                    .containsOnly(
                            Map.entry("80001:1038", "2"),
                            Map.entry("80001:1040", "5"),
                            Map.entry("80002:7", "1"));
            assertThat(redis.hgetAll(Count.THREAD_MENTIONS.key(prefix, USER)))
                    .containsOnly(Map.entry("80001:1038", "1"));
            assertThat(redis.hgetAll(Count.TOTAL_MESSAGES.key(prefix, USER)))
                    .containsOnly(Map.entry("threads", "3"), Map.entry("mentions", "1"));
            // HSET and HDEL of the threads, HSET of the thread mentions, HSET of the totals.
            assertThat(context.counter("redisCommands")).isEqualTo(4 + LIVE_AND_PUSH);

            JsonNode message = JSON.readTree(changes.next(10_000));
            assertThat(message.get("threads"))
                    .isEqualTo(
                            JSON.readTree(
                                    "{\"80001:1038\":2,\"80001:1040\":5,\"80002:7\":1,"
                                            + "\"80002:9\":0}"));
            assertThat(message.get("threadMentions"))
                    .isEqualTo(JSON.readTree("{\"80001:1038\":1}"));
            assertThat(message.get("totals"))
                    .isEqualTo(JSON.readTree("{\"threads\":3,\"mentions\":1}"));
        }
    }

    @Test
    void threadsBackToZeroLeaveNoKeyAndNoThreadsTotal() throws Exception {
        writer.write(thread(CONVERSATION, 1038, 2), null);
        writer.write(threadMentions(CONVERSATION, 1038, 2), null);
        writer.write(UnreadCount.total(USER, Count.TOTAL_THREADS, 1), null);
        writer.flush(false);
        assertThat(redis.exists(Count.THREAD.key(prefix, USER))).isTrue();

        writer.write(thread(CONVERSATION, 1038, 0), null);
        writer.write(threadMentions(CONVERSATION, 1038, 0), null);
        writer.write(UnreadCount.total(USER, Count.TOTAL_THREADS, 0), null);
        writer.flush(false);

        assertThat(redis.exists(Count.THREAD.key(prefix, USER))).isFalse();
        assertThat(redis.exists(Count.THREAD_MENTIONS.key(prefix, USER))).isFalse();
        assertThat(redis.exists(Count.TOTAL_MESSAGES.key(prefix, USER))).isFalse();
    }

    @Test
    void aThreadsKeyOfTheWrongTypeIsReplacedByTheHash() throws Exception {
        redis.set(Count.THREAD.key(prefix, USER), "not a hash");
        writer.write(thread(CONVERSATION, 1038, 4), null);
        writer.flush(false);

        assertThat(redis.hgetAll(Count.THREAD.key(prefix, USER)))
                .containsExactly(Map.entry("80001:1038", "4"));
        assertThat(context.counter("redisWrongTypeKeysReplaced")).isEqualTo(1);
    }
}
