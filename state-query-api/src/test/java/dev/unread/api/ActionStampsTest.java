package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * "Action stamps" of docs/contract.md: two API instances on the same Redis, one clock ten seconds
 * ahead of the other.
 */
class ActionStampsTest {

    private static final long SKEW_MS = 10_000;

    private static TestStores stores;
    private static RedisUnread aheadRedis;
    private static RedisUnread behindRedis;
    private static RedisWrites ahead;
    private static RedisWrites behind;

    @BeforeAll
    static void start() throws Exception {
        stores = new TestStores();
        ApiConfig config =
                ApiConfig.builder()
                        .redisUrl(TestStores.REDIS_URL)
                        .redisKeyPrefix(stores.keyPrefix)
                        .build();
        aheadRedis = new RedisUnread(config);
        behindRedis = new RedisUnread(config);
        ahead = new RedisWrites(aheadRedis, stores.keyPrefix);
        behind = new RedisWrites(behindRedis, stores.keyPrefix);
    }

    @AfterAll
    static void stop() throws Exception {
        aheadRedis.close();
        behindRedis.close();
        stores.close();
    }

    @Test
    void aLaterActionTakenByALaggingInstanceIsStampedAfterTheEarlierOne() {
        long now = System.currentTimeMillis();
        long mute = ahead.actionStamp(7, now + SKEW_MS);
        long unmute = behind.actionStamp(7, now + 1);
        long mark = behind.actionStamp(7, now + 2);
        long read = ahead.actionStamp(7, now + SKEW_MS - 1);
        System.out.printf(
                "skew %d ms: mute %d, unmute +%d, mark +%d, read +%d%n",
                SKEW_MS, mute, unmute - mute, mark - mute, read - mute);
        assertThat(unmute).isGreaterThan(mute);
        assertThat(mark).isGreaterThan(unmute);
        assertThat(read).isGreaterThan(mark);
    }

    /**
     * Issue 33: a user sending over a thousand actions a second pushed its stamp ahead of the clock
     * without bound, until the job dead-lettered its actions for a day. Stamps stay increasing and
     * at most {@link RedisWrites#MAX_STAMP_AHEAD_MS} ahead; past that an action gets none.
     */
    @Test
    void aStampNeverRunsMoreThanTheBoundAheadOfTheClock() {
        long now = System.currentTimeMillis();
        long last = 0;
        for (int i = 0; i <= RedisWrites.MAX_STAMP_AHEAD_MS; i++) {
            long stamp = behind.actionStamp(10, now);
            assertThat(stamp)
                    .isGreaterThan(last)
                    .isLessThanOrEqualTo(now + RedisWrites.MAX_STAMP_AHEAD_MS);
            last = stamp;
        }
        assertThat(behind.actionStamp(10, now)).as("none past the bound").isZero();
        assertThat(ahead.actionStamp(10, now + 1)).as("the clock moved on").isEqualTo(last + 1);
    }

    @Test
    void eachUserHasItsOwnStampsAndTheClockLeadsWhenItIsAhead() {
        long now = System.currentTimeMillis();
        ahead.actionStamp(8, now + SKEW_MS);
        assertThat(behind.actionStamp(9, now)).isEqualTo(now);
        assertThat(behind.actionStamp(8, now + 2 * SKEW_MS)).isEqualTo(now + 2 * SKEW_MS);
    }
}
