package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import dev.unread.events.ReadReceipt;
import dev.unread.events.UnreadCount;
import dev.unread.testing.BroadcastWitness;
import dev.unread.testing.Poll;
import dev.unread.testing.RedisClusterServer;
import dev.unread.testing.TestRedis;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisShardedPubSub;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Both Redis sinks' writers on a real Redis Cluster (three primaries, three replicas): writes land
 * on the primary owning each key, receipts go out on the shard channel, and a slot that moves
 * between two flushes (MOVED) or is being migrated (ASK) loses no write.
 */
class RedisClusterSinksTest {

    @RegisterExtension static final RedisClusterServer CLUSTER = new RedisClusterServer();

    private static final long INTERVAL_MS = 200;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static final Duration FAILOVER_WAIT = Duration.ofSeconds(90);

    private static final Duration FAILOVER_RETRY = Duration.ofSeconds(15);

    private final TestWriterContext context = new TestWriterContext();
    private String prefix;
    private UnreadConfig config;
    private SinkWriter<UnreadCount> counts;

    @BeforeEach
    void start() {
        prefix = TestRedis.uniquePrefix();
        Map<String, String> settings = new HashMap<>(CLUSTER.settings());
        settings.put("redis-key-prefix", prefix);
        settings.put("flush-interval-ms", String.valueOf(INTERVAL_MS));
        config = UnreadConfig.with(settings);
        counts = new RedisCounts(config).createWriter(context);
    }

    /** Adds {@code users} to the live users, on the primary owning that key. */
    private void live(long... users) {
        String key = RedisNames.liveUsersKey(prefix);
        try (Jedis primary = new Jedis("127.0.0.1", CLUSTER.primaryOwning(key))) {
            TestRedis.live(primary, prefix, users);
        }
    }

    @AfterEach
    void stop() throws Exception {
        counts.close();
        CLUSTER.deleteKeys(prefix);
    }

    @Test
    void aClusterNodeGivenAsTheOneRedisIsRefusedWithTheSettingToSet() throws Exception {
        int node = CLUSTER.primaries().get(0);
        UnreadConfig single =
                UnreadConfig.with(
                        Map.of(
                                "redis-url",
                                "redis://127.0.0.1:" + node + "/0",
                                "redis-key-prefix",
                                prefix));
        SinkWriter<UnreadCount> writer = new RedisCounts(single).createWriter(context);
        try {
            for (long user = 1; user <= 50; user++) {
                writer.write(UnreadCount.senders(user, 1), null);
            }
            assertThatThrownBy(() -> writer.flush(false))
                    .as("a MOVED retried until the task fails says nothing of the setting")
                    .hasStackTraceContaining(
                            "127.0.0.1:"
                                    + node
                                    + " is a Redis Cluster node: set UNREAD_REDIS_CLUSTER_NODES");
        } finally {
            writer.close();
        }
    }

    @Test
    void everyCountLandsOnThePrimaryOwningItsKeyInOneFlush() throws Exception {
        int users = RedisConnection.BATCH_SIZE * 2 + 500;
        live(LongStream.rangeClosed(1, users).toArray());
        Map<String, String> badges = new TreeMap<>();
        Map<String, Map<String, String>> conversations = new TreeMap<>();
        for (long user = 1; user <= users; user++) {
            counts.write(UnreadCount.senders(user, user % 7), null);
            counts.write(UnreadCount.conversation(user, 80_000 + user % 3, user % 5 + 1), null);
            if (user % 7 != 0) {
                badges.put(Count.SENDERS.key(prefix, user), String.valueOf(user % 7));
            }
            conversations.put(
                    Count.CONVERSATION.key(prefix, user),
                    Map.of(String.valueOf(80_000 + user % 3), String.valueOf(user % 5 + 1)));
        }
        counts.flush(false);

        assertThat(CLUSTER.strings(prefix)).isEqualTo(badges);
        assertThat(CLUSTER.hashes(prefix)).isEqualTo(conversations);
        assertThat(CLUSTER.keysPerPrimary(prefix).values())
                .as("keys spread over the three primaries")
                .hasSize(3)
                .allMatch(n -> n > users / 2);
        // Per user: the badge (a command each on a cluster, where one of several keys would need
        // them in one slot), the conversation, and the live push's version and UNREAD_CHANGED;
        // per flush the read of who is live.
        assertThat(context.counter(RedisCounts.COMMANDS_METRIC)).isEqualTo(4L * users + 1);
        assertThat(context.counter(RedisCounts.FLUSHES_METRIC)).isEqualTo(1L);
        // Ten batches of 1,000 commands, each sent to the three primaries its keys live on
        // (UNREAD_CHANGED goes out with SPUBLISH, to the primary of its channel's slot like a
        // key), and between the counts and the pushes the read of who is live, on one primary.
        assertThat(context.counter(RedisCounts.ROUND_TRIPS_METRIC)).isEqualTo(10 * 3L + 1);
    }

