package dev.unread.bench;

import dev.unread.sinks.RedisUrl;
import java.util.List;
import java.util.function.Predicate;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/** Removes what a benchmark run left in Redis: every key under a prefix. */
final class RedisKeys {

    private static final int SCAN_COUNT = 1000;

    private RedisKeys() {}

    /**
     * Unlinks every key starting with {@code prefix} and returns how many there were.
     */
    static long deleteUnder(String redisUrl, String prefix) {
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("refusing to delete every key: the prefix is empty");
        }
        long[] removed = {0};
        try (Jedis redis = connect(redisUrl)) {
            scan(redis, prefix, keys -> {
                if (!keys.isEmpty()) {
                    removed[0] += redis.unlink(keys.toArray(String[]::new));
                }
                return true;
            });
        }
        return removed[0];
    }

    /** What a sample of keys under a prefix takes in Redis' memory ({@code MEMORY USAGE}). */
    record Memory(long keys, long bytes, long hashFields) {
        double bytesPerKey() {
            return keys == 0 ? 0 : (double) bytes / keys;
        }

        double bytesPerHashField() {
            return hashFields == 0 ? 0 : (double) bytes / hashFields;
        }
    }

    /**
     * The memory of up to {@code sample} keys starting with {@code prefix}, with how many hash
     * fields they hold: what a capacity estimate multiplies by the number of users.
     */
    static Memory memory(String redisUrl, String prefix, int sample) {
        long[] totals = new long[3];
        try (Jedis redis = connect(redisUrl)) {
            scan(redis, prefix, keys -> {
                for (String key : keys) {
                    if (totals[0] == sample) {
                        return false;
                    }
                    Long usage = redis.memoryUsage(key);
                    if (usage == null) {
                        continue;
                    }
                    totals[0]++;
                    totals[1] += usage;
                    if ("hash".equals(redis.type(key))) {
                        totals[2] += redis.hlen(key);
                    }
                }
                return true;
            });
        }
        return new Memory(totals[0], totals[1], totals[2]);
    }

    private static Jedis connect(String redisUrl) {
        return RedisUrl.parse(redisUrl).connect("unread-bench", 10_000);
    }

    /**
     * Hands each page of keys under {@code prefix} to {@code page} until it returns false or the
     * keys run out. SCAN, not KEYS, so that a large Redis is not blocked while it looks.
     */
    private static void scan(Jedis redis, String prefix, Predicate<List<String>> page) {
        ScanParams match = new ScanParams().match(glob(prefix) + "*").count(SCAN_COUNT);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> result = redis.scan(cursor, match);
            if (!page.test(result.getResult())) {
                return;
            }
            cursor = result.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    }

    /** Turns the prefix's glob characters into literals, lest a prefix match other keys. */
    static String glob(String literal) {
        return literal.replaceAll("([\\\\*?\\[\\]])", "\\\\$1");
    }
}
