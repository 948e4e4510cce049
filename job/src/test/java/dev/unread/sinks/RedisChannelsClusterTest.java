package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import dev.unread.events.ChannelWrite;
import dev.unread.testing.RedisClusterServer;
import dev.unread.testing.TestRedis;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.params.MigrateParams;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * {@link RedisChannels}' writer on a real Redis Cluster (three primaries, three replicas): each
 * channel's transaction runs on the primary owning its hash tag's slot, its notices go out on the
 * shard channel of the same slot, and a slot that moved between two flushes loses no write.
 */
class RedisChannelsClusterTest {

    @RegisterExtension static final RedisClusterServer CLUSTER = new RedisClusterServer();

    private static final long INTERVAL_MS = 200;

    private final TestWriterContext context = new TestWriterContext();
    private String prefix;
    private UnreadConfig config;
    private SinkWriter<ChannelWrite> writer;
    private RedisClusterClient redis;

    @BeforeEach
    void start() {
        prefix = TestRedis.uniquePrefix();
        Map<String, String> settings = new HashMap<>(CLUSTER.settings());
        settings.put("redis-key-prefix", prefix);
        settings.put("flush-interval-ms", String.valueOf(INTERVAL_MS));
        config = UnreadConfig.with(settings);
        writer = new RedisChannels(config).createWriter(context);
        redis = config.redisEndpoint().clusterClient("test", 5000, new ConnectionPoolConfig());
    }

    @AfterEach
    void stop() throws Exception {
        writer.close();
        redis.close();
        CLUSTER.deleteKeys(prefix);
    }

    @Test
    void everyChannelIsWrittenInOneTransactionOnItsSlotWithItsNoticesAfter() throws Exception {
        long[] channels = LongStream.rangeClosed(80_001, 80_060).toArray();
        long live = 7;
        try (Jedis primary =
                new Jedis("127.0.0.1", CLUSTER.primaryOwning(RedisNames.liveUsersKey(prefix)))) {
            TestRedis.live(primary, prefix, live);
        }
        try (ShardSubscriber notices =
                        new ShardSubscriber(
                                config, RedisNames.channelChangedChannel(prefix, channels[0]));
                ShardSubscriber pushes =
                        new ShardSubscriber(
                                config, RedisNames.unreadChangedChannel(prefix, live))) {
            for (long c : channels) {
                long seq = c - 80_000;
                writer.write(ChannelWrite.block(c, 0, RedisChannelsTest.block(0, seq)), null);
                writer.write(ChannelWrite.seq(c, true, 0, true, seq), null);
                writer.write(
                        ChannelWrite.notice(c, ChannelWrite.Change.MESSAGE, seq, 0, 9, true), null);
                writer.write(ChannelWrite.track(c, c % 5 + 1, 0, "{\"read\":" + seq + "}"), null);
            }
            writer.write(ChannelWrite.track(channels[0], live, 0, "{\"read\":1}"), null);
            writer.flush(false);

            for (long c : channels) {
                long seq = c - 80_000;
                assertThat(redis.getbit(RedisNames.channelSeqsKey(prefix, c), seq)).isTrue();
                assertThat(redis.zrange(RedisNames.channelAllKey(prefix, c), 0, -1))
                        .containsExactly(Long.toString(seq));
                assertThat(redis.get(RedisNames.channelVersionKey(prefix, c))).isNotNull();
                assertThat(redis.hget(RedisNames.channelTracksKey(prefix, c % 5 + 1), "" + c))
                        .isEqualTo("{\"read\":" + seq + "}");
            }
            long version =
                    Long.parseLong(redis.get(RedisNames.channelVersionKey(prefix, channels[0])));
            assertThat(notices.next())
                    .isEqualTo(
                            MessageTypes.channelChanged(
                                    channels[0], version, "MESSAGE", 1, 0, 9, true));
            assertThat(pushes.next()).isEqualTo(MessageTypes.trackChanged(live, channels[0], 0));
        }
        Set<Integer> primaries =
                LongStream.of(channels)
                        .mapToObj(c -> CLUSTER.primaryOwning(RedisNames.channelSeqsKey(prefix, c)))
                        .collect(Collectors.toSet());
        assertThat(primaries).as("the channels spread over the three primaries").hasSize(3);
    }

