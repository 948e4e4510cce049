package dev.unread.sinks;

import dev.unread.contract.RedisNames;
import java.util.List;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

/**
 * Who among some users is live: one ZMSCORE of {@link RedisNames#LIVE_USERS}, the users with a live
 * stream, whose reply decides what a sink sends next (a user's score is live until then, in epoch
 * milliseconds). The counts sink pushes its counts to the live users this way ({@link LivePushes}),
 * the channel sink its TRACK_CHANGED ({@link ChannelBuffer}).
 *
 * <p>A key of another type there is replaced, and then nobody is live.
 */
abstract class LiveUsersRead implements RedisConnection.Then {

    private static final String REPLACE_LIVE_USERS_SCRIPT =
            RedisConnection.replacingScript("zset", "");

    private final String key;

    LiveUsersRead(String prefix) {
        this.key = RedisNames.liveUsersKey(prefix);
    }

    /** The users asked about, in the order {@link #ofLive} gets them; read when appended. */
    abstract long[] users();

    /**
     * What to send now that {@code live[i]} says whether {@code users()[i]} is live (all false when
     * the key was replaced); called again, with a fresh answer, when a failed round trip is
     * retried.
     */
    abstract List<RedisConnection.Command> ofLive(boolean[] live);

    @Override
    public final Response<?> appendTo(AbstractPipeline pipeline) {
        long[] users = users();
        String[] members = new String[users.length];
        for (int i = 0; i < users.length; i++) {
            members[i] = Long.toString(users[i]);
        }
        return pipeline.zmscore(key, members);
    }

    @Override
    public final RedisConnection.Command replacingWrongType() {
        return p -> p.eval(REPLACE_LIVE_USERS_SCRIPT, List.of(key), List.of());
    }

    @Override
    public final List<RedisConnection.Command> then(Object reply) {
        boolean[] live = new boolean[users().length];
        if (reply instanceof List<?> scores) {
            long now = System.currentTimeMillis();
            for (int i = 0; i < live.length; i++) {
                live[i] = scores.get(i) instanceof Double until && until > now;
            }
        }
        return ofLive(live);
    }
}
