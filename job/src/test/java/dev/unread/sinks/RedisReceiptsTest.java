package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ReadReceipt;
import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import java.io.IOException;
import java.time.Duration;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link RedisReceipts}' writer against the real Redis, heard by a subscriber of the test's. */
class RedisReceiptsTest {
    private static final String URL = "redis://127.0.0.1:6379/0";
    private static final long INTERVAL_MS = 200;
    private static final long WAIT_MS = 10_000;

    private final TestWriterContext context = new TestWriterContext();
    private String prefix;
    private SinkWriter<ReadReceipt> writer;
    private TestRedis.Subscriber subscriber;

    @BeforeEach
    void start() throws IOException, InterruptedException {
        prefix = TestRedis.uniquePrefix();
        writer =
                new RedisReceipts(TestRedis.config(URL, prefix, INTERVAL_MS)).createWriter(context);
        subscriber = new TestRedis.Subscriber(prefix + "READ_PROGRESS_CHANGED");
    }

    @AfterEach
    void stop() throws Exception {
        subscriber.close();
        writer.close();
    }

    @Test
    void aReceiptIsTheContractsJsonOnThePrefixedChannel() throws Exception {
        writer.write(new ReadReceipt(80001, 10086, 1038, ReadReceipt.EVERYONE), null);
        writer.flush(false);

        assertThat(subscriber.next(WAIT_MS))
                .isEqualTo(
                        "{\"type\":\"READ_RECEIPT\",\"conversationId\":80001,"
                                + "\"userId\":10086,\"readSeq\":1038}");
    }

    @Test
    void everyCursorIsPublishedInOrderNoneCoalesced() throws Exception {
        ReadReceipt reused = new ReadReceipt(80001, 10086, 1038, ReadReceipt.EVERYONE);
        writer.write(reused, null);
        reused.readSeq = 1040;
        writer.write(reused, null);
        reused.readerId = 10087;
        reused.readSeq = 7;
        writer.write(reused, null);
        context.advance(INTERVAL_MS);

        assertThat(subscriber.next(WAIT_MS)).contains("\"userId\":10086,\"readSeq\":1038}");
        assertThat(subscriber.next(WAIT_MS)).contains("\"userId\":10086,\"readSeq\":1040}");
        assertThat(subscriber.next(WAIT_MS)).contains("\"userId\":10087,\"readSeq\":7}");
        // The sender counts a flush once Redis answered, a moment after subscribers see it.
        Poll.until(
                "3 commands acknowledged",
                Duration.ofSeconds(30),
                () -> context.counter("redisCommands") >= 3 ? true : null);
        assertThat(context.counter("redisCommands")).isEqualTo(3);
        assertThat(context.counter("redisCoalescedUpdates")).isZero();
    }

    @Test
    void receiptsWaitForTheFlushInterval() throws Exception {
        writer.write(new ReadReceipt(80001, 10086, 1038, ReadReceipt.EVERYONE), null);
        context.advance(INTERVAL_MS - 1);
        assertThat(context.counter("redisCommands")).isZero();

        context.advance(1);
        assertThat(subscriber.next(WAIT_MS)).contains("\"readSeq\":1038");
    }

    @Test
    void aReceiptForOneParticipantGoesToThatUsersChannelOnly() throws Exception {
        try (TestRedis.Subscriber own = new TestRedis.Subscriber(prefix + "READ_RECEIPTS:10087")) {
            writer.write(new ReadReceipt(80001, 10086, 1038, 10087), null);
            writer.write(new ReadReceipt(80001, 10086, 1038, ReadReceipt.EVERYONE), null);
            writer.flush(false);

            assertThat(own.next(WAIT_MS))
                    .isEqualTo(
                            "{\"type\":\"READ_RECEIPT\",\"conversationId\":80001,"
                                    + "\"userId\":10086,\"readSeq\":1038}");
            assertThat(subscriber.next(WAIT_MS)).contains("\"readSeq\":1038");
            assertThat(own.next(200)).as("one receipt on the user's channel").isNull();
            assertThat(subscriber.next(200)).as("one on everyone's").isNull();
        }
    }
}
