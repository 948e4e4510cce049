package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import dev.unread.events.UnreadCount;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

/**
 * Writes counts to Redis as the contract's keys, with absolute values only, so that a replay after
 * a restore converges to the same state:
 *
 * <ul>
 *   <li>the sender badge: string {@code unread:senders:{userId}}, {@code SET} to the count, {@code
 *       DEL} when it drops to 0;
 *   <li>a conversation's count: hash {@code chat:unread:{userId}}, field {@code {conversationId}},
 *       {@code HSET} to the count, {@code HDEL} when it drops to 0;
 *   <li>a conversation's mentions: hash {@code chat:mentions:{userId}}, the same way;
 *   <li>a conversation's mark: set {@code chat:marked-unread:{userId}}, {@code SADD} of the id when
 *       marked, {@code SREM} when not;
 *   <li>a followed thread's counts: hashes {@code chat:threads:{userId}} and {@code
 *       chat:thread-mentions:{userId}}, field {@code {conversationId}:{threadSeq}}, as the
 *       conversations' hashes;
 *   <li>the app-icon totals: hash {@code unread:totals:{userId}}, fields {@code messages}, {@code
 *       mentions}, {@code conversations} and {@code threads}, {@code HSET}, {@code HDEL} when 0.
 * </ul>
 *
 * <p>A key of the wrong type where the job writes (another application's, or a leftover) is
 * replaced: {@code SET} and {@code DEL} replace any type themselves; a hash or set command Redis
 * refuses with WRONGTYPE is sent again as a script that deletes the key unless it is of the right
 * type, then writes the field or member, in one atomic step (see {@link RedisConnection}).
 *
 * <p>{@link UnreadConfig#redisKeyPrefix} goes before every key (tests use it to isolate themselves
 * in a shared Redis). Updates of one key or field inside the flush interval ({@link
 * UnreadConfig#flushIntervalMs}) are coalesced: only the last value is sent. Records of one user
 * must reach the same subtask in order (the job's keyed stream does that), or an older value could
 * be written last. The fields of one hash (members of one set) a flush changes go in one command
 * that sets and one that deletes, not one command each.
 *
 * <p>After the counts of a flush, one ZMSCORE of the users whose counts it changed in {@code
 * unread:live-users}, the users with a live stream, and for each of them that is live two more
 * commands: {@code SET unread:version:{userId} <version> EX 86400} and {@code PUBLISH
 * UNREAD_CHANGED:{userId}} (on a cluster SPUBLISH: a shard channel) of the user's changed counts as
 * absolute values (0 for one that went away) with that version; see {@link ChangeVersions} for how
 * versions rise. The version is written after the counts and before the message, so a reader that
 * reads the version first and then the counts sees counts at least as new as that version
 * (docs/contract.md, "Live push"). On a Redis Cluster one pipeline's primaries answer in any order,
 * so there who is live is read only once every count is acknowledged. Users nobody watches cost no
 * change messages: on the full workload they were a third of the job's commands (issue 24).
 */
public class RedisCounts implements Sink<UnreadCount> {
    private static final long serialVersionUID = 1L;

    /** Counter on each Redis sink writer's metric group: commands Redis acknowledged. */
    public static final String COMMANDS_METRIC = "redisCommands";

    /** Counter on each Redis sink writer's metric group: updates absorbed by a later one. */
    public static final String COALESCED_METRIC = "redisCoalescedUpdates";

    /** Pipelined exchanges with a Redis node: one per batch, one per primary on a cluster. */
    public static final String ROUND_TRIPS_METRIC = "redisRoundTrips";

    /** Buffers sent: by the flush interval, a full buffer, or a checkpoint. */
    public static final String FLUSHES_METRIC = "redisFlushes";

    /** Failed attempts to send to Redis that were retried (monitoring/ alerts on them). */
    public static final String RETRIES_METRIC = "redisRetries";

    /**
     * Histogram of each flush's time in Redis, retries included, in milliseconds: past the flush
     * interval, the next flush waits for it and the counting task with it.
     */
    public static final String FLUSH_MILLIS_METRIC = "redisFlushMillis";

    private final UnreadConfig config;

    public RedisCounts(UnreadConfig config) {
        // Fail when the job is built, not in every task after it was deployed.
        config.redisEndpoint();
        this.config = config;
    }

    @Override
    public SinkWriter<UnreadCount> createWriter(WriterInitContext context) {
        RedisConnection connection = new RedisConnection(config.redisEndpoint());
        // One clock for both buffers: a user's versions rise across them.
        ChangeVersions versions = new ChangeVersions();
        return new RedisWriter<>(
                () -> new Buffer(config.redisKeyPrefix, connection.sharded(), versions),
                connection,
                context,
                config.flushIntervalMs);
    }

