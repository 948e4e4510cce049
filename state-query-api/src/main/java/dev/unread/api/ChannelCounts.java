package dev.unread.api;

import dev.unread.contract.ChannelTrack;
import dev.unread.contract.ChannelTrack.Interval;
import dev.unread.contract.InputField;
import dev.unread.contract.RedisNames;
import dev.unread.contract.ThreadTrack;
import dev.unread.contract.TrackJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.args.BitCountOption;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * The recipe of docs/contract.md ("Channels in Redis") for one member: from the member's tracks,
 * read with the member's other keys, it queues on one pipeline a {@code BITCOUNT} of the channel's
 * roots and a {@code ZCOUNT} of its channel-wide mentions per counted interval, and two {@code
 * ZCOUNT}s per interval of each followed thread; once the pipeline synced, it gives each channel's
 * and thread's counts. So a member's counts cost two round trips however many channels: the
 * tracks', then this one.
 */
final class ChannelCounts {

    /** A channel's or followed thread's counts for the member. */
    record Counts(long unread, long mentions, long channelMentions) {
        static final Counts NONE = new Counts(0, 0, 0);
    }

    /** A followed thread's counts, with its channel's preference, which decides its totals. */
    record ThreadCounts(InputField.CountPreference preference, Counts counts) {}

    /**
     * What a channel or thread answers once synced; throws JedisDataException when its index keys
     * are of another type.
     */
    private interface Pending {
        Counts get();
    }

    private final SortedMap<Long, ChannelTrack> channels;
    private final Map<Long, Pending> channelCounts = new TreeMap<>();
    private final Map<Long, SortedMap<Long, Pending>> threadCounts = new TreeMap<>();
    private int commands;

    /** Queues the counting commands of {@code tracks} on {@code pipeline}. */
    ChannelCounts(TrackJson.Tracks tracks, AbstractPipeline pipeline, String keyPrefix) {
        this.channels = tracks.channels();
        channels.forEach(
                (channel, track) -> {
                    channelCounts.put(
                            channel,
                            queue(
                                    pipeline,
                                    track.counted(),
                                    RedisNames.channelSeqsKey(keyPrefix, channel),
                                    true,
                                    RedisNames.channelAllKey(keyPrefix, channel),
                                    track,
                                    track.named(),
                                    track.namedAll()));
                    SortedMap<Long, Pending> threads = new TreeMap<>();
                    tracks.threads()
                            .getOrDefault(channel, new TreeMap<>())
                            .forEach(
                                    (root, thread) ->
                                            threads.put(
                                                    root,
                                                    queueThread(
                                                            pipeline, keyPrefix, channel, root,
                                                            track, thread)));
                    threadCounts.put(channel, threads);
                });
    }

    private Pending queueThread(
            AbstractPipeline pipeline,
            String keyPrefix,
            long channel,
            long root,
            ChannelTrack track,
            ThreadTrack thread) {
        return queue(
                pipeline,
                track.counted(thread),
                RedisNames.channelThreadKey(keyPrefix, channel, root),
                false,
                RedisNames.channelThreadAllKey(keyPrefix, channel, root),
                track,
                thread.named(),
                thread.namedAll());
    }

    /**
     * Queues the counts over {@code ranges}: of {@code messagesKey}'s bits ({@code bitmap}) or
     * members, and of {@code allKey}'s members.
     */
    private Pending queue(
            AbstractPipeline pipeline,
            List<Interval> ranges,
            String messagesKey,
            boolean bitmap,
            String allKey,
            ChannelTrack track,
            long named,
            long namedAll) {
        if (track.left()) {
            return () -> Counts.NONE;
        }
        List<Response<Long>> messages = new ArrayList<>(ranges.size());
        List<Response<Long>> all = new ArrayList<>(ranges.size());
        for (Interval range : ranges) {
            String to = range.open() ? "+inf" : Long.toString(range.to());
            messages.add(
                    bitmap
                            ? pipeline.bitcount(
                                    messagesKey,
                                    range.from(),
                                    range.open() ? -1 : range.to(),
                                    BitCountOption.BIT)
                            : pipeline.zcount(messagesKey, Long.toString(range.from()), to));
            all.add(pipeline.zcount(allKey, Long.toString(range.from()), to));
        }
        commands += 2 * ranges.size();
        return () -> {
            long channelMentions = track.ignoreAll() ? 0 : Math.max(0, sum(all) - namedAll);
            return new Counts(sum(messages), named + channelMentions, channelMentions);
        };
    }

    private static long sum(List<Response<Long>> responses) {
        long sum = 0;
        for (Response<Long> response : responses) {
            sum += response.get();
        }
        return sum;
    }

    /** How many counting commands were queued: the readers' cost in Redis. */
    int commands() {
        return commands;
    }

    /**
     * Each channel's counts by id, once the pipeline synced; a channel whose index keys are of
     * another type than the job writes is left out and handed to {@code unreadable}. A slot that
     * moved (on a cluster) or a refused user is thrown, for the read to be retried or answered 503
     * as any other.
     */
    SortedMap<Long, Counts> channels(LongConsumer unreadable) {
        SortedMap<Long, Counts> counts = new TreeMap<>();
        channelCounts.forEach(
                (channel, pending) -> {
                    try {
                        counts.put(channel, pending.get());
                    } catch (JedisRedirectionException | JedisAccessControlException e) {
                        throw e;
                    } catch (JedisDataException e) {
                        unreadable.accept(channel);
                    }
                });
        return counts;
    }

    /**
     * Each followed thread's counts by {@link RedisNames#threadField}, in numeric order, once the
     * pipeline synced; as {@link #channels}, a thread of unreadable keys is left out.
     */
    Map<String, ThreadCounts> threads(LongConsumer unreadable) {
        Map<String, ThreadCounts> counts = new LinkedHashMap<>();
        threadCounts.forEach(
                (channel, threads) ->
                        threads.forEach(
                                (root, pending) -> {
                                    try {
                                        counts.put(
                                                RedisNames.threadField(channel, root),
                                                new ThreadCounts(
                                                        channels.get(channel).preference(),
                                                        pending.get()));
                                    } catch (JedisRedirectionException
                                            | JedisAccessControlException e) {
                                        throw e;
                                    } catch (JedisDataException e) {
                                        unreadable.accept(channel);
                                    }
                                }));
        return counts;
    }

    /** The member's channel tracks by id. */
    SortedMap<Long, ChannelTrack> tracks() {
        return channels;
    }
}
