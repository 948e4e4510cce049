package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import dev.unread.events.ChannelWrite;
import dev.unread.testing.TcpProxy;
import dev.unread.testing.TestRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.BitCountOption;

/**
 * {@link RedisChannels}' writer against the real Redis: the order of a flush (tracks, then each
 * channel's transaction, then its notices), the version, the blocks of the bitmap, and the pushes
 * to live users.
 */
class RedisChannelsTest {
    private static final String URL = "redis://127.0.0.1:6379/0";
    private static final long INTERVAL_MS = 200;
    private static final long WAIT_MS = 10_000;
    private static final long C = 80001;
    private static final long D = 80002;

    private final TestWriterContext context = new TestWriterContext();
    private String prefix;
    private SinkWriter<ChannelWrite> writer;
    private Jedis redis;

    @BeforeEach
    void start() {
        prefix = TestRedis.uniquePrefix();
        writer = newWriter(context);
        redis = TestRedis.connect(0);
    }

    private SinkWriter<ChannelWrite> newWriter(TestWriterContext writerContext) {
        return new RedisChannels(TestRedis.config(URL, prefix, INTERVAL_MS))
                .createWriter(writerContext);
    }

    @AfterEach
    void stop() throws Exception {
        writer.close();
        redis.close();
        TestRedis.deleteKeys(prefix);
    }

    /** The 64 bytes of {@code block} with the bits of {@code seqs} set, as SETBIT sets them. */
    static byte[] block(long block, long... seqs) {
        byte[] bytes = new byte[ChannelWrite.BLOCK_BYTES];
        for (long seq : seqs) {
            long offset = seq - block * ChannelWrite.BLOCK_BYTES * 8;
            bytes[(int) (offset / 8)] |= (byte) (1 << (7 - offset % 8));
        }
        return bytes;
    }

    private void write(ChannelWrite... writes) throws Exception {
        for (ChannelWrite write : writes) {
            writer.write(write, null);
        }
    }

    private long version(long channel) {
        return Long.parseLong(redis.get(RedisNames.channelVersionKey(prefix, channel)));
    }

    @Test
    void aFlushWritesTheTracksThenEachChannelInOneTransactionThenItsNotices() throws Exception {
        String tracks = RedisNames.channelTracksKey(prefix, 7);
        try (RedisMonitor monitor = new RedisMonitor(prefix + "monitor")) {
            write(
                    ChannelWrite.notice(C, ChannelWrite.Change.MESSAGE, 5, 0, 7, true),
                    ChannelWrite.block(C, 0, block(0, 5)),
                    ChannelWrite.seq(C, true, 0, true, 5),
                    ChannelWrite.seq(C, true, 3, false, 6),
                    ChannelWrite.track(C, 7, 0, "{\"read\":5}"),
                    ChannelWrite.track(C, 7, 3, "{\"read\":6}"));
            writer.flush(false);

            List<String> commands = monitor.commandsOfClientOf(tracks, "PUBLISH");
            assertThat(commands)
                    .extracting(command -> command.substring(1, command.indexOf('"', 1)))
                    .containsExactly(
                            "HSET", "MULTI", "SETRANGE", "ZADD", "ZADD", "SET", "EXEC", "PUBLISH");
            assertThat(commands.get(0)).contains(tracks);
            assertThat(commands.get(2))
                    .startsWith(
                            "\"SETRANGE\" \"" + RedisNames.channelSeqsKey(prefix, C) + "\" \"0\"");
            assertThat(commands.subList(3, 5))
                    .containsExactlyInAnyOrder(
                            "\"ZADD\" \""
                                    + RedisNames.channelAllKey(prefix, C)
                                    + "\" \"5.0\" \"5\"",
                            "\"ZADD\" \""
                                    + RedisNames.channelThreadKey(prefix, C, 3)
                                    + "\" \"6.0\" \"6\"");
            assertThat(commands.get(5))
                    .isEqualTo(
                            "\"SET\" \""
                                    + RedisNames.channelVersionKey(prefix, C)
                                    + "\" \""
                                    + version(C)
                                    + "\"");
        }
        assertThat(redis.hgetAll(tracks))
                .isEqualTo(Map.of("80001", "{\"read\":5}", "80001:3", "{\"read\":6}"));
        assertThat(redis.getbit(RedisNames.channelSeqsKey(prefix, C), 5)).isTrue();
    }

    @Test
    void theVersionRisesWithEveryWriteOfTheIndexAndAcrossWriters() throws Exception {
        write(ChannelWrite.block(C, 0, block(0, 1)));
        writer.flush(false);
        long first = version(C);
        write(ChannelWrite.seq(C, true, 0, true, 1));
        writer.flush(false);
        long second = version(C);
        assertThat(second).isGreaterThan(first);

        // A restart: the next writer has a clock of its own, and no state.
        writer.close();
        writer = newWriter(new TestWriterContext());
        write(ChannelWrite.seq(C, false, 0, true, 1));
        writer.flush(false);
        assertThat(version(C)).isGreaterThan(second);
        assertThat(redis.exists(RedisNames.channelAllKey(prefix, C))).isFalse();
    }

