package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RateLimiterTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aQuietCallerMayBurstThenWaitsForTheRate() {
        RateLimiter limiter = RateLimiter.perSecond(2, 10);
        for (int i = 0; i < 2 * RateLimiter.BURST_SECONDS; i++) {
            assertThat(limiter.take("a", 0)).isZero();
        }
        assertThat(limiter.take("a", 0)).isEqualTo(1);
        assertThat(limiter.take("b", 0)).as("another key has its own bucket").isZero();
        assertThat(limiter.take("a", SECOND / 2)).isZero();
        assertThat(limiter.take("a", SECOND / 2)).isEqualTo(1);
    }

    @Test
    void aSlowRateAsksForTheWholeWait() {
        RateLimiter limiter = RateLimiter.perMinute(6, 10);
        for (int i = 0; i < 6; i++) {
            assertThat(limiter.take(7L, 0)).isZero();
        }
        assertThat(limiter.take(7L, 0)).isEqualTo(10);
    }

    @Test
    void unboundedCallersKeepItsMemoryBounded() {
        RateLimiter limiter = RateLimiter.perSecond(1, 1000);
        for (int i = 0; i < 100_000; i++) {
            limiter.take("10.0." + i, i);
        }
        assertThat(limiter.size()).isEqualTo(1000);
    }

    @Test
    void zeroIsOff() {
        RateLimiter limiter = RateLimiter.perSecond(0, 10);
        for (int i = 0; i < 1000; i++) {
            assertThat(limiter.take("a", 0)).isZero();
        }
        assertThat(limiter.size()).isZero();
    }
}
