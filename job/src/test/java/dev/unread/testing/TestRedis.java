package dev.unread.testing;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.RedisNames;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.commands.SortedSetCommands;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The Redis the tests share with other tests (127.0.0.1:6379): every test works under a key prefix
 * of its own and deletes its keys afterwards, never the whole database.
 */
public final class TestRedis {
    public static final String HOST = "127.0.0.1";
    public static final int PORT = 6379;

    private TestRedis() {}

    public static String uniquePrefix() {
        return "unread-test:" + UUID.randomUUID() + ":";
    }

    /** The job's settings pointed at {@code redisUrl}, under {@code prefix}. */
    public static UnreadConfig config(String redisUrl, String prefix, long flushIntervalMs) {
        return UnreadConfig.with(
                Map.of(
                        "redis-url", redisUrl,
                        "redis-key-prefix", prefix,
                        "flush-interval-ms", String.valueOf(flushIntervalMs)));
    }

    /** The same, with counts of users nobody watches written every {@code backgroundMs}. */
    public static UnreadConfig config(
            String redisUrl, String prefix, long flushIntervalMs, long backgroundMs) {
        return UnreadConfig.with(
                Map.of(
                        "redis-url",
                        redisUrl,
                        "redis-key-prefix",
                        prefix,
                        "flush-interval-ms",
                        String.valueOf(flushIntervalMs),
                        "background-flush-interval-ms",
                        String.valueOf(backgroundMs)));
    }

    public static Jedis connect(int database) {
        Jedis jedis = new Jedis(HOST, PORT);
        jedis.select(database);
        return jedis;
    }

    /**
     * Adds {@code users} to the live users for a minute, as the API does for a stream: only their
     * counts get versions and UNREAD_CHANGED.
     */
    public static void live(SortedSetCommands redis, String prefix, long... users) {
        double until = System.currentTimeMillis() + 60_000;
        Map<String, Double> members = new HashMap<>();
        for (long user : users) {
            members.put(Long.toString(user), until);
        }
        redis.zadd(RedisNames.liveUsersKey(prefix), members);
    }

