package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.AbstractPipeline;

/**
 * What a stream's counts cost Redis after the job's UNREAD_CHANGED, counted on the API's own
 * connections: a user with no channel gets the job's changes merged into what its stream holds,
 * without a read; a user with a channel (from a TRACK_CHANGED on) has its counts read again.
 */
class CountPushTest {

    private static final long USER = 24_001;
    private static final long CHANNEL = 84_001;

    private final ObjectMapper json = new ObjectMapper();
    private final Object lock = new Object();
    private final StreamUsers users = new StreamUsers(2, 8);
    private final CountingRedis counting = new CountingRedis();
    private final List<String> received = new CopyOnWriteArrayList<>();
    private TestStores stores;
    private RedisUnread redis;
    private StreamSubscriptions subscriptions;
    private CountPush push;

    @BeforeEach
    void start() throws Exception {
        stores = new TestStores();
        ApiConfig config =
                ApiConfig.builder()
                        .redisUrl(TestStores.REDIS_URL)
                        .redisKeyPrefix(stores.keyPrefix)
                        .build();
        redis = new RedisUnread(config, new ApiMetrics(), counting.client());
        subscriptions =
                new StreamSubscriptions(
                        config,
                        lock,
                        new StreamSubscriptions.Listener() {
                            @Override
                            public void message(String channel, String text) {}

                            @Override
                            public void lost(Set<Long> userIds) {}

                            @Override
                            public void lostAll() {}
                        });
        push =
                new CountPush(
                        config,
                        redis,
                        json,
                        lock,
                        users,
                        new ChannelWatch(subscriptions, stores.keyPrefix),
                        Runnable::run);
    }

    @AfterEach
    void stop() throws Exception {
        push.close();
        subscriptions.close();
        redis.close();
        stores.close();
    }

    @Test
    void aUserWithNoChannelGetsTheJobsChangesWithoutARead() throws Exception {
        jobFlush(1, 2);
        open();
        counting.reset();

        jobChanged(jobFlush(2, 5));

        JsonNode change = change(1);
        assertThat(change.get("conversations").get("80001").asLong()).isEqualTo(5);
        assertThat(change.get("totals").get("messages").asLong()).isEqualTo(5);
        assertThat(counting.roundTrips()).as("the API's round trips to Redis").isZero();
    }

    @Test
    void aUserWhoJoinsAChannelHasItsCountsReadAgain() throws Exception {
        jobFlush(1, 2);
        open();
        Poll.until(this::subscribed);
        counting.reset();
        push.trackChanged(USER, CHANNEL);
        Poll.until(() -> counting.roundTrips() > 0);
        counting.reset();

        jobChanged(jobFlush(2, 5));

        assertThat(change(1).get("conversations").get("80001").asLong())
                .as("%s", received)
                .isEqualTo(5);
        assertThat(counting.roundTrips()).as("the API's round trips to Redis").isPositive();
    }

    private void open() throws Exception {
        StreamClient client;
        synchronized (lock) {
            client = StreamUsersTest.addTo(users, USER, received::add);
        }
        client.attach();
        push.start(client);
        assertThat(received).hasSize(1);
    }

    /** Whether the subscription connection, which connects in the background, confirms one. */
    private boolean subscribed() {
        CompletableFuture<Void> confirmed;
        synchronized (lock) {
            confirmed = subscriptions.subscribe(USER, stores.keyPrefix + "probe");
        }
        return confirmed.handle((ok, failed) -> failed == null).join();
    }

    /** The {@code index}th message the stream got, once it came. */
    private JsonNode change(int index) throws Exception {
        Poll.until(() -> received.size() > index, received::toString);
        return json.readTree(received.get(index));
    }

    /** What the job's sink writes in one flush: a conversation's count, the totals, the version. */
    private String jobFlush(long version, long count) {
        try (AbstractPipeline p = stores.redis.pipelined()) {
            p.hset(Count.CONVERSATION.key(stores.keyPrefix, USER), "80001", Long.toString(count));
            p.hset(
                    Count.TOTAL_MESSAGES.key(stores.keyPrefix, USER),
                    "messages",
                    Long.toString(count));
            p.set(RedisNames.versionKey(stores.keyPrefix, USER), Long.toString(version));
        }
        return "{\"type\":\"UNREAD_CHANGED\",\"userId\":"
                + USER
                + ",\"version\":"
                + version
                + ",\"conversations\":{\"80001\":"
                + count
                + "},\"totals\":{\"messages\":"
                + count
                + "}}";
    }

    private void jobChanged(String message) throws Exception {
        push.jobChanged(USER, json.readTree(message));
    }
}
