package dev.unread.bench;

import dev.unread.contract.RedisEndpoint;
import dev.unread.contract.RedisNames;
import dev.unread.generator.Workload;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.ScanIteration;
import redis.clients.jedis.UnifiedJedis;

/**
 * What a benchmark run left in Redis, on one node or a cluster (where every primary is scanned):
 * every key under a prefix, removed or measured.
 */
final class RedisKeys {

    /** A line of {@code INFO commandstats}: the command and its calls. */
    private static final Pattern CPU_SECONDS = Pattern.compile("^used_cpu_(?:sys|user):([0-9.]+)$");

    private static final Pattern COMMAND_CALLS = Pattern.compile("^cmdstat_([^:]+):calls=(\\d+)");

    private static final int SCAN_COUNT = 1000;

    private RedisKeys() {}

    /** Unlinks every key starting with {@code prefix} and returns how many there were. */
    static long deleteUnder(RedisEndpoint redis, String prefix) {
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("refusing to delete every key: the prefix is empty");
        }
        long[] removed = {0};
        try (UnifiedJedis client = connect(redis)) {
            scan(
                    client,
                    prefix,
                    keys -> {
                        if (!keys.isEmpty()) {
                            removed[0] += client.unlink(keys.toArray(String[]::new));
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
    static Memory memory(RedisEndpoint redisEndpoint, String prefix, int sample) {
        long[] totals = new long[3];
        try (UnifiedJedis redis = connect(redisEndpoint)) {
            scan(
                    redis,
                    prefix,
                    keys -> {
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

    /**
     * Calls per command since the server started ({@code INFO commandstats}), server-wide: every
     * client's, so the difference over a run is the run's only when nothing else writes. Empty on a
     * cluster, where each node counts its own.
     */
    static Map<String, Long> calls(RedisEndpoint redis) {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : info(redis, "commandstats")) {
            Matcher m = COMMAND_CALLS.matcher(line);
            if (m.find()) {
                calls.put(m.group(1), Long.parseLong(m.group(2)));
            }
        }
        return calls;
    }

    /**
     * The server's CPU time since it started, system and user ({@code INFO cpu}), in nanoseconds:
     * server-wide, like {@link #calls}, and 0 on a cluster. Commands are what the seeds counted;
     * this is what an operator pays for them (issue 24).
     */
    static long cpuNanos(RedisEndpoint redis) {
        double seconds = 0;
        for (String line : info(redis, "cpu")) {
            Matcher m = CPU_SECONDS.matcher(line);
            if (m.find()) {
                seconds += Double.parseDouble(m.group(1));
            }
        }
        return Math.round(seconds * 1e9);
    }

    /** The lines of one {@code INFO} section of a single node; none on a cluster. */
    private static List<String> info(RedisEndpoint redis, String section) {
        if (redis.isCluster()) {
            return List.of();
        }
        try (Jedis jedis = redis.connect("unread-bench", 10_000)) {
            return List.of(jedis.info(section).split("\r?\n"));
        }
    }

    /** {@code after - before} per command, leaving out those not called in between. */
    static Map<String, Long> callsBetween(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> between = new TreeMap<>();
        after.forEach(
                (command, calls) -> {
                    long made = calls - before.getOrDefault(command, 0L);
                    if (made > 0) {
                        between.put(command, made);
                    }
                });
        return between;
    }

    /**
     * Adds {@code share} of {@code workload}'s receivers to the live users under {@code prefix} for
     * a day, as the API does for a stream that stays open (every fifth for 0.2, spread over the
     * receivers, whose activity falls with their id): the job writes their counts every flush
     * interval and publishes their changes, everyone else's every background interval.
     *
     * @return the users added
     */
    static int registerLive(RedisEndpoint redis, String prefix, Workload workload, double share) {
        double until = System.currentTimeMillis() + 24 * 60 * 60 * 1000.0;
        Map<String, Double> live = new HashMap<>();
        for (long i = 0; i < workload.receivers(); i++) {
            if (Math.floor((i + 1) * share) > Math.floor(i * share)) {
                live.put(Long.toString(workload.firstUserId() + i), until);
            }
        }
        if (!live.isEmpty()) {
            try (UnifiedJedis jedis = connect(redis)) {
                jedis.zadd(RedisNames.liveUsersKey(prefix), live);
            }
        }
        return live.size();
    }

    private static UnifiedJedis connect(RedisEndpoint redis) {
        return redis.client("unread-bench", 10_000, new ConnectionPoolConfig());
    }

    /**
     * Hands each page of keys under {@code prefix} to {@code page} until it returns false or the
     * keys run out. SCAN, not KEYS, so that a large Redis is not blocked while it looks; on a
     * cluster Jedis scans each primary in turn.
     */
    private static void scan(UnifiedJedis redis, String prefix, Predicate<List<String>> page) {
        ScanIteration scan = redis.scanIteration(SCAN_COUNT, glob(prefix) + "*");
        while (!scan.isIterationCompleted()) {
            if (!page.test(List.copyOf(scan.nextBatchList()))) {
                return;
            }
        }
    }

    /** Turns the prefix's glob characters into literals, lest a prefix match other keys. */
    static String glob(String literal) {
        return literal.replaceAll("([\\\\*?\\[\\]])", "\\\\$1");
    }
}
