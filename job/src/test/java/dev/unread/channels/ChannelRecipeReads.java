package dev.unread.channels;

import dev.unread.channels.ChannelRedisModel.Counts;
import dev.unread.contract.ChannelTrack;
import dev.unread.contract.ChannelTrack.Interval;
import dev.unread.contract.RedisNames;
import dev.unread.contract.TrackJson;
import dev.unread.testing.OracleChannels;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.BitCountOption;

/**
 * Members' channel counts read from a real Redis, one node or a Cluster, the readers' way
 * (docs/contract.md, "Reading a member's counts (the recipe)"): the member's tracks, then a {@code
 * BITCOUNT … BIT} and {@code ZCOUNT}s per counted interval; and the same counts as the {@link
 * OracleChannels} gives them. Both as "{@code userId/field}" → counts, the field {@code C} or
 * {@code C:T} as in the tracks' hash, without zeros: a count of 0 is no field for a reader either,
 * so a followed thread with nothing unread and no thread at all read alike.
 */
public final class ChannelRecipeReads {

    private static final TrackJson JSON = new TrackJson();

    private ChannelRecipeReads() {}

    /** U's counts from {@code redis} under {@code prefix}; a track not the job's fails. */
    public static Map<String, Counts> read(UnifiedJedis redis, String prefix, long userId) {
        TrackJson.Tracks tracks =
                JSON.readAll(
                        redis.hgetAll(RedisNames.channelTracksKey(prefix, userId)),
                        field -> {
                            throw new AssertionError(
                                    "user " + userId + "'s track " + field + " is not the job's");
                        });
        Map<String, Counts> counts = new TreeMap<>();
        tracks.channels()
                .forEach(
                        (c, track) -> {
                            put(
                                    counts,
                                    userId,
                                    RedisNames.channelTrackField(c),
                                    count(
                                            redis,
                                            track,
                                            track.counted(),
                                            RedisNames.channelSeqsKey(prefix, c),
                                            true,
                                            RedisNames.channelAllKey(prefix, c),
                                            track.named(),
                                            track.namedAll()));
                            tracks.threads()
                                    .getOrDefault(c, new TreeMap<>())
                                    .forEach(
                                            (t, thread) ->
                                                    put(
                                                            counts,
                                                            userId,
                                                            RedisNames.threadField(c, t),
                                                            count(
                                                                    redis,
                                                                    track,
                                                                    track.counted(thread),
                                                                    RedisNames.channelThreadKey(
                                                                            prefix, c, t),
                                                                    false,
                                                                    RedisNames.channelThreadAllKey(
                                                                            prefix, c, t),
                                                                    thread.named(),
                                                                    thread.namedAll())));
                        });
        return counts;
    }

    /**
     * Every member's counts by {@code channels}: of each channel U has a track of, and of each
     * thread of it U follows.
     */
    public static Map<String, Counts> expected(OracleChannels channels) {
        Map<String, Counts> counts = new TreeMap<>();
        for (long c : channels.channels()) {
            for (long u : channels.users(c)) {
                put(
                        counts,
                        u,
                        RedisNames.channelTrackField(c),
                        new Counts(
                                channels.unread(u, c),
                                channels.mentions(u, c),
                                channels.channelMentions(u, c)));
                for (long t : channels.followedThreads(u, c)) {
                    put(
                            counts,
                            u,
                            RedisNames.threadField(c, t),
                            new Counts(
                                    channels.threadUnread(u, c, t),
                                    channels.threadMentions(u, c, t),
                                    channels.threadChannelMentions(u, c, t)));
                }
            }
        }
        return counts;
    }

    /**
     * {@code counts} without the followed threads': the channels' own, as an answer's
     * per-conversation fields hold them.
     */
    public static Map<String, Counts> channelsOnly(Map<String, Counts> counts) {
        Map<String, Counts> channels = new TreeMap<>(counts);
        channels.keySet().removeIf(field -> field.indexOf(':') >= 0);
        return channels;
    }

    /**
     * Counts of the messages in {@code messagesKey} (a bitmap of roots, or a sorted set of replies)
     * and in {@code allKey} over {@code ranges}; nothing while the member left.
     */
    private static Counts count(
            UnifiedJedis redis,
            ChannelTrack track,
            List<Interval> ranges,
            String messagesKey,
            boolean bitmap,
            String allKey,
            long named,
            long namedAll) {
        if (track.left()) {
            return Counts.NONE;
        }
        long unread = 0;
        long all = 0;
        for (Interval range : ranges) {
            String to = range.open() ? "+inf" : Long.toString(range.to());
            unread +=
                    bitmap
                            ? redis.bitcount(
                                    messagesKey,
                                    range.from(),
                                    range.open() ? -1 : range.to(),
                                    BitCountOption.BIT)
                            : redis.zcount(messagesKey, Long.toString(range.from()), to);
            all += redis.zcount(allKey, Long.toString(range.from()), to);
        }
        return Counts.of(unread, all, named, namedAll, track.ignoreAll());
    }

    private static void put(Map<String, Counts> counts, long userId, String field, Counts c) {
        if (!c.equals(Counts.NONE)) {
            counts.put(userId + "/" + field, c);
        }
    }
}