    /**
     * The sink's buffer and connection without Flink around them, for a writer outside a Flink job
     * that must send exactly the job's commands: the bench's Kafka Streams peer (dev.unread.peer),
     * which flushes it before each of its commits as the sink does before each checkpoint.
     */
    public static Batch batch(UnreadConfig config) {
        RedisConnection connection = new RedisConnection(config.redisEndpoint());
        return new Batch(
                new Buffer(config.redisKeyPrefix, connection.sharded(), new ChangeVersions()),
                connection);
    }

    /** Coalesces counts by key until {@link #flush}; one per thread. */
    public static final class Batch implements AutoCloseable {
        private final Buffer buffer;
        private final RedisConnection connection;

        private Batch(Buffer buffer, RedisConnection connection) {
            this.buffer = buffer;
            this.connection = connection;
        }

        /** Buffers the count; true when it replaced a buffered count of the same key or field. */
        public boolean add(UnreadCount count) {
            return buffer.add(count);
        }

        /**
         * Sends the buffered counts (with the users' versions and change messages) and returns once
         * Redis acknowledged them all.
         *
         * @return the commands sent
         */
        public int flush() throws IOException, InterruptedException {
            if (buffer.size() == 0) {
                return 0;
            }
            int sent = connection.send(buffer.commands()).commands();
            buffer.clear();
            return sent;
        }

        @Override
        public void close() {
            connection.close();
        }
    }

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
    private static final class KeyCommand implements RedisConnection.Command {
        private enum Op {
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
    }

    /** What one flush writes to one hash or set key, sent as at most two commands per chunk. */
    private static final class KeyWrites {
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
            chunk(commands, key, setOp, set, step * FIELDS_PER_COMMAND);
            chunk(commands, key, unsetOp, unset, FIELDS_PER_COMMAND);
        }

        private static void chunk(
                List<RedisConnection.Command> commands,
                String key,
                KeyCommand.Op op,
                List<String> args,
                int size) {
            for (int from = 0; from < args.size(); from += size) {
                commands.add(
                        new KeyCommand(
                                op, key, args.subList(from, Math.min(args.size(), from + size))));
            }
        }
    }

    /** The latest value of each count, mention count, mark and total since the last flush. */
    static final class Buffer implements RedisWriter.Buffer<UnreadCount> {
        /**
         * {@code conversationId} is {@link UnreadCount#SENDER_BADGE} for the badge and the totals;
         * {@code kind} is the count's; {@code threadSeq} is a thread count's root, 0 otherwise. A
         * class rather than a record: the record's generated equals showed in the counting task's
         * profile, and this hash mixes the ids instead of summing them.
         */
        private static final class Target {
            private final long userId;
            private final long conversationId;
            private final Count kind;
            private final long threadSeq;

            Target(long userId, long conversationId, Count kind, long threadSeq) {
                this.userId = userId;
                this.conversationId = conversationId;
                this.kind = kind;
                this.threadSeq = threadSeq;
            }

            long userId() {
                return userId;
            }

            long conversationId() {
                return conversationId;
            }

            Count kind() {
                return kind;
            }

            @Override
            public boolean equals(Object o) {
                return o instanceof Target t
                        && t.userId == userId
                        && t.conversationId == conversationId
                        && t.kind == kind
                        && t.threadSeq == threadSeq;
            }

            @Override
            public int hashCode() {
                return Long.hashCode(
                        ((userId * 0x9E3779B97F4A7C15L + conversationId) * 31 + kind.ordinal()) * 31
                                + threadSeq);
            }
        }

        private final String prefix;

        /** On a cluster: UNREAD_CHANGED goes out with SPUBLISH, a shard channel. */
        private final boolean sharded;

        private final Map<Target, Long> latest = new HashMap<>();

        /** Shared with the writer's other buffer; used by one thread at a time, as they are. */
        private final ChangeVersions versions;

        Buffer(String prefix, boolean sharded, ChangeVersions versions) {
            this.prefix = prefix;
            this.sharded = sharded;
            this.versions = versions;
        }

        @Override
        public boolean add(UnreadCount count) {
            return latest.put(
                            new Target(
                                    count.userId,
                                    count.conversationId,
                                    count.kind,
                                    count.threadSeq),
                            count.count)
                    != null;
        }

        @Override
        public int size() {
            return latest.size();
        }

