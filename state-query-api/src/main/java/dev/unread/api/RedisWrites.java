package dev.unread.api;

import dev.unread.contract.RedisNames;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.params.ZAddParams;

/**
 * What the API writes to Redis: each user's action stamp, which orders the user's actions across
 * API instances (docs/contract.md, "Action stamps"), and the users with a live stream here, for
 * whom the job publishes changes ("Live push").
 */
final class RedisWrites {

    /** Bounds a refresh's commands: an instance serves up to 10,000 streams by default. */
    private static final int LIVE_USERS_PER_COMMAND = 1000;

    private final RedisUnread redis;
    private final String keyPrefix;

    RedisWrites(RedisUnread redis, String keyPrefix) {
        this.redis = redis;
        this.keyPrefix = keyPrefix;
    }

    /**
     * How far a user's action stamp may run ahead of the clock: a minute of over a thousand actions
     * a second, or of clock skew between API instances; far below the job's {@code
     * --max-future-skew-ms}, past which it dead-letters an action.
     */
    static final long MAX_STAMP_AHEAD_MS = 60_000;

    // Doubles hold epoch milliseconds exactly; '%.0f' keeps Lua from writing them as 1.7e+12.
    private static final String NEXT_ACTION_STAMP =
            "local last = tonumber(redis.call('GET', KEYS[1]) or '0') or 0\n"
                    + "local stamp = tonumber(ARGV[1])\n"
                    + "if stamp <= last then stamp = last + 1 end\n"
                    + "if stamp > tonumber(ARGV[1]) + tonumber(ARGV[3]) then return 0 end\n"
                    + "redis.call('SET', KEYS[1], string.format('%.0f', stamp), 'EX', ARGV[2])\n"
                    + "return stamp";

    private static final String REMOVE_LIVE_USER_AT =
            "if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1') == tonumber(ARGV[2]) then\n"
                    + "  return redis.call('ZREM', KEYS[1], ARGV[1])\n"
                    + "end\n"
                    + "return 0";

    /**
     * The stamp of a user's action taken at {@code now} by this instance's clock: {@code now}, or
     * one more than the user's newest stamp if that is not older, so that an action taken after
     * another one was answered is stamped after it whichever instance took either; 0 (none) when
     * that would be more than {@link #MAX_STAMP_AHEAD_MS} ahead of {@code now}.
     */
    long actionStamp(long userId, long now) {
        String key = RedisNames.actionStampKey(keyPrefix, userId);
        List<String> args =
                List.of(
                        Long.toString(now),
                        Long.toString(RedisNames.ACTION_STAMP_TTL_SECONDS),
                        Long.toString(MAX_STAMP_AHEAD_MS));
        return (Long) redis.run(jedis -> jedis.eval(NEXT_ACTION_STAMP, List.of(key), args));
    }

    /**
     * Adds {@code userIds} to the live users until {@code until} (epoch ms; ZADD GT, so another
     * instance's later time stands) and drops the users whose time passed before {@code now}: the
     * job publishes changes only for live users (docs/contract.md, "Live push"). In commands of at
     * most {@link #LIVE_USERS_PER_COMMAND} users.
     */
    void markLive(Collection<Long> userIds, long until, long now) {
        String key = RedisNames.liveUsersKey(keyPrefix);
        Map<String, Double> members = new HashMap<>();
        redis.run(
                jedis -> {
                    for (Long user : userIds) {
                        members.put(user.toString(), (double) until);
                        if (members.size() == LIVE_USERS_PER_COMMAND) {
                            jedis.zadd(key, members, ZAddParams.zAddParams().gt());
                            members.clear();
                        }
                    }
                    if (!members.isEmpty()) {
                        jedis.zadd(key, members, ZAddParams.zAddParams().gt());
                    }
                    jedis.zremrangeByScore(key, "-inf", "(" + now);
                    return null;
                });
    }

    /**
     * Removes {@code userId} from the live users if its time there is still {@code until}, the one
     * this instance wrote last: a later time is another instance's (or a newer stream's here),
     * whose stream is still open.
     */
    void unmarkLive(long userId, long until) {
        String key = RedisNames.liveUsersKey(keyPrefix);
        List<String> args = List.of(Long.toString(userId), Long.toString(until));
        redis.run(jedis -> jedis.eval(REMOVE_LIVE_USER_AT, List.of(key), args));
    }
}
