package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.UnreadCount;
import dev.unread.testing.RedisClusterServer;
import dev.unread.testing.TestRedis;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * A user's erasure through the Redis sinks, on one Redis and on a Redis Cluster (where the user's
 * keys sit on several primaries): every key of the user goes — each count's, the version — the
 * API's action stamp is set to {@code erasedAt}, and the user leaves the live users and the
 * readers, while another user's keys stay. A count of the user buffered before the erasure is never
 * written; one after it is.
 */
class RedisErasureTest {

    @RegisterExtension static final RedisClusterServer CLUSTER = new RedisClusterServer();

    private static final long USER = 10086;
    private static final long OTHER = 10087;
    private static final long CONVERSATION = 80001;
    private static final long ERASED_AT = 1_767_225_700_000L;

    private final TestWriterContext context = new TestWriterContext();
    private final String prefix = TestRedis.uniquePrefix();
    private final List<Runnable> cleanups = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        cleanups.forEach(Runnable::run);
    }

    @Test
    void onOneRedisEveryKeyOfTheUserGoesAndOnlyThose() throws Exception {
        UnreadConfig config = TestRedis.config("redis://127.0.0.1:6379/0", prefix, 60_000);
        cleanups.add(() -> TestRedis.deleteKeys(prefix));
        try (Jedis redis = TestRedis.connect(0)) {
            everyKeyOfTheUserGoes(config, redis, key -> redis);
        }
    }

    @Test
    void onARedisClusterEveryKeyOfTheUserGoesFromEveryPrimary() throws Exception {
        Map<String, String> settings = new HashMap<>(CLUSTER.settings());
        settings.put("redis-key-prefix", prefix);
        settings.put("flush-interval-ms", "60000");
        UnreadConfig config = UnreadConfig.with(settings);
        cleanups.add(() -> CLUSTER.deleteKeys(prefix));
        Map<Integer, Jedis> nodes = new HashMap<>();
        try {
            for (int port : CLUSTER.primaries()) {
                nodes.put(port, new Jedis("127.0.0.1", port));
            }
            assertThat(new TreeSet<>(keysOf(USER).stream().map(CLUSTER::primaryOwning).toList()))
                    .as("the user's keys lie on more than one primary")
                    .hasSizeGreaterThan(1);
            everyKeyOfTheUserGoes(config, null, key -> nodes.get(CLUSTER.primaryOwning(key)));
        } finally {
            nodes.values().forEach(Jedis::close);
        }
    }

    /**
     * Every API instance serving the user learns of the erasure from the user's own change channel,
     * the one its streams follow: it ends them, and they stop registering the user (issue 45 item
     * 4). Published once the user's keys are gone, whether the user was live or not.
     */
    @Test
    void anErasureIsAnnouncedOnTheUsersChangeChannelAfterItsKeysAreGone() throws Exception {
        UnreadConfig config = TestRedis.config("redis://127.0.0.1:6379/0", prefix, 60_000);
        cleanups.add(() -> TestRedis.deleteKeys(prefix));
        SinkWriter<UnreadCount> counts = new RedisCounts(config).createWriter(context);
        try (TestRedis.Subscriber channel =
                        new TestRedis.Subscriber(RedisNames.unreadChangedChannel(prefix, USER));
                Jedis redis = TestRedis.connect(0)) {
            counts.write(UnreadCount.senders(USER, 3), null);
            counts.flush(false);
            counts.write(UnreadCount.erasure(USER, ERASED_AT), null);
            counts.flush(false);

            assertThat(channel.next(10_000)).isEqualTo(MessageTypes.erased(USER));
            assertThat(redis.exists(Count.SENDERS.key(prefix, USER))).isFalse();
            assertThat(channel.next(200)).as("nothing after it").isNull();
        } finally {
            counts.close();
        }
    }

    /** Every key the job or the API writes for {@code user}. */
    private List<String> keysOf(long user) {
        List<String> keys = new ArrayList<>();
        for (Count kind : Count.values()) {
            if (!keys.contains(kind.key(prefix, user))) {
                keys.add(kind.key(prefix, user));
            }
        }
        keys.add(RedisNames.versionKey(prefix, user));
        keys.add(RedisNames.actionStampKey(prefix, user));
        return keys;
    }

    private void everyKeyOfTheUserGoes(
            UnreadConfig config, Jedis single, Function<String, Jedis> owner) throws Exception {
        String live = RedisNames.liveUsersKey(prefix);
        owner.apply(live).zadd(live, Map.of("" + USER, 4e12, "" + OTHER, 4e12));
        SinkWriter<UnreadCount> counts = new RedisCounts(config).createWriter(context);
        SinkWriter<ReaderUpdate> readers = new RedisReaders(config).createWriter(context);
        try {
            for (long user : new long[] {USER, OTHER}) {
                everyCount(user).forEach(c -> write(counts, c));
                readers.write(new ReaderUpdate(CONVERSATION, user, 7, true), null);
                String stamp = RedisNames.actionStampKey(prefix, user);
                owner.apply(stamp).set(stamp, "1767225600000");
            }
            counts.flush(false);
            readers.flush(false);
            for (String key : keysOf(USER)) {
                assertThat(owner.apply(key).exists(key)).as(key + " written").isTrue();
            }

            // A count before the erasure (in the same flush) is dropped; one after it stays.
            counts.write(UnreadCount.conversation(USER, CONVERSATION + 1, 9), null);
            counts.write(UnreadCount.erasure(USER, ERASED_AT), null);
            counts.write(UnreadCount.senders(USER, 2), null);
            readers.write(ReaderUpdate.removed(CONVERSATION, USER), null);
            counts.flush(false);
            readers.flush(false);

            String stamp = RedisNames.actionStampKey(prefix, USER);
            for (String key : keysOf(USER)) {
                boolean kept = key.equals(Count.SENDERS.key(prefix, USER)) || key.equals(stamp);
                assertThat(owner.apply(key).exists(key))
                        .as(key + " after the erasure")
                        .isEqualTo(kept);
            }
            // An action taken after the erasure on an instance whose clock is behind is stamped
            // after it, not before (issue 45 item 4).
            assertThat(owner.apply(stamp).get(stamp)).isEqualTo(Long.toString(ERASED_AT));
            assertThat(owner.apply(stamp).ttl(stamp))
                    .isBetween(1L, RedisNames.ACTION_STAMP_TTL_SECONDS);
            assertThat(
                            owner.apply(Count.SENDERS.key(prefix, USER))
                                    .get(Count.SENDERS.key(prefix, USER)))
                    .isEqualTo("2");
            assertThat(owner.apply(live).zscore(live, "" + USER)).as("live registration").isNull();
            String readersKey = RedisNames.readersKey(prefix, CONVERSATION);
            assertThat(owner.apply(readersKey).zrange(readersKey, 0, -1))
                    .containsExactly("" + OTHER);
            for (String key : keysOf(OTHER)) {
                assertThat(owner.apply(key).exists(key)).as(key + " of another user").isTrue();
            }
            assertThat(owner.apply(live).zscore(live, "" + OTHER)).isNotNull();

            // An erasure alone leaves nothing of the user at all but the stamp; a later stamp (an
            // action of the user's after the erasure) is not taken back.
            owner.apply(stamp).set(stamp, Long.toString(ERASED_AT + 5));
            counts.write(UnreadCount.erasure(USER, ERASED_AT + 1), null);
            counts.flush(false);
            for (String key : keysOf(USER)) {
                assertThat(owner.apply(key).exists(key)).as(key).isEqualTo(key.equals(stamp));
            }
            assertThat(owner.apply(stamp).get(stamp)).isEqualTo(Long.toString(ERASED_AT + 5));
            if (single != null) {
                Set<String> left = TestRedis.keys(single, prefix);
                left.removeIf(key -> !key.endsWith(":" + USER) || key.equals(stamp));
                assertThat(left).as("every key of the user, by a scan").isEmpty();
            }
        } finally {
            counts.close();
            readers.close();
        }
    }

    private static void write(SinkWriter<UnreadCount> writer, UnreadCount count) {
        try {
            writer.write(count, null);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** One count of every kind, so that every key of the user exists. */
    private static List<UnreadCount> everyCount(long user) {
        List<UnreadCount> counts = new ArrayList<>();
        counts.add(UnreadCount.senders(user, 3));
        counts.add(UnreadCount.conversation(user, CONVERSATION, 4));
        counts.add(UnreadCount.mentions(user, CONVERSATION, 1));
        counts.add(UnreadCount.conversation(user, Count.CHANNEL_MENTIONS, CONVERSATION, 1));
        counts.add(UnreadCount.marked(user, CONVERSATION, true));
        for (Count total :
                List.of(
                        Count.TOTAL_MESSAGES,
                        Count.TOTAL_MENTIONS,
                        Count.TOTAL_CONVERSATIONS,
                        Count.TOTAL_THREADS)) {
            counts.add(UnreadCount.total(user, total, 1));
        }
        counts.add(UnreadCount.thread(user, Count.THREAD, CONVERSATION, 5, 2));
        counts.add(UnreadCount.thread(user, Count.THREAD_MENTIONS, CONVERSATION, 5, 1));
        counts.add(UnreadCount.thread(user, Count.THREAD_CHANNEL_MENTIONS, CONVERSATION, 5, 1));
        return counts;
    }
}
