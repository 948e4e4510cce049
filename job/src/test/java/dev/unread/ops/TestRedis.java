package dev.unread.ops;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The Redis the tests share (127.0.0.1:6379, database 0): each test works under a key prefix of
 * its own and deletes only its keys, never the database.
 */
final class TestRedis {

    private TestRedis() {}

    static String uniquePrefix() {
        return "unread-ops-test:" + UUID.randomUUID() + ":";
    }

    /** Strings under {@code prefix}: key → value. */
    static Map<String, String> strings(String prefix) {
        Map<String, String> strings = new TreeMap<>();
        try (Jedis jedis = new Jedis("127.0.0.1", 6379)) {
            for (String key : keys(jedis, prefix)) {
                if (jedis.type(key).equals("string")) {
                    strings.put(key, jedis.get(key));
                }
            }
        }
        return strings;
    }

    /** Hashes under {@code prefix}: key → field → value. */
    static Map<String, Map<String, String>> hashes(String prefix) {
        Map<String, Map<String, String>> hashes = new TreeMap<>();
        try (Jedis jedis = new Jedis("127.0.0.1", 6379)) {
            for (String key : keys(jedis, prefix)) {
                if (jedis.type(key).equals("hash")) {
                    hashes.put(key, new TreeMap<>(jedis.hgetAll(key)));
                }
            }
        }
        return hashes;
    }

    static void deleteKeys(String prefix) {
        try (Jedis jedis = new Jedis("127.0.0.1", 6379)) {
            for (String key : keys(jedis, prefix)) {
                jedis.del(key);
            }
        }
    }

    private static Set<String> keys(Jedis jedis, String prefix) {
        Set<String> keys = new HashSet<>();
        ScanParams params = new ScanParams().match(prefix + "*").count(1000);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = jedis.scan(cursor, params);
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return keys;
    }
}
