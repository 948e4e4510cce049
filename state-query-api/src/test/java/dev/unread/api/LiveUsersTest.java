package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.RedisNames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A registration and a removal of the same user on two threads: a stream's registration on the
 * request's thread, the user's erasure (or its last stream's end) on the Redis subscription's. The
 * schedule is driven step by step on one thread: the removal lands after the stream joined and
 * before its registration looked again, so the registration's write must be taken back, or an
 * erased user stays in the live users (issue 45, item 4).
 */
class LiveUsersTest {

    private static final long USER = 10086;

    private final Object lock = new Object();
    private final StreamUsers users = new StreamUsers(2, 8);
    private TestStores stores;
    private RedisUnread redis;
    private LiveUsers live;

    @BeforeEach
    void start() throws Exception {
        stores = new TestStores();
        redis = stores.redisUnread();
        live = new LiveUsers(lock, users, new RedisWrites(redis, stores.keyPrefix), Runnable::run);
    }

    @AfterEach
    void stop() throws Exception {
        redis.close();
        stores.close();
    }

    @Test
    void aUserStreamingWhenRegisteredIsLive() {
        StreamUsersTest.addTo(users, USER);

        live.register(USER);

        assertThat(liveScore()).isNotNull();
    }

    @Test
    void aUserRemovedBetweenItsStreamJoiningAndItsRegistrationIsNotLeftLive() {
        StreamUsersTest.addTo(users, USER);
        synchronized (lock) {
            users.removeUser(USER);
        }

        live.register(USER);

        assertThat(liveScore()).isNull();
    }

    private Double liveScore() {
        return stores.redis.zscore(RedisNames.liveUsersKey(stores.keyPrefix), Long.toString(USER));
    }
}
