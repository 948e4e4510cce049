package dev.unread.api;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A token bucket per key (a user id, a client address): {@code perSecond} tokens a second, up to
 * {@link #BURST_SECONDS} seconds' worth held. The keys tracked are at most {@code maxKeys}, the
 * least recently seen dropped first, so that no caller, authenticated or not, can grow it without
 * bound: a dropped key starts again with a full bucket, which only ever lets a caller through
 * sooner, never refuses one.
 */
final class RateLimiter {

    /** How many seconds of requests a caller that was quiet may make at once. */
    static final int BURST_SECONDS = 5;

    private final double perNano;
    private final double capacity;
    private final Map<Object, double[]> buckets;

    /**
     * @param perSecond tokens a second; 0 turns the limiter off
     * @param capacity tokens a bucket holds at most (the burst)
     */
    RateLimiter(double perSecond, double capacity, int maxKeys) {
        this.perNano = perSecond / 1e9;
        this.capacity = capacity;
        this.buckets =
                new LinkedHashMap<>(16, 0.75f, true) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<Object, double[]> eldest) {
                        return size() > maxKeys;
                    }
                };
    }

    /** {@code perSecond}, holding {@link #BURST_SECONDS} seconds' worth. */
    static RateLimiter perSecond(int perSecond, int maxKeys) {
        return new RateLimiter(perSecond, (double) perSecond * BURST_SECONDS, maxKeys);
    }

    /** {@code perMinute}, holding a minute's worth. */
    static RateLimiter perMinute(int perMinute, int maxKeys) {
        return new RateLimiter(perMinute / 60.0, perMinute, maxKeys);
    }

    /** Takes a token of {@code key}'s bucket: 0 if there was one, else the seconds until one. */
    long take(Object key, long nowNanos) {
        if (perNano == 0) {
            return 0;
        }
        synchronized (buckets) {
            // {tokens, when they were counted}
            double[] bucket = buckets.computeIfAbsent(key, k -> new double[] {capacity, nowNanos});
            double tokens =
                    Math.min(capacity, bucket[0] + Math.max(0, nowNanos - bucket[1]) * perNano);
            bucket[1] = nowNanos;
            if (tokens >= 1) {
                bucket[0] = tokens - 1;
                return 0;
            }
            bucket[0] = tokens;
            return Math.max(1, (long) Math.ceil((1 - tokens) / perNano / 1e9));
        }
    }

    /** 429 with {@code Retry-After} unless {@code key} has a token now. */
    void require(Object key, String what, RetryAfter answer) {
        long seconds = take(key, System.nanoTime());
        if (seconds > 0) {
            answer.header(Long.toString(seconds));
            throw new ApiError(429, "too many " + what + "; retry after " + seconds + " s");
        }
    }

    /** Where the {@code Retry-After} of a refusal goes (the response's headers). */
    interface RetryAfter {
        void header(String seconds);
    }

    /** Keys tracked now, for the test of the bound. */
    int size() {
        synchronized (buckets) {
            return buckets.size();
        }
    }
}