    /**
     * A live client's snapshot reads the user's version, then the counts: on a cluster the two sit
     * on different primaries, so the version must not be written before the counts are, or a
     * snapshot holds the new version with the old counts and drops the change that carries them as
     * not newer (issue 22, item 10). The counts' primary is paused for writes while a flush runs;
     * the version never shows before the count.
     */
    @Test
    void aUsersVersionIsWrittenOnlyOnceTheCountsItStandsForAre() throws Exception {
        long user = 1;
        while (CLUSTER.primaryOwning(Count.SENDERS.key(prefix, user))
                == CLUSTER.primaryOwning(RedisNames.versionKey(prefix, user))) {
            user++;
        }
        String badge = Count.SENDERS.key(prefix, user);
        String version = RedisNames.versionKey(prefix, user);
        live(user);
        counts.write(UnreadCount.senders(user, 3), null);
        int violations = 0;
        try (Jedis countsPrimary = new Jedis("127.0.0.1", CLUSTER.primaryOwning(badge));
                Jedis versionPrimary = new Jedis("127.0.0.1", CLUSTER.primaryOwning(version))) {
            countsPrimary.sendCommand(Protocol.Command.CLIENT, "PAUSE", "1500", "WRITE");
            java.util.concurrent.ExecutorService flusher =
                    java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                var flushed =
                        flusher.submit(
                                () -> {
                                    counts.flush(false);
                                    return null;
                                });
                while (!flushed.isDone()) {
                    if (versionPrimary.get(version) != null && countsPrimary.get(badge) == null) {
                        violations++;
                    }
                }
                flushed.get();
            } finally {
                flusher.shutdownNow();
            }
            assertThat(countsPrimary.get(badge)).isEqualTo("3");
            assertThat(versionPrimary.get(version)).isNotNull();
        }
        assertThat(violations).as("reads that saw the version before the count").isZero();
    }

    @Test
    void receiptsGoOutInOrderOnTheShardChannel() throws Exception {
        String channel = RedisNames.readProgressChannel(prefix);
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        java.util.concurrent.CountDownLatch subscribed = new java.util.concurrent.CountDownLatch(1);
        JedisShardedPubSub pubSub =
                new JedisShardedPubSub() {
                    @Override
                    public void onSSubscribe(String channel, int subscribedChannels) {
                        subscribed.countDown();
                    }

                    @Override
                    public void onSMessage(String channel, String message) {
                        heard.add(message);
                    }
                };
        try (RedisClusterClient subscriber =
                        config.redisEndpoint()
                                .clusterClient(
                                        "test-subscriber", 5000, new ConnectionPoolConfig());
                SinkWriter<ReadReceipt> receipts =
                        new RedisReceipts(config).createWriter(new TestWriterContext())) {
            Thread thread = new Thread(() -> subscriber.ssubscribe(pubSub, channel));
            thread.setDaemon(true);
            thread.start();
            assertThat(subscribed.await(10, TimeUnit.SECONDS)).isTrue();
            for (int seq = 1; seq <= 50; seq++) {
                receipts.write(new ReadReceipt(80001, 10086, seq, ReadReceipt.EVERYONE), null);
            }
            receipts.flush(false);
            for (int seq = 1; seq <= 50; seq++) {
                assertThat(heard.poll(10, TimeUnit.SECONDS))
                        .endsWith("\"userId\":10086,\"readSeq\":" + seq + "}");
            }
            pubSub.sunsubscribe();
            thread.join(10_000);
        }
    }

    @Test
    void aUsersChannelsAreShardChannelsThatNoClassicSubscriberHears() throws Exception {
        long user = 10086;
        String changed = RedisNames.unreadChangedChannel(prefix, user);
        String receipts = RedisNames.readReceiptsChannel(prefix, user);
        try (BroadcastWitness witness = new BroadcastWitness(CLUSTER.ports(), prefix);
                ShardSubscriber changes = new ShardSubscriber(config, changed);
                ShardSubscriber concerning = new ShardSubscriber(config, receipts);
                SinkWriter<ReadReceipt> receiptWriter =
                        new RedisReceipts(config).createWriter(new TestWriterContext())) {
            live(user);
            counts.write(UnreadCount.senders(user, 3), null);
            counts.flush(false);
            receiptWriter.write(new ReadReceipt(80001, 20002, 7, user), null);
            receiptWriter.flush(false);

            assertThat(changes.next())
                    .startsWith("{\"type\":\"UNREAD_CHANGED\",\"userId\":10086,")
                    .contains("\"unreadSenders\":3");
            assertThat(concerning.next())
                    .isEqualTo(
                            "{\"type\":\"READ_RECEIPT\",\"conversationId\":80001,"
                                    + "\"userId\":20002,\"readSeq\":7}");
            assertThat(witness.heard()).as("classic subscribers on every node").isEmpty();
        }
    }

    @Test
    void aSlotThatMovedBetweenFlushesIsWrittenAtItsNewPrimary() throws Exception {
        String key = Count.SENDERS.key(prefix, 10086);
        counts.write(UnreadCount.senders(10086, 1), null);
        counts.flush(false);
        int primary = ownerOf(key);

        // A replica takes over by hand: the old primary stays up and answers MOVED. A manual
        // failover the replica cannot finish in time (a loaded machine) is abandoned, not
        // retried, so it is asked again now and then until the replica owns the slot.
        int replica = replicaOf(primary);
        long[] nextRequest = {0};
        Poll.until(
                "the replica at " + replica + " owns " + key,
                FAILOVER_WAIT,
                () -> {
                    if (ownerOrNone(key) == replica && CLUSTER.primaries().size() == 3) {
                        return true;
                    }
                    if (System.nanoTime() - nextRequest[0] >= 0) {
                        requestFailover(replica);
                        nextRequest[0] = System.nanoTime() + FAILOVER_RETRY.toNanos();
                    }
                    return null;
                });

        counts.write(UnreadCount.senders(10086, 2), null);
        counts.flush(false);
        assertThat(CLUSTER.strings(prefix)).containsExactly(Map.entry(key, "2"));
    }

    /** CLUSTER FAILOVER at {@code replica}; refused once it is a primary, which is the goal. */
    private static void requestFailover(int replica) {
        try (Jedis jedis = new Jedis("127.0.0.1", replica)) {
            jedis.clusterFailover();
        } catch (JedisDataException e) {
            // "You should send CLUSTER FAILOVER to a replica": it took over meanwhile.
        }
    }

    @Test
    void aKeyWhoseSlotIsBeingMigratedIsWrittenWhereAskSends() throws Exception {
        String key = Count.SENDERS.key(prefix, 20_000);
        int slot = JedisClusterCRC16.getSlot(key);
        int source = ownerOf(key);
        int target =
                CLUSTER.primaries().stream().filter(p -> p != source).findFirst().orElseThrow();
        try (Jedis from = new Jedis("127.0.0.1", source);
                Jedis to = new Jedis("127.0.0.1", target)) {
            String sourceId = from.clusterMyId();
            String targetId = to.clusterMyId();
            to.clusterSetSlotImporting(slot, sourceId);
            from.clusterSetSlotMigrating(slot, targetId);
            try {
                counts.write(UnreadCount.senders(20_000, 9), null);
                counts.flush(false);
                assertThat(from.clusterCountKeysInSlot(slot)).as("keys at the source").isZero();
                try (Connection asking = new Connection("127.0.0.1", target)) {
                    asking.executeCommand(redis.clients.jedis.Protocol.Command.ASKING);
                    assertThat(
                                    asking.executeCommand(
                                            new redis.clients.jedis.CommandArguments(
                                                            redis.clients.jedis.Protocol.Command
                                                                    .GET)
                                                    .key(key)))
                            .isEqualTo("9".getBytes());
                }
            } finally {
                // The migration completes: the slot and the key now belong to the target.
                to.clusterSetSlotNode(slot, targetId);
                from.clusterSetSlotNode(slot, targetId);
                for (int port : CLUSTER.primaries()) {
                    try (Jedis other = new Jedis("127.0.0.1", port)) {
                        other.clusterSetSlotNode(slot, targetId);
                    }
                }
            }
        }
        assertThat(CLUSTER.strings(prefix)).containsExactly(Map.entry(key, "9"));
    }

    /** The port of the primary owning {@code key}'s slot, as the cluster says now. */
    private static int ownerOf(String key) {
        int owner = ownerOrNone(key);
        if (owner < 0) {
            throw new AssertionError("no primary owns slot " + JedisClusterCRC16.getSlot(key));
        }
        return owner;
    }

    /** {@link #ownerOf}, or -1 while no primary claims the slot (in the middle of a failover). */
    private static int ownerOrNone(String key) {
        return CLUSTER.primaryOwning(key);
    }

    private static int replicaOf(int primary) {
        try (Jedis jedis = new Jedis("127.0.0.1", primary)) {
            String id = jedis.clusterMyId();
            return jedis.clusterNodes()
                    .lines()
                    .filter(l -> l.contains("slave " + id) && !l.contains("fail"))
                    .map(l -> Integer.parseInt(l.split(" ")[1].replaceAll(".*:(\\d+)@.*", "$1")))
                    .findFirst()
                    .orElseThrow();
        }
    }
}