    public static Set<String> keys(Jedis jedis, String prefix) {
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

    public static void deleteKeys(int database, String prefix) {
        try (Jedis jedis = connect(database)) {
            for (String key : keys(jedis, prefix)) {
                jedis.del(key);
            }
        }
    }

    /** {@link #deleteKeys(int, String)} in database 0, where the job writes by default. */
    public static void deleteKeys(String prefix) {
        deleteKeys(0, prefix);
    }

    /**
     * Strings under {@code prefix} in database 0: key → value; without the live push's version keys
     * ({@link RedisNames#VERSION}), which are not counts: the tests of the push read them.
     */
    public static Map<String, String> strings(String prefix) {
        Map<String, String> strings = new TreeMap<>();
        try (Jedis jedis = connect(0)) {
            for (String key : keys(jedis, prefix)) {
                if (jedis.type(key).equals("string") && !isNotACount(key)) {
                    strings.put(key, jedis.get(key));
                }
            }
        }
        return strings;
    }

    /**
     * Hashes under {@code prefix} in database 0: key → field → value; without the counts' marks, as
     * {@link #isNotACount}.
     */
    public static Map<String, Map<String, String>> hashes(String prefix) {
        Map<String, Map<String, String>> hashes = new TreeMap<>();
        try (Jedis jedis = connect(0)) {
            for (String key : keys(jedis, prefix)) {
                if (jedis.type(key).equals("hash") && !isNotACount(key)) {
                    hashes.put(key, new TreeMap<>(jedis.hgetAll(key)));
                }
            }
        }
        return hashes;
    }

    /** Sets under {@code prefix} in database 0: key → members. */
    public static Map<String, Set<String>> sets(String prefix) {
        Map<String, Set<String>> sets = new TreeMap<>();
        try (Jedis jedis = connect(0)) {
            for (String key : keys(jedis, prefix)) {
                if (jedis.type(key).equals("set")) {
                    sets.put(key, new TreeSet<>(jedis.smembers(key)));
                }
            }
        }
        return sets;
    }

    /** Sorted sets under {@code prefix} in database 0: key → member → score. */
    public static Map<String, Map<String, Double>> sortedSets(String prefix) {
        Map<String, Map<String, Double>> sets = new TreeMap<>();
        try (Jedis jedis = connect(0)) {
            for (String key : keys(jedis, prefix)) {
                if (jedis.type(key).equals("zset")) {
                    Map<String, Double> scores = new TreeMap<>();
                    jedis.zrangeWithScores(key, 0, -1)
                            .forEach(t -> scores.put(t.getElement(), t.getScore()));
                    sets.put(key, scores);
                }
            }
        }
        return sets;
    }

    /**
     * The counts under {@code prefix}: strings as strings, hashes as maps, sets as sorted sets of
     * their members; without the live push's keys, as {@link #strings}.
     */
    public static Map<String, Object> contents(Jedis jedis, String prefix) {
        Map<String, Object> contents = new HashMap<>();
        for (String key : keys(jedis, prefix)) {
            if (isNotACount(key)) {
                continue;
            }
            String type = jedis.type(key);
            contents.put(
                    key,
                    type.equals("hash")
                            ? jedis.hgetAll(key)
                            : type.equals("set")
                                    ? new TreeSet<>(jedis.smembers(key))
                                    : jedis.get(key));
        }
        return contents;
    }

    /**
     * A key the job writes that is not a count: the live push's version ({@link
     * RedisNames#VERSION}) and live users ({@link RedisNames#LIVE_USERS}), and the counts' marks
     * ({@link RedisNames#COUNTS_WRITTEN_AFTER}).
     */
    public static boolean isNotACount(String key) {
        return key.contains(RedisNames.VERSION)
                || key.endsWith(RedisNames.LIVE_USERS)
                || key.endsWith(RedisNames.COUNTS_WRITTEN_AFTER);
    }

    /**
     * An ACL user on the shared Redis limited to one key prefix ({@code ~prefix*}, channels {@code
     * &prefix*}, every command but the {@code @dangerous} ones), with a password made per run, for
     * tests that reach Redis as a user with a password in the URL. Removed by {@link #close()}, as
     * {@link MySqlTestDatabase} removes its user; the default user is left as it is.
     */
    public static final class AclUser implements AutoCloseable {
        public final String name = "unread-it-" + UUID.randomUUID().toString().substring(0, 8);
        public final String password = UUID.randomUUID().toString();

        public AclUser(String prefix) {
            try (Jedis jedis = connect(0)) {
                jedis.aclSetUser(
                        name,
                        "reset",
                        "on",
                        ">" + password,
                        "~" + prefix + "*",
                        "&" + prefix + "*",
                        "+@all",
                        "-@dangerous");
            }
        }

        /** {@code redis://NAME:PASSWORD@127.0.0.1:6379/0}. */
        public String url() {
            return "redis://" + name + ":" + password + "@" + HOST + ":" + PORT + "/0";
        }

        @Override
        public void close() {
            try (Jedis jedis = connect(0)) {
                jedis.aclDelUser(name);
            }
        }
    }

    /** Listens on channels from a thread of its own until closed. */
    public static final class Subscriber implements AutoCloseable {
        private final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        private final CountDownLatch subscribed;
        private final Jedis jedis = new Jedis(HOST, PORT);
        private final JedisPubSub pubSub =
                new JedisPubSub() {
                    @Override
                    public void onSubscribe(String channel, int subscribedChannels) {
                        subscribed.countDown();
                    }

                    @Override
                    public void onMessage(String channel, String message) {
                        messages.add(message);
                    }
                };
        private final Thread thread;

        public Subscriber(String... channels) throws InterruptedException {
            subscribed = new CountDownLatch(channels.length);
            thread =
                    new Thread(
                            () -> jedis.subscribe(pubSub, channels), "subscriber " + channels[0]);
            thread.setDaemon(true);
            thread.start();
            if (!subscribed.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError(
                        "not subscribed to " + String.join(", ", channels) + " within 10 s");
            }
        }

        /** The next message, or null if none arrives within {@code ms}. */
        public String next(long ms) throws InterruptedException {
            return messages.poll(ms, TimeUnit.MILLISECONDS);
        }

        @Override
        public void close() {
            pubSub.unsubscribe();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            jedis.close();
        }
    }
}
