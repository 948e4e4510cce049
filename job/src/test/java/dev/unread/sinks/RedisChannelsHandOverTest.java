package dev.unread.sinks;

import static dev.unread.sinks.RedisChannelsTest.block;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import dev.unread.events.ChannelWrite;
import dev.unread.events.ChannelWrite.Change;
import dev.unread.testing.TcpProxy;
import dev.unread.testing.TestRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The channel writer's two threads, interleaved step by step against the real Redis (through a
 * proxy the test can take down), as {@link RedisCountsHandOverTest} does for the counts: the task
 * (the test's thread) buffers a channel's writes while the sender sends the buffer it was handed.
 * What the task takes meanwhile goes out after it, and a send that failed goes again whole before
 * it, so per channel nothing is lost or reordered: the newer block, sorted-set member and track
 * win, and the notices come in the order written, with rising versions.
 */
class RedisChannelsHandOverTest {
    private static final long INTERVAL_MS = 100;
    private static final long WAIT_MS = 10_000;
    private static final long C = 80001;
    private static final long D = 80002;
    private static final long MEMBER = 7;
    private static final long T = 3;
    private static final Pattern VERSION = Pattern.compile("\"version\":(\\d+)");

    private final TestWriterContext context = new TestWriterContext();
    private final SteppedSender sender = new SteppedSender();
    private TcpProxy proxy;
    private String prefix;
    private Jedis redis;
    private TestRedis.Subscriber notices;
    private SinkWriter<ChannelWrite> writer;

    @BeforeEach
    void start() throws Exception {
        prefix = TestRedis.uniquePrefix();
        redis = TestRedis.connect(0);
        proxy = new TcpProxy(TestRedis.HOST, TestRedis.PORT);
        notices = new TestRedis.Subscriber(RedisNames.channelChangedChannel(prefix, C));
        writer =
                new RedisChannels(
                                TestRedis.config(
                                        "redis://" + proxy.address() + "/0", prefix, INTERVAL_MS))
                        .createWriter(context, sender);
    }

    @AfterEach
    void stop() throws Exception {
        writer.close();
        notices.close();
        proxy.close();
        TestRedis.deleteKeys(prefix);
        redis.close();
    }

    private void write(ChannelWrite... writes) throws Exception {
        for (ChannelWrite write : writes) {
            writer.write(write, null);
        }
    }

    /** The flush of the interval hands what was written to the sender, which waits there. */
    private void handOverAndHold() throws Exception {
        sender.holdNext();
        context.advance(INTERVAL_MS);
        sender.awaitHandedOver();
    }

    /** Root 4 of C with its reply 5 in thread T, the member's tracks, and a root of D. */
    private void firstWrites() throws Exception {
        write(
                ChannelWrite.track(C, MEMBER, 0, "{\"read\":4}"),
                ChannelWrite.block(C, 0, block(0, 4)),
                ChannelWrite.seq(C, true, T, false, 5),
                ChannelWrite.notice(C, Change.MESSAGE, 4, 0, MEMBER, false),
                ChannelWrite.notice(C, Change.MESSAGE, 5, T, MEMBER, false),
                ChannelWrite.block(D, 0, block(0, 2)));
    }

    /** What the task takes while the first flush is with the sender: newer values of each key. */
    private void writesMeanwhile() throws Exception {
        write(
                ChannelWrite.track(C, MEMBER, 0, "{\"read\":6}"),
                ChannelWrite.track(C, MEMBER, T, "{\"read\":5}"),
                ChannelWrite.block(C, 0, block(0, 6)),
                ChannelWrite.seq(C, false, T, false, 5),
                ChannelWrite.notice(C, Change.DELETED, 4, 0, MEMBER, false),
                ChannelWrite.notice(C, Change.DELETED, 5, T, MEMBER, false),
                ChannelWrite.notice(C, Change.MESSAGE, 6, 0, MEMBER, false));
    }

    /** C as the writes meanwhile leave it, last: nothing of the first flush written over them. */
    private void assertTheNewerValuesWon() {
        String tracks = RedisNames.channelTracksKey(prefix, MEMBER);
        assertThat(redis.hget(tracks, RedisNames.channelTrackField(C))).isEqualTo("{\"read\":6}");
        assertThat(redis.hget(tracks, RedisNames.threadField(C, T))).isEqualTo("{\"read\":5}");
        String seqs = RedisNames.channelSeqsKey(prefix, C);
        assertThat(redis.getbit(seqs, 4)).as("root 4, deleted meanwhile").isFalse();
        assertThat(redis.getbit(seqs, 6)).isTrue();
        assertThat(redis.exists(RedisNames.channelThreadKey(prefix, C, T)))
                .as("reply 5, deleted meanwhile")
                .isFalse();
        assertThat(redis.getbit(RedisNames.channelSeqsKey(prefix, D), 2)).isTrue();
    }

    /** C's notices, in the order they came, with the versions each carries. */
    private List<String> fiveNotices() throws InterruptedException {
        List<String> received = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            received.add(notices.next(WAIT_MS));
        }
        assertThat(notices.next(0)).as("no notice twice").isNull();
        return received;
    }

    private static long version(String notice) {
        Matcher m = VERSION.matcher(notice);
        assertThat(m.find()).as(notice).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** The notices of the two flushes, in the order written, the first's at {@code first}. */
    private void assertTheNoticesInOrder(List<String> received, long first) {
        long second = Long.parseLong(redis.get(RedisNames.channelVersionKey(prefix, C)));
        assertThat(second).as("the second flush's version").isGreaterThan(first);
        assertThat(received)
                .containsExactly(
                        MessageTypes.channelChanged(C, first, "MESSAGE", 4, 0, MEMBER, false),
                        MessageTypes.channelChanged(C, first, "MESSAGE", 5, T, MEMBER, false),
                        MessageTypes.channelChanged(C, second, "DELETED", 4, 0, MEMBER, false),
                        MessageTypes.channelChanged(C, second, "DELETED", 5, T, MEMBER, false),
                        MessageTypes.channelChanged(C, second, "MESSAGE", 6, 0, MEMBER, false));
    }

    @Test
    void writesTakenWhileAFlushIsInFlightGoOutAfterItAndWin() throws Exception {
        firstWrites();
        handOverAndHold();
        writesMeanwhile();
        sender.release();

        String tracks = RedisNames.channelTracksKey(prefix, MEMBER);
        assertThat(redis.hget(tracks, RedisNames.channelTrackField(C)))
                .as("the first flush is in Redis, the writes meanwhile not yet")
                .isEqualTo("{\"read\":4}");
        assertThat(redis.getbit(RedisNames.channelSeqsKey(prefix, C), 4)).isTrue();
        long first = Long.parseLong(redis.get(RedisNames.channelVersionKey(prefix, C)));

        writer.flush(false);
        assertTheNewerValuesWon();
        assertTheNoticesInOrder(fiveNotices(), first);
    }

    @Test
    void aFlushThatFailedInFlightIsSentAgainWholeBeforeTheWritesTakenMeanwhile() throws Exception {
        firstWrites();
        proxy.down();
        handOverAndHold();
        writesMeanwhile();
        sender.release();

        assertThat(redis.exists(RedisNames.channelVersionKey(prefix, C)))
                .as("nothing of the failed flush")
                .isFalse();
        assertThatThrownBy(() -> writer.flush(false))
                .as("the failure fails the task's next flush")
                .isInstanceOf(IOException.class);
        proxy.up();
        writer.flush(false);

        assertTheNewerValuesWon();
        List<String> received = fiveNotices();
        assertTheNoticesInOrder(received, version(received.get(0)));
    }
}
