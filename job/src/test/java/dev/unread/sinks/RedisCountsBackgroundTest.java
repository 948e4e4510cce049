package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import dev.unread.events.UnreadCount;
import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * {@link RedisCounts}' two tiers against the real Redis, the writer's clock moved by the test: a
 * live user's counts every flush interval, everyone else's every background interval and at every
 * checkpoint (issue 35).
 */
class RedisCountsBackgroundTest {
    private static final long INTERVAL_MS = 100;
    private static final long BACKGROUND_MS = 1000;
    private static final long LIVE_USER = 10086;
    private static final long OTHER = 10087;
    private static final long CONVERSATION = 80001;

    /** ZMSCORE of the users with held counts in the live users, ending every flush. */
    private static final int LIVE = 1;

    /** Per live user per flush: SET of its version and PUBLISH of UNREAD_CHANGED. */
    private static final int PUSH = 2;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final TestWriterContext context = new TestWriterContext();
    private String prefix;
    private Jedis redis;
    private SinkWriter<UnreadCount> writer;

    @BeforeEach
    void start() throws IOException {
        prefix = TestRedis.uniquePrefix();
        redis = TestRedis.connect(0);
        writer =
                new RedisCounts(
                                TestRedis.config(
                                        "redis://127.0.0.1:6379/0",
                                        prefix,
                                        INTERVAL_MS,
                                        BACKGROUND_MS))
                        .createWriter(context);
        TestRedis.live(redis, prefix, LIVE_USER);
    }

    @AfterEach
    void stop() throws Exception {
        writer.close();
        TestRedis.deleteKeys(0, prefix);
        redis.close();
    }

    private String badge(long userId) {
        return redis.get(Count.SENDERS.key(prefix, userId));
    }

    @Test
    void aLiveUsersCountsAreWrittenEveryIntervalAndTheOthersEveryBackgroundInterval()
            throws Exception {
        writer.write(UnreadCount.senders(LIVE_USER, 1), null);
        writer.write(UnreadCount.senders(OTHER, 1), null);
        writer.write(UnreadCount.conversation(OTHER, CONVERSATION, 1), null);
        context.advance(INTERVAL_MS);
        awaitCommands(LIVE + 1 + PUSH);

        assertThat(badge(LIVE_USER)).isEqualTo("1");
        assertThat(badge(OTHER)).as("held for the background flush").isNull();

        // Changed again in every interval: written once, with the last value.
        for (long count = 2; count <= 5; count++) {
            writer.write(UnreadCount.senders(OTHER, count), null);
            context.advance(INTERVAL_MS);
        }
        long beforeBackground = 5 * LIVE + 1 + PUSH;
        awaitCommands(beforeBackground);
        assertThat(badge(OTHER)).isNull();

        context.advance(BACKGROUND_MS - 5 * INTERVAL_MS);
        // The badge's SET and the conversation's HSET, then who of them is live.
        awaitCommands(beforeBackground + 2 + LIVE);
        Poll.until(
                "the held badge written",
                Duration.ofSeconds(30),
                () -> "5".equals(badge(OTHER)) ? true : null);
        assertThat(redis.hgetAll(Count.CONVERSATION.key(prefix, OTHER)))
                .containsExactly(Map.entry("80001", "1"));
    }

    @Test
    void eachUsersCountsAreWrittenOnceHeldForTheIntervalNotEveryonesAtOnce() throws Exception {
        long second = OTHER + 1;
        writer.write(UnreadCount.senders(OTHER, 1), null);
        // The flush at 100 ms holds OTHER's badge from then on.
        intervals(5);
        writer.write(UnreadCount.senders(second, 1), null);
        // ... and the flush at 600 ms the second user's.
        intervals(5);

        // At 1,000 ms OTHER's badge has been held for the background interval less one flush
        // interval: written by that flush; the second user's waits for its own.
        Poll.until(
                "OTHER's badge written",
                Duration.ofSeconds(30),
                () -> "1".equals(badge(OTHER)) ? true : null);
        assertThat(badge(second)).as("held since 600 ms").isNull();

        // No record since: the flushes of the interval go on and write it at 1,500 ms.
        intervals(5);
        Poll.until(
                "the second badge written",
                Duration.ofSeconds(30),
                () -> "1".equals(badge(second)) ? true : null);
    }

    @Test
    void aUserWhoBecomesLiveGetsWhatIsHeldAtTheNextFlushWithItsChangeMessage() throws Exception {
        try (TestRedis.Subscriber changes =
                new TestRedis.Subscriber(RedisNames.unreadChangedChannel(prefix, OTHER))) {
            writer.write(UnreadCount.senders(OTHER, 3), null);
            context.advance(INTERVAL_MS);
            awaitCommands(LIVE);
            assertThat(badge(OTHER)).isNull();

            // The stream opens: the API adds the user, then reads a snapshot without the badge.
            TestRedis.live(redis, prefix, OTHER);
            // No new record: the flushes of the interval go on while counts are held.
            context.advance(INTERVAL_MS);

            JsonNode message = JSON.readTree(changes.next(10_000));
            assertThat(message.get("unreadSenders").asLong()).isEqualTo(3);
            assertThat(badge(OTHER)).isEqualTo("3");
            assertThat(redis.get(RedisNames.versionKey(prefix, OTHER)))
                    .isEqualTo(message.get("version").asText());
        }
    }

    @Test
    void aCheckpointWritesWhatIsHeld() throws Exception {
        writer.write(UnreadCount.senders(OTHER, 2), null);
        context.advance(INTERVAL_MS);
        awaitCommands(LIVE);
        writer.write(UnreadCount.marked(OTHER, CONVERSATION, true), null);

        writer.flush(false);

        assertThat(badge(OTHER)).isEqualTo("2");
        assertThat(redis.smembers(Count.MARKED.key(prefix, OTHER))).containsExactly("80001");
        // After the checkpoint nothing is held: the background interval finds nothing to send.
        long sent = context.counter("redisCommands");
        context.advance(BACKGROUND_MS);
        assertThat(context.counter(RedisCounts.FLUSHES_METRIC)).isEqualTo(2);
        assertThat(context.counter("redisCommands")).isEqualTo(sent);
    }

    @Test
    void moreHeldCountsThanTheBoundAreWrittenWithoutWaitingForTheBackgroundInterval()
            throws Exception {
        // None of them live.
        long first = LIVE_USER + 1;
        long last = first + CountBuffer.MAX_HELD;
        for (long u = first; u <= last; u++) {
            writer.write(UnreadCount.senders(u, 1), null);
        }
        context.advance(INTERVAL_MS);
        // The badges go in a few MSETs, so wait for what they write rather than for commands.
        Poll.until(
                "the last badge written",
                Duration.ofSeconds(30),
                () -> "1".equals(badge(last)) ? true : null);

        assertThat(badge(first)).isEqualTo("1");
    }

    /** One flush interval after another: the clock jumps, so each fires its own flush. */
    private void intervals(int n) throws Exception {
        for (int i = 0; i < n; i++) {
            context.advance(INTERVAL_MS);
        }
    }

    /** Flushes land a moment after the timer fired: wait for their commands. */
    private void awaitCommands(long commands) throws Exception {
        Poll.until(
                commands + " commands acknowledged",
                Duration.ofSeconds(30),
                () -> context.counter("redisCommands") >= commands ? true : null);
    }
}