    /**
     * A reader reads the tracks, then the index: on a cluster a member's tracks and a channel's
     * index sit on different primaries, so the index must not be written before the tracks are, or
     * a reader counts what the newer track no longer holds. The tracks' primary is paused for
     * writes while a flush runs; the index's version never shows before the track.
     */
    @Test
    void aChannelsIndexIsWrittenOnlyOnceTheFlushsTracksAre() throws Exception {
        long c = 80_001;
        String version = RedisNames.channelVersionKey(prefix, c);
        long user = 1;
        while (CLUSTER.primaryOwning(RedisNames.channelTracksKey(prefix, user))
                == CLUSTER.primaryOwning(version)) {
            user++;
        }
        String tracks = RedisNames.channelTracksKey(prefix, user);
        writer.write(ChannelWrite.track(c, user, 0, "{\"read\":2}"), null);
        writer.write(ChannelWrite.block(c, 0, RedisChannelsTest.block(0, 2)), null);
        int violations = 0;
        try (Jedis tracksPrimary = new Jedis("127.0.0.1", CLUSTER.primaryOwning(tracks));
                Jedis indexPrimary = new Jedis("127.0.0.1", CLUSTER.primaryOwning(version))) {
            tracksPrimary.sendCommand(Protocol.Command.CLIENT, "PAUSE", "1500", "WRITE");
            ExecutorService flusher = Executors.newSingleThreadExecutor();
            try {
                Future<?> flushed =
                        flusher.submit(
                                () -> {
                                    writer.flush(false);
                                    return null;
                                });
                while (!flushed.isDone()) {
                    if (indexPrimary.get(version) != null
                            && tracksPrimary.hget(tracks, "" + c) == null) {
                        violations++;
                    }
                }
                flushed.get();
            } finally {
                flusher.shutdownNow();
            }
            assertThat(tracksPrimary.hget(tracks, "" + c)).isEqualTo("{\"read\":2}");
            assertThat(indexPrimary.get(version)).isNotNull();
        }
        assertThat(violations).as("reads that saw the index before the track").isZero();
    }

    @Test
    void aChannelWhoseSlotMovedBetweenFlushesIsWrittenAtItsNewPrimary() throws Exception {
        long c = 80_001;
        String seqs = RedisNames.channelSeqsKey(prefix, c);
        writer.write(ChannelWrite.block(c, 0, RedisChannelsTest.block(0, 3)), null);
        writer.write(ChannelWrite.seq(c, true, 0, true, 3), null);
        writer.flush(false);

        int slot = JedisClusterCRC16.getSlot(seqs);
        int source = CLUSTER.primaryOwning(seqs);
        int target =
                CLUSTER.primaries().stream().filter(p -> p != source).findFirst().orElseThrow();
        try (Jedis from = new Jedis("127.0.0.1", source);
                Jedis to = new Jedis("127.0.0.1", target)) {
            String targetId = to.clusterMyId();
            to.clusterSetSlotImporting(slot, from.clusterMyId());
            from.clusterSetSlotMigrating(slot, targetId);
            List<String> keys = from.clusterGetKeysInSlot(slot, 100);
            assertThat(keys).hasSize(3);
            from.migrate(
                    "127.0.0.1", target, 5000, new MigrateParams(), keys.toArray(new String[0]));
            for (int port : CLUSTER.primaries()) {
                try (Jedis each = new Jedis("127.0.0.1", port)) {
                    each.clusterSetSlotNode(slot, targetId);
                }
            }
        }

        // The writer's slot map still names the source, which answers MOVED inside the
        // transaction: Redis discards it, and the writer sends it again to the target.
        writer.write(ChannelWrite.block(c, 0, RedisChannelsTest.block(0, 3, 4)), null);
        writer.write(ChannelWrite.seq(c, true, 0, true, 4), null);
        writer.flush(false);

        assertThat(CLUSTER.primaryOwning(seqs)).isEqualTo(target);
        assertThat(redis.getbit(seqs, 3)).isTrue();
        assertThat(redis.getbit(seqs, 4)).isTrue();
        assertThat(redis.zrange(RedisNames.channelAllKey(prefix, c), 0, -1))
                .containsExactly("3", "4");
        assertThat(context.counter(RedisCounts.RETRIES_METRIC)).isPositive();
    }
}
