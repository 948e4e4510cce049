package dev.unread.testing;

import dev.unread.channels.ChannelRecipeReads;
import dev.unread.channels.ChannelRedisModel.Counts;
import dev.unread.contract.RedisNames;
import dev.unread.testing.Oracle.Member;
import dev.unread.testing.OracleChannels.Bounds;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongPredicate;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * The channels' part of {@link Observed}: each member's counts read from Redis by the recipe, which
 * must equal the oracle's, and the cursors a channel moves ({@code conversation_member} and {@code
 * chat:readers:{C}}), which must lie within the oracle's bounds (an ALL_READ raises by the members
 * as known when it comes, "Channels").
 */
public final class ObservedChannels {

    private ObservedChannels() {}

    /** Every member's counts of every channel under {@code prefix}, by the recipe. */
    static Map<String, Counts> counts(String prefix) {
        Map<String, Counts> counts = new TreeMap<>();
        String tracks = prefix + RedisNames.CHANNEL_TRACKS;
        try (Jedis jedis = TestRedis.connect(0);
                RedisClient redis = RedisClient.create(TestRedis.HOST, TestRedis.PORT)) {
            for (String key : TestRedis.keys(jedis, tracks)) {
                long user = Long.parseLong(key.substring(tracks.length()));
                counts.putAll(ChannelRecipeReads.read(redis, prefix, user));
            }
        }
        return counts;
    }

    /** {@code readers}' channel keys as (channel, user) → score; the others stay. */
    static Map<Member, Long> takeReaders(
            Map<String, Map<String, Double>> readers, String prefix, LongPredicate isChannel) {
        Map<Member, Long> taken = new TreeMap<>();
        String start = prefix + Oracle.READERS_KEY;
        readers.entrySet()
                .removeIf(
                        key -> {
                            long c = Long.parseLong(key.getKey().substring(start.length()));
                            if (!isChannel.test(c)) {
                                return false;
                            }
                            key.getValue()
                                    .forEach(
                                            (user, score) ->
                                                    taken.put(
                                                            new Member(c, Long.parseLong(user)),
                                                            score.longValue()));
                            return true;
                        });
        return taken;
    }

    /** {@code rows}' channel rows; the others stay. */
    static Map<Member, Long> takeRows(Map<Member, Long> rows, LongPredicate isChannel) {
        Map<Member, Long> taken = new TreeMap<>();
        rows.entrySet()
                .removeIf(
                        row -> {
                            if (!isChannel.test(row.getKey().conversationId())) {
                                return false;
                            }
                            taken.put(row.getKey(), row.getValue());
                            return true;
                        });
        return taken;
    }

    /**
     * Appends to {@code diff} each cursor outside its bounds, missing though its bounds are past 0,
     * or present though the oracle holds none for it.
     */
    public static void compareCursors(
            StringBuilder diff, String what, Map<Member, Bounds> expected, Map<Member, Long> got) {
        Map<Member, String> wrong = new TreeMap<>();
        expected.forEach(
                (member, bounds) -> {
                    Long cursor = got.get(member);
                    if (cursor == null ? bounds.low() > 0 : !bounds.holds(cursor)) {
                        wrong.put(member, cursor + " not in " + bounds);
                    }
                });
        got.forEach(
                (member, cursor) -> {
                    if (!expected.containsKey(member)) {
                        wrong.put(member, cursor + " unexpected");
                    }
                });
        if (!wrong.isEmpty()) {
            diff.append(String.format("%n%s of channels: %s", what, wrong));
        }
    }

    /** Appends each channel {@code unread_count} outside 0 and the oracle's upper bound. */
    static void compareUnreadCounts(
            StringBuilder diff, OracleChannels channels, Map<Member, Long> unreadCounts) {
        unreadCounts.forEach(
                (m, count) -> {
                    long bound = channels.unreadCountUpperBound(m.userId(), m.conversationId());
                    if (count < 0 || count > bound) {
                        diff.append(
                                String.format(
                                        "%nconversation_member.unread_count of channel %s is %d,"
                                                + " outside 0..%d",
                                        m, count, bound));
                    }
                });
    }
}