    @Test
    void aLostBlockIsRepairedByTheNextWriteOfItsBlock() throws Exception {
        String seqs = RedisNames.channelSeqsKey(prefix, C);
        write(ChannelWrite.block(C, 1, block(1, 600)));
        writer.flush(false);
        // A failover lost the write.
        redis.del(seqs);

        write(ChannelWrite.block(C, 1, block(1, 600, 1000)));
        writer.flush(false);

        assertThat(redis.getbit(seqs, 600)).isTrue();
        assertThat(redis.getbit(seqs, 1000)).isTrue();
        assertThat(redis.bitcount(seqs)).isEqualTo(2);
    }

    @Test
    void aBlocksBitsCountAsTheStageSetThem() throws Exception {
        long seed = System.nanoTime();
        System.out.println("aBlocksBitsCountAsTheStageSetThem seed " + seed);
        Random random = new Random(seed);
        TreeSet<Long> roots = new TreeSet<>();
        int blocks = 4;
        for (int block = 0; block < blocks; block++) {
            List<Long> seqs = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                seqs.add(block * 512L + random.nextInt(512));
            }
            roots.addAll(seqs);
            write(
                    ChannelWrite.block(
                            C, block, block(block, seqs.stream().mapToLong(s -> s).toArray())));
        }
        writer.flush(false);

