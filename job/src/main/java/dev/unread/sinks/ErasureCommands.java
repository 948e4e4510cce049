package dev.unread.sinks;

import dev.unread.contract.Count;
import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

/**
 * The commands of a user's erasure in the counts sink: {@link CountBuffer} puts them before the
 * counts of the same flush. Only builds commands and holds no state of the writer's, so it is free
 * of the sender thread's ownership of the held counts and versions.
 */
final class ErasureCommands {

    /** ZREM of an erased user from the live users, replacing a key of another type. */
    private static final String UNREGISTER_SCRIPT =
            RedisConnection.replacingScript("zset", "redis.call('ZREM', KEYS[1], ARGV[1])\n");

    /**
     * SET of the action stamp to ARGV[1] unless it holds a later one (an action of the user's taken
     * after the erasure), replacing a value of another type.
     */
    private static final String STAMP_AT_LEAST_SCRIPT =
            "local last = redis.pcall('GET', KEYS[1])\n"
                    + "if type(last) == 'string' and (tonumber(last) or 0) >= tonumber(ARGV[1])"
                    + " then return 0 end\n"
                    + "redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])\n"
                    + "return 1";

    private final String prefix;

    /** On a cluster: the notice goes with SPUBLISH, after a barrier. */
    private final boolean sharded;

    ErasureCommands(String prefix, boolean sharded) {
        this.prefix = prefix;
        this.sharded = sharded;
    }

    /**
     * Deletes every key of an erased user, one command per key, so that on a cluster each goes to
     * its own slot's primary: the counts' keys, the version, and the user's live registration; sets
     * the API's action stamp to {@code erasedAt} unless it is later already, so that an action
     * taken after the erasure on an instance whose clock is behind is stamped after it, not
     * dropped; then announces the erasure on the user's change channel, where every API instance
     * serving the user ends its streams. On one connection (per primary) they are sent before the
     * counts of the same flush, and a later flush's counts after them.
     */
    void erase(long user, long erasedAt, List<RedisConnection.Command> commands) {
        Set<String> keys = new LinkedHashSet<>();
        for (Count kind : Count.values()) {
            keys.add(kind.key(prefix, user));
        }
        keys.add(RedisNames.versionKey(prefix, user));
        for (String key : keys) {
            commands.add(RedisConnection.removal(1, p -> p.del(key)));
        }
        List<String> stamp = List.of(RedisNames.actionStampKey(prefix, user));
        List<String> stampArgs =
                List.of(
                        Long.toString(erasedAt),
                        Long.toString(RedisNames.ACTION_STAMP_TTL_SECONDS));
        commands.add(p -> p.eval(STAMP_AT_LEAST_SCRIPT, stamp, stampArgs));
        String liveUsers = RedisNames.liveUsersKey(prefix);
        String member = Long.toString(user);
        commands.add(
                new RedisConnection.Command() {
                    @Override
                    public Response<?> appendTo(AbstractPipeline pipeline) {
                        return pipeline.zrem(liveUsers, member);
                    }

                    @Override
                    public RedisConnection.Command replacingWrongType() {
                        return p -> p.eval(UNREGISTER_SCRIPT, List.of(liveUsers), List.of(member));
                    }

                    @Override
                    public int removes() {
                        return 1;
                    }
                });
        if (sharded) {
            // The keys sit on other primaries: the notice goes once they have answered.
            commands.add(RedisConnection.BARRIER);
        }
        commands.add(
                RedisConnection.publish(
                        sharded,
                        RedisNames.unreadChangedChannel(prefix, user),
                        MessageTypes.erased(user)));
    }
}
