package dev.unread.sinks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

/**
 * The commands a flush of counts sends: a hash's or set's a command per key rather than per field,
 * the string keys' (the badges) on one node a command for all of them rather than per key, each
 * command carrying at most {@link #FIELDS_PER_COMMAND} fields or keys.
 */
final class KeyCommands {

    private KeyCommands() {}

    /**
     * Fields a single HSET or HDEL (members a single SADD or SREM) carries at most: a republish
     * writes all of a user's conversations at once, and one command of them all would hold Redis,
     * and a wrong-type script's Lua stack, for as long as it takes.
     */
    static final int FIELDS_PER_COMMAND = 500;

    /**
     * One command of a flush on one hash or set key: HSET of fields to their counts, HDEL of fields
     * whose count went to 0, SADD of marked conversations, SREM of unmarked ones. A user's
     * conversations, its followed threads, and the four totals, change several fields in one flush;
     * a command per key rather than per field cut the full workload's HSET and HDEL (issue 24).
     */
    static final class KeyCommand implements RedisConnection.Command {
        enum Op {
            HSET("hash"),
            HDEL("hash"),
            SADD("set"),
            SREM("set");

            /** Deletes KEYS[1] unless it is of the op's type, then runs the op with ARGV. */
            final String replaceScript;

            Op(String type) {
                replaceScript =
                        RedisConnection.replacingScript(
                                type, "redis.call('" + name() + "', KEYS[1], unpack(ARGV))\n");
            }
        }

        private final Op op;
        private final String key;

        /** Field, value, field, value... for HSET; fields or members for the others. */
        private final String[] args;

        private KeyCommand(Op op, String key, List<String> args) {
            this.op = op;
            this.key = key;
            this.args = args.toArray(new String[0]);
        }

        @Override
        public Response<?> appendTo(AbstractPipeline pipeline) {
            switch (op) {
                case HSET:
                    if (args.length == 2) {
                        // Most often one field: a member's track, a user's conversation at
                        // production sparsity; no map for it.
                        return pipeline.hset(key, args[0], args[1]);
                    }
                    Map<String, String> fields = new HashMap<>(args.length);
                    for (int i = 0; i < args.length; i += 2) {
                        fields.put(args[i], args[i + 1]);
                    }
                    return pipeline.hset(key, fields);
                case HDEL:
                    return pipeline.hdel(key, args);
                case SADD:
                    return pipeline.sadd(key, args);
                default:
                    return pipeline.srem(key, args);
            }
        }

        @Override
        public RedisConnection.Command replacingWrongType() {
            List<String> argv = List.of(args);
            return p -> p.eval(op.replaceScript, List.of(key), argv);
        }

        @Override
        public int removes() {
            return op == Op.HDEL || op == Op.SREM ? args.length : 0;
        }
    }

    /**
     * What one flush writes to one hash or set key (for {@link StringWrites}, to string keys, the
     * keys as fields), sent as at most two commands per chunk.
     */
    static final class KeyWrites {
        private final List<String> set = new ArrayList<>();
        private final List<String> unset = new ArrayList<>();

        void set(String field, String value) {
            set.add(field);
            set.add(value);
        }

        void add(String member) {
            set.add(member);
        }

        void unset(String field) {
            unset.add(field);
        }

        void commandsTo(
                List<RedisConnection.Command> commands,
                String key,
                KeyCommand.Op setOp,
                KeyCommand.Op unsetOp) {
            int step = setOp == KeyCommand.Op.HSET ? 2 : 1;
            chunks(
                    commands,
                    set,
                    step * FIELDS_PER_COMMAND,
                    args -> new KeyCommand(setOp, key, args));
            chunks(commands, unset, FIELDS_PER_COMMAND, args -> new KeyCommand(unsetOp, key, args));
        }
    }

    /**
     * What one flush writes to string keys, whosever they are: on one node, MSET of the keys set
     * and DEL of the keys whose count went to 0, a command of each for the lot rather than a SET or
     * DEL per key. At production sparsity every badge a flush writes is another user's, so a
     * command per key was a command per message (issue 46). Neither can meet WRONGTYPE: both
     * replace a key of any type. On a cluster a SET or DEL per key, as before: a command's keys
     * must share a hash slot there, which a flush's badges rarely do, and a command of several keys
     * is refused with TRYAGAIN while their slot is being migrated, where a single key's is
     * redirected with ASK.
     */
    static final class StringWrites {
        private final boolean sharded;
        private final KeyWrites writes = new KeyWrites();

        StringWrites(boolean sharded) {
            this.sharded = sharded;
        }

        void set(String key, String value) {
            writes.set(key, value);
        }

        void unset(String key) {
            writes.unset(key);
        }

        void commandsTo(List<RedisConnection.Command> commands) {
            int keysPerCommand = sharded ? 1 : FIELDS_PER_COMMAND;
            chunks(
                    commands,
                    writes.set,
                    2 * keysPerCommand,
                    keysValues -> {
                        String[] args = keysValues.toArray(new String[0]);
                        return args.length == 2 ? p -> p.set(args[0], args[1]) : p -> p.mset(args);
                    });
            chunks(
                    commands,
                    writes.unset,
                    keysPerCommand,
                    keys -> {
                        String[] args = keys.toArray(new String[0]);
                        return RedisConnection.removal(args.length, p -> p.del(args));
                    });
        }
    }

    /** Adds a command per {@code size} of {@code items}, in their order. */
    static <A> void chunks(
            List<RedisConnection.Command> commands,
            List<A> items,
            int size,
            Function<List<A>, RedisConnection.Command> command) {
        for (int from = 0; from < items.size(); from += size) {
            commands.add(command.apply(items.subList(from, Math.min(items.size(), from + size))));
        }
    }
}
