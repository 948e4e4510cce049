package dev.unread.api;

import dev.unread.api.ChannelFacts.Channel;
import dev.unread.api.ChannelFacts.Member;
import dev.unread.api.ChannelFacts.Membership;
import dev.unread.api.ChannelFacts.Message;
import dev.unread.contract.ChannelTrack;
import dev.unread.contract.ChannelTrack.Interval;
import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import dev.unread.contract.ThreadTrack;
import dev.unread.contract.TrackJson;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import redis.clients.jedis.UnifiedJedis;

/**
 * Writes channels' index and members' tracks from {@link ChannelFacts} as docs/contract.md
 * ("Channels in Redis") says the job does: the bitmap of roots not deleted, the sorted sets of
 * channel-wide mentions and of threads' replies, the version, and each member's track (membership
 * intervals, cursor raised by the member's own roots, floor, the unread roots naming the member,
 * settings) and each followed thread's track. The job's part in the tests of the readers.
 */
final class ChannelIndexWrites {

    private final TrackJson json = new TrackJson();

    void write(UnifiedJedis redis, String prefix, ChannelFacts facts) {
        for (Channel channel : facts.channels.values()) {
            long c = channel.id;
            for (Message m : channel.messages.values()) {
                if (m.deleted()) {
                    continue;
                }
                String member = Long.toString(m.seq());
                if (m.root()) {
                    redis.setbit(RedisNames.channelSeqsKey(prefix, c), m.seq(), true);
                    if (m.all()) {
                        redis.zadd(RedisNames.channelAllKey(prefix, c), m.seq(), member);
                    }
                } else {
                    redis.zadd(RedisNames.channelThreadKey(prefix, c, m.thread()), m.seq(), member);
                    if (m.all()) {
                        redis.zadd(
                                RedisNames.channelThreadAllKey(prefix, c, m.thread()),
                                m.seq(),
                                member);
                    }
                }
            }
            redis.incr(RedisNames.channelVersionKey(prefix, c));
            for (long user : facts.users) {
                if (!channel.hasMembership(user)) {
                    continue;
                }
                String tracks = RedisNames.channelTracksKey(prefix, user);
                ChannelTrack track = track(channel, user);
                redis.hset(tracks, RedisNames.channelTrackField(c), json.write(track));
                for (long root : channel.member(user).follows) {
                    redis.hset(
                            tracks,
                            RedisNames.threadField(c, root),
                            json.write(threadTrack(channel, user, root)));
                }
            }
        }
    }

    /**
     * The marks of channels, which are the user's state's (its set {@code chat:marked-unread}, as
     * for any conversation), not the channel stage's.
     */
    void writeMarks(UnifiedJedis redis, String prefix, ChannelFacts facts) {
        facts.channels.forEach(
                (id, channel) ->
                        channel.members.forEach(
                                (user, member) -> {
                                    if (member.marked) {
                                        redis.sadd(
                                                Count.MARKED.key(prefix, user), Long.toString(id));
                                    }
                                }));
    }

    private ChannelTrack track(Channel channel, long user) {
        Member member = channel.member(user);
        long read = channel.cursor(user);
        long named = 0;
        long namedAll = 0;
        for (Message m : channel.messages.values()) {
            if (m.root() && namesUnread(channel, user, m, Math.max(member.floor, read))) {
                named++;
                namedAll += m.all() ? 1 : 0;
            }
        }
        return new ChannelTrack(
                intervals(channel, user),
                read,
                member.floor,
                named,
                namedAll,
                member.preference,
                member.ignoreAll,
                channel.left(user));
    }

    private ThreadTrack threadTrack(Channel channel, long user, long root) {
        long read = channel.threadCursor(user, root);
        long cut = Math.max(channel.member(user).floor, read);
        long named = 0;
        long namedAll = 0;
        for (Message m : channel.messages.values()) {
            if (m.thread() == root && namesUnread(channel, user, m, cut)) {
                named++;
                namedAll += m.all() ? 1 : 0;
            }
        }
        return new ThreadTrack(read, named, namedAll);
    }

    /** An unread message, not deleted, that names the member by id. */
    private static boolean namesUnread(Channel channel, long user, Message m, long cut) {
        return !m.deleted()
                && m.sender() != user
                && m.named().contains(user)
                && m.seq() > cut
                && channel.memberAt(user, m.seq());
    }

    /** A join at j starts an interval at j + 1, a leave at l ends it at l; the last may be open. */
    private static List<Interval> intervals(Channel channel, long user) {
        TreeMap<Long, Boolean> joinedAfter = new TreeMap<>();
        for (Membership m : channel.memberships) {
            if (m.user() == user) {
                joinedAfter.merge(m.seq(), m.joined(), Boolean::logicalAnd);
            }
        }
        List<Interval> intervals = new ArrayList<>();
        long start = 0;
        boolean joined = false;
        for (var event : joinedAfter.entrySet()) {
            if (event.getValue() && !joined) {
                start = event.getKey() + 1;
                joined = true;
            } else if (!event.getValue() && joined) {
                intervals.add(new Interval(start, event.getKey()));
                joined = false;
            }
        }
        if (joined) {
            intervals.add(Interval.open(start));
        }
        return intervals;
    }
}