        @Override
        public List<RedisConnection.Command> commands() {
            List<RedisConnection.Command> commands = new ArrayList<>(latest.size() * 2);
            Map<String, KeyWrites> hashes = new HashMap<>();
            Map<String, KeyWrites> sets = new HashMap<>();
            Map<Long, UnreadChanged> changes = new HashMap<>();
            latest.forEach(
                    (target, count) -> {
                        write(target, count, commands, hashes, sets);
                        changes.computeIfAbsent(target.userId(), UnreadChanged::new)
                                .add(
                                        target.kind(),
                                        target.conversationId(),
                                        target.threadSeq,
                                        count);
                    });
            hashes.forEach(
                    (key, writes) ->
                            writes.commandsTo(
                                    commands, key, KeyCommand.Op.HSET, KeyCommand.Op.HDEL));
            sets.forEach(
                    (key, writes) ->
                            writes.commandsTo(
                                    commands, key, KeyCommand.Op.SADD, KeyCommand.Op.SREM));
            if (sharded) {
                // On a cluster a user's version and counts sit on different primaries, answered
                // in any order: who is live is read (and the versions and messages sent) only once
                // the counts are written, so counts read after a version are at least as new as it.
                commands.add(RedisConnection.BARRIER);
            }
            if (!changes.isEmpty()) {
                // One version for the whole flush: it only has to rise per user.
                commands.add(new PushToLiveUsers(changes.values(), versions.next()));
            }
            return commands;
        }

        /**
         * ZMSCORE of the flush's changed users in {@link RedisNames#LIVE_USERS}, after their
         * counts; then, for each user live at that moment, {@code SET unread:version:{userId} EX}
         * and PUBLISH of its UNREAD_CHANGED. A user the API adds as live after this read is added
         * before its stream's snapshot is read, so after these counts were written: the snapshot
         * has them, and nothing is missed by not publishing them (docs/contract.md, "Live push").
         */
        private final class PushToLiveUsers implements RedisConnection.Then {
            private static final String REPLACE_SCRIPT =
                    RedisConnection.replacingScript("zset", "");

            private final List<UnreadChanged> changes;
            private final long version;
            private final String key = RedisNames.liveUsersKey(prefix);

            PushToLiveUsers(Collection<UnreadChanged> changes, long version) {
                this.changes = new ArrayList<>(changes);
                this.version = version;
            }

            @Override
            public Response<?> appendTo(AbstractPipeline pipeline) {
                String[] users = new String[changes.size()];
                for (int i = 0; i < users.length; i++) {
                    users[i] = Long.toString(changes.get(i).userId);
                }
                return pipeline.zmscore(key, users);
            }

            /** Another type's key there is replaced, and then nobody is live. */
            @Override
            public RedisConnection.Command replacingWrongType() {
                return p -> p.eval(REPLACE_SCRIPT, List.of(key), List.of());
            }

            @Override
            public List<RedisConnection.Command> then(Object reply) {
                if (!(reply instanceof List<?> scores)) {
                    return List.of();
                }
                long now = System.currentTimeMillis();
                String value = Long.toString(version);
                List<RedisConnection.Command> pushes = new ArrayList<>();
                for (int i = 0; i < changes.size(); i++) {
                    if (scores.get(i) instanceof Double until && until > now) {
                        UnreadChanged change = changes.get(i);
                        String versionKey = RedisNames.versionKey(prefix, change.userId);
                        String channel = RedisNames.unreadChangedChannel(prefix, change.userId);
                        String message = change.json(version);
                        pushes.add(p -> p.setex(versionKey, RedisNames.VERSION_TTL_SECONDS, value));
                        pushes.add(RedisConnection.publish(sharded, channel, message));
                    }
                }
                return pushes;
            }
        }

        /**
         * The badge's SET or DEL goes straight to {@code commands}; a field of a hash or a member
         * of a set joins the other writes of its key.
         */
        private void write(
                Target target,
                long count,
                List<RedisConnection.Command> commands,
                Map<String, KeyWrites> hashes,
                Map<String, KeyWrites> sets) {
            Count kind = target.kind();
            String key = kind.key(prefix, target.userId());
            String field = kind.field(target.conversationId(), target.threadSeq);
            switch (kind.shape()) {
                case STRING -> {
                    String value = Long.toString(count);
                    commands.add(count == 0 ? p -> p.del(key) : p -> p.set(key, value));
                }
                case HASH -> {
                    KeyWrites writes = hashes.computeIfAbsent(key, k -> new KeyWrites());
                    if (count == 0) {
                        writes.unset(field);
                    } else {
                        writes.set(field, Long.toString(count));
                    }
                }
                case SET -> {
                    KeyWrites members = sets.computeIfAbsent(key, k -> new KeyWrites());
                    if (count == 0) {
                        members.unset(field);
                    } else {
                        members.add(field);
                    }
                }
            }
        }

        @Override
        public void clear() {
            latest.clear();
        }
    }
}