        String seqs = RedisNames.channelSeqsKey(prefix, C);
        for (int i = 0; i < 50; i++) {
            long a = random.nextInt(blocks * 512);
            long b = a + random.nextInt(blocks * 512 - (int) a);
            assertThat(redis.bitcount(seqs, a, b, BitCountOption.BIT))
                    .as("BITCOUNT %d %d BIT, seed %d", a, b, seed)
                    .isEqualTo(roots.subSet(a, true, b, true).size());
        }
        assertThat(redis.bitcount(seqs)).isEqualTo(roots.size());
    }

    @Test
    void aNoticeCarriesTheVersionItsChannelsTransactionSet() throws Exception {
        try (TestRedis.Subscriber notices =
                new TestRedis.Subscriber(
                        RedisNames.channelChangedChannel(prefix, C),
                        RedisNames.channelChangedChannel(prefix, D))) {
            write(
                    ChannelWrite.block(C, 0, block(0, 9)),
                    ChannelWrite.notice(C, ChannelWrite.Change.MESSAGE, 9, 0, 4, false),
                    ChannelWrite.notice(D, ChannelWrite.Change.EDITED, 12, 10, 5, true));
            writer.flush(false);

            assertThat(notices.next(WAIT_MS))
                    .isEqualTo(
                            "{\"type\":\"CHANNEL_CHANGED\",\"conversationId\":80001,\"version\":"
                                    + version(C)
                                    + ",\"change\":\"MESSAGE\",\"seq\":9,\"threadSeq\":0,"
                                    + "\"senderId\":4,\"mentionsAll\":false}");
            assertThat(notices.next(WAIT_MS))
                    .as(
                            "a notice without an index write: its channel's version is set all the same")
                    .isEqualTo(
                            MessageTypes.channelChanged(D, version(D), "EDITED", 12, 10, 5, true));
            assertThat(version(D)).isNotEqualTo(version(C));
        }
    }

    @Test
    void trackChangedGoesToLiveMembersOnly() throws Exception {
        TestRedis.live(redis, prefix, 7);
        try (TestRedis.Subscriber pushes =
                new TestRedis.Subscriber(
                        RedisNames.unreadChangedChannel(prefix, 7),
                        RedisNames.unreadChangedChannel(prefix, 8))) {
            write(
                    ChannelWrite.track(C, 8, 0, "{\"read\":3}"),
                    ChannelWrite.track(C, 7, 0, "{\"read\":3}"),
                    ChannelWrite.track(C, 7, 2, null),
                    ChannelWrite.block(C, 0, block(0, 3)));
            writer.flush(false);
            write(ChannelWrite.track(D, 7, 0, "{\"read\":1}"));
            writer.flush(false);

            // One connection publishes in order: a push to 8 would come before the second flush's.
            assertThat(List.of(pushes.next(WAIT_MS), pushes.next(WAIT_MS), pushes.next(WAIT_MS)))
                    .containsExactly(
                            "{\"type\":\"TRACK_CHANGED\",\"userId\":7,\"conversationId\":80001,"
                                    + "\"threadSeq\":0}",
                            MessageTypes.trackChanged(7, C, 2),
                            MessageTypes.trackChanged(7, D, 0));
        }
        assertThat(redis.hgetAll(RedisNames.channelTracksKey(prefix, 8)))
                .as("a member nobody watches has its track all the same")
                .isEqualTo(Map.of("80001", "{\"read\":3}"));
    }

    @Test
    void writesOfOneFieldOrMemberWithinAFlushAreSentOnceTheLast() throws Exception {
        String tracks = RedisNames.channelTracksKey(prefix, 7);
        String all = RedisNames.channelAllKey(prefix, C);
        redis.hset(tracks, "80001:4", "{\"read\":1}");
        write(
                ChannelWrite.track(C, 7, 0, "{\"read\":1}"),
                ChannelWrite.track(C, 7, 0, "{\"read\":2}"),
                ChannelWrite.track(C, 7, 4, "{\"read\":2}"),
                ChannelWrite.track(C, 7, 4, null),
                ChannelWrite.seq(C, true, 0, true, 8),
                ChannelWrite.seq(C, false, 0, true, 8),
                ChannelWrite.seq(C, true, 0, true, 9),
                ChannelWrite.block(C, 0, block(0, 8)),
                ChannelWrite.block(C, 0, block(0, 9)));
        writer.flush(false);

        assertThat(redis.hgetAll(tracks)).isEqualTo(Map.of("80001", "{\"read\":2}"));
        assertThat(redis.zrangeWithScores(all, 0, -1))
                .extracting(t -> t.getElement() + "@" + t.getScore())
                .containsExactly("9@9.0");
        String seqs = RedisNames.channelSeqsKey(prefix, C);
        assertThat(redis.getbit(seqs, 8)).isFalse();
        assertThat(redis.getbit(seqs, 9)).isTrue();
        assertThat(context.counter(RedisCounts.COALESCED_METRIC)).isEqualTo(4);
        // HSET, HDEL, the transaction (one command), and the read of who is live.
        assertThat(context.counter(RedisCounts.COMMANDS_METRIC)).isEqualTo(4);
    }

    @Test
    void aFailedFlushIsSentWholeByTheNextItsNoticesWithTheVersionItsTransactionSet()
            throws Exception {
        try (TcpProxy proxy = new TcpProxy(TestRedis.HOST, TestRedis.PORT);
                TestRedis.Subscriber notices =
                        new TestRedis.Subscriber(RedisNames.channelChangedChannel(prefix, C))) {
            writer.close();
            writer =
                    new RedisChannels(
                                    TestRedis.config(
                                            "redis://" + proxy.address() + "/0",
                                            prefix,
                                            INTERVAL_MS))
                            .createWriter(new TestWriterContext());
            proxy.down();
            write(
                    ChannelWrite.track(C, 7, 0, "{\"read\":4}"),
                    ChannelWrite.block(C, 0, block(0, 4)),
                    ChannelWrite.notice(C, ChannelWrite.Change.MESSAGE, 4, 0, 7, false));
            assertThatThrownBy(() -> writer.flush(false)).isInstanceOf(IOException.class);
            assertThat(redis.exists(RedisNames.channelVersionKey(prefix, C))).isFalse();

            proxy.up();
            writer.flush(false);
            assertThat(redis.getbit(RedisNames.channelSeqsKey(prefix, C), 4)).isTrue();
            assertThat(redis.hget(RedisNames.channelTracksKey(prefix, 7), "80001"))
                    .isEqualTo("{\"read\":4}");
            assertThat(notices.next(WAIT_MS))
                    .isEqualTo(
                            MessageTypes.channelChanged(C, version(C), "MESSAGE", 4, 0, 7, false));
        }
    }

    @Test
    void keysOfTheWrongTypeAreReplaced() throws Exception {
        String seqs = RedisNames.channelSeqsKey(prefix, C);
        String all = RedisNames.channelAllKey(prefix, C);
        String thread = RedisNames.channelThreadKey(prefix, C, 3);
        redis.hset(seqs, "not", "a bitmap");
        redis.set(all, "not a sorted set");
        redis.zadd(thread, 4, "4");
        write(
                ChannelWrite.block(C, 0, block(0, 2)),
                ChannelWrite.seq(C, true, 0, true, 2),
                ChannelWrite.seq(C, true, 3, false, 5));
        writer.flush(false);

        assertThat(redis.getbit(seqs, 2)).isTrue();
        assertThat(redis.zrange(all, 0, -1)).containsExactly("2");
        assertThat(redis.zrange(thread, 0, -1)).containsExactly("4", "5");
        assertThat(context.counter(RedisWriter.WRONG_TYPE_METRIC)).isEqualTo(2);
        assertThat(version(C)).isPositive();
    }
}
