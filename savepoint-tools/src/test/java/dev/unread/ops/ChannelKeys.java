package dev.unread.ops;

import dev.unread.channels.ChannelRedisModel;
import dev.unread.contract.RedisNames;
import dev.unread.events.ChannelWrite;
import dev.unread.testing.OracleChannels;
import dev.unread.testing.TestRedis;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.resps.Tuple;

/**
 * The channels' keys in one Redis database, as tests compare them: the raw keys, and each member's
 * counts by the readers' recipe over them ({@link ChannelRedisModel}, loaded from what Redis holds)
 * beside the oracle's.
 */
final class ChannelKeys {

    private ChannelKeys() {}

    /**
     * Every index key and tracks hash under {@code prefix} but the versions (a version is a clock,
     * not a count): a bitmap as hex, a sorted set as member to score, a hash as field to value.
     */
    static Map<String, Object> contents(int database, String prefix) {
        Map<String, Object> contents = new TreeMap<>();
        try (Jedis jedis = TestRedis.connect(database)) {
            for (String key : TestRedis.keys(jedis, prefix)) {
                boolean index = key.startsWith(prefix + RedisNames.CHANNEL);
                boolean tracks = key.startsWith(prefix + RedisNames.CHANNEL_TRACKS);
                if (!(index || tracks) || key.endsWith(":" + RedisNames.CHANNEL_VERSION)) {
                    continue;
                }
                switch (jedis.type(key)) {
                    case "hash" -> contents.put(key, new TreeMap<>(jedis.hgetAll(key)));
                    case "zset" -> {
                        Map<String, Double> members = new TreeMap<>();
                        for (Tuple t : jedis.zrangeWithScores(key, 0, -1)) {
                            members.put(t.getElement(), t.getScore());
                        }
                        contents.put(key, members);
                    }
                    default ->
                            contents.put(
                                    key,
                                    HexFormat.of()
                                            .formatHex(
                                                    jedis.get(
                                                            key.getBytes(StandardCharsets.UTF_8))));
                }
            }
        }
        return contents;
    }

    /**
     * Every member's counts of each channel by the recipe over {@code database}, beside the
     * oracle's: the differences, empty when all agree.
     */
    static List<String> differences(int database, String prefix, OracleChannels oracle) {
        Map<String, ChannelRedisModel.Counts> counts = counts(database, prefix, oracle);
        List<String> wrong = new ArrayList<>();
        for (long c : oracle.channels()) {
            for (long u : oracle.users(c)) {
                ChannelRedisModel.Counts want =
                        new ChannelRedisModel.Counts(
                                oracle.unread(u, c),
                                oracle.mentions(u, c),
                                oracle.channelMentions(u, c));
                ChannelRedisModel.Counts got = counts.get("u" + u + " c" + c);
                if (!want.equals(got)) {
                    wrong.add("u" + u + " c" + c + " " + got + ", oracle " + want);
                }
            }
        }
        return wrong;
    }

    /**
     * What a reader reads from {@code database} for each member of the oracle's channels: the
     * member's counts of each channel ({@code "u{U} c{C}"}) and of each thread its tracks follow
     * ({@code "u{U} c{C} t{T}"}).
     */
    static Map<String, ChannelRedisModel.Counts> counts(
            int database, String prefix, OracleChannels oracle) {
        Map<Long, Set<Long>> followed = new TreeMap<>();
        ChannelRedisModel redis = load(database, prefix, oracle, followed);
        Map<String, ChannelRedisModel.Counts> counts = new TreeMap<>();
        for (long c : oracle.channels()) {
            for (long u : oracle.users(c)) {
                counts.put("u" + u + " c" + c, redis.counts(u, c));
                for (long t : followed.getOrDefault(u, Set.of())) {
                    if (redis.follows(u, c, t)) {
                        counts.put("u" + u + " c" + c + " t" + t, redis.threadCounts(u, c, t));
                    }
                }
            }
        }
        return counts;
    }

    /** What {@code database} holds of the oracle's channels and their members, as the model. */
    private static ChannelRedisModel load(
            int database, String prefix, OracleChannels oracle, Map<Long, Set<Long>> followed) {
        ChannelRedisModel model = new ChannelRedisModel();
        try (Jedis jedis = TestRedis.connect(database)) {
            for (long c : oracle.channels()) {
                byte[] seqs =
                        jedis.get(
                                RedisNames.channelSeqsKey(prefix, c)
                                        .getBytes(StandardCharsets.UTF_8));
                int size = ChannelWrite.BLOCK_BYTES;
                for (int at = 0; seqs != null && at < seqs.length; at += size) {
                    model.apply(
                            ChannelWrite.block(
                                    c, at / size, Arrays.copyOfRange(seqs, at, at + size)));
                }
                sortedSet(jedis, model, RedisNames.channelAllKey(prefix, c), c, 0, true);
                for (long u : oracle.users(c)) {
                    String key = RedisNames.channelTracksKey(prefix, u);
                    for (Map.Entry<String, String> field : jedis.hgetAll(key).entrySet()) {
                        String[] parts = field.getKey().split(":");
                        if (Long.parseLong(parts[0]) != c) {
                            continue;
                        }
                        long t = parts.length == 1 ? 0 : Long.parseLong(parts[1]);
                        model.apply(ChannelWrite.track(c, u, t, field.getValue()));
                        if (t != 0) {
                            followed.computeIfAbsent(u, k -> new TreeSet<>()).add(t);
                            String replies = RedisNames.channelThreadKey(prefix, c, t);
                            String all = RedisNames.channelThreadAllKey(prefix, c, t);
                            sortedSet(jedis, model, replies, c, t, false);
                            sortedSet(jedis, model, all, c, t, true);
                        }
                    }
                }
            }
        }
        return model;
    }

    private static void sortedSet(
            Jedis jedis, ChannelRedisModel model, String key, long c, long t, boolean all) {
        for (String member : jedis.zrange(key, 0, -1)) {
            model.apply(ChannelWrite.seq(c, true, t, all, Long.parseLong(member)));
        }
    }
}
