package dev.unread.bench;

import dev.unread.sinks.RedisUrl;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/** Removes what a benchmark run left in Redis: every key under a prefix. */
final class RedisKeys {

    private static final int SCAN_COUNT = 1000;

    private RedisKeys() {}

    /**
     * Unlinks every key starting with {@code prefix} and returns how many there were. SCAN, not
     * KEYS, so that a large Redis is not blocked while it looks.
     */
    static long deleteUnder(String redisUrl, String prefix) {
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("refusing to delete every key: the prefix is empty");
        }
        long removed = 0;
        try (Jedis redis = RedisUrl.parse(redisUrl).connect("unread-bench", 10_000)) {
            ScanParams match = new ScanParams().match(glob(prefix) + "*").count(SCAN_COUNT);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = redis.scan(cursor, match);
                List<String> keys = page.getResult();
                if (!keys.isEmpty()) {
                    removed += redis.unlink(keys.toArray(String[]::new));
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        }
        return removed;
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
        long keys = 0;
        long bytes = 0;
        long fields = 0;
        try (Jedis redis = RedisUrl.parse(redisUrl).connect("unread-bench", 10_000)) {
            ScanParams match = new ScanParams().match(glob(prefix) + "*").count(SCAN_COUNT);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = redis.scan(cursor, match);
                for (String key : page.getResult()) {
                    if (keys == sample) {
                        return new Memory(keys, bytes, fields);
                    }
                    Long usage = redis.memoryUsage(key);
                    if (usage == null) {
                        continue;
                    }
                    keys++;
                    bytes += usage;
                    if ("hash".equals(redis.type(key))) {
                        fields += redis.hlen(key);
                    }
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        }
        return new Memory(keys, bytes, fields);
    }

    /** Turns the prefix's glob characters into literals, lest a prefix match other keys. */
    static String glob(String literal) {
        return literal.replaceAll("([\\\\*?\\[\\]])", "\\\\$1");
    }
}
