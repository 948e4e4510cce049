package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.events.UnreadCount;
import dev.unread.testing.TestRedis;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The counts writer's two threads, interleaved step by step against the real Redis: the task's (the
 * test's thread) buffers records while the sender turns the buffer it was handed into commands. An
 * erasure the task takes after a buffer was handed over, but before the sender began it, is final:
 * nothing of the user buffered before it is written after its deletes (issue 45: the sender moved
 * such counts into the held counts after the task had taken the user's out of them, and the next
 * flush wrote the badge back as 3).
 */
class RedisCountsHandOverTest {
    private static final long INTERVAL_MS = 100;
    private static final long BACKGROUND_MS = 1000;
    private static final long USER = 10086;
    private static final long OTHER = 10087;
    private static final long CONVERSATION = 80001;
    private static final long ERASED_AT = 1767225600000L;

    private final TestWriterContext context = new TestWriterContext();
    private final SteppedSender sender = new SteppedSender();
    private String prefix;
    private Jedis redis;
    private SinkWriter<UnreadCount> writer;

    @BeforeEach
    void start() {
        prefix = TestRedis.uniquePrefix();
        redis = TestRedis.connect(0);
        UnreadConfig config =
                TestRedis.config("redis://127.0.0.1:6379/0", prefix, INTERVAL_MS, BACKGROUND_MS);
        writer = new RedisCounts(config).createWriter(context, sender);
    }

    @AfterEach
    void stop() throws Exception {
        writer.close();
        TestRedis.deleteKeys(0, prefix);
        redis.close();
    }

    /**
     * The flush of the interval hands the buffer with the user's counts to the sender, which waits
     * there; the task takes the erasure; then the sender runs, and a checkpoint writes whatever is
     * held.
     */
    private void eraseWhileTheSenderHasNotBegun(UnreadCount... after) throws Exception {
        writer.write(UnreadCount.senders(USER, 3), null);
        writer.write(UnreadCount.conversation(USER, CONVERSATION, 2), null);
        writer.write(UnreadCount.senders(OTHER, 1), null);
        sender.holdNext();
        context.advance(INTERVAL_MS);
        sender.awaitHandedOver();

        writer.write(UnreadCount.erasure(USER, ERASED_AT), null);
        for (UnreadCount count : after) {
            writer.write(count, null);
        }

        sender.release();
        writer.flush(false);
    }

    @Test
    void anErasureTakenWhileTheSenderHasNotBegunItsBufferIsFinal() throws Exception {
        eraseWhileTheSenderHasNotBegun();

        assertThat(redis.get(Count.SENDERS.key(prefix, USER)))
                .as("the erased user's badge")
                .isNull();
        assertThat(redis.exists(Count.CONVERSATION.key(prefix, USER)))
                .as("the erased user's conversations")
                .isFalse();
        assertThat(redis.get(Count.SENDERS.key(prefix, OTHER))).as("another user's").isEqualTo("1");
    }

    @Test
    void aCountAfterThatErasureIsWrittenAndNothingBeforeIt() throws Exception {
        eraseWhileTheSenderHasNotBegun(UnreadCount.senders(USER, 1));

        assertThat(redis.get(Count.SENDERS.key(prefix, USER))).isEqualTo("1");
        assertThat(redis.exists(Count.CONVERSATION.key(prefix, USER)))
                .as("a count from before the erasure")
                .isFalse();
    }
}
