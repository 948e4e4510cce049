package dev.unread.sinks;

import dev.unread.contract.Count;
import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import dev.unread.events.UnreadCount;
import dev.unread.sinks.HeldCounts.Update;
import dev.unread.sinks.KeyCommands.KeyCommand;
import dev.unread.sinks.KeyCommands.KeyWrites;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

/**
 * The counts sink's buffer: the latest value of each count since the last flush, and the commands
 * that write them (see {@link RedisCounts} for the keys, the order of the commands, and which
 * counts a flush writes).
 *
 * <p>{@link #add} is the task's and touches only this buffer's own records; everything else runs on
 * the writer's sender ({@link RedisWriter}), which alone owns what the writer's two buffers share,
 * the held counts and the versions. So an erasure the task takes is only noted here, and applied to
 * the held counts when the sender takes this buffer: by then everything held is older than the
 * erasure, and everything this buffer holds of the user came after it.
 */
final class CountBuffer implements RedisWriter.Buffer<UnreadCount> {
    /**
     * Counts held back for the background flush, at most this many (about 120 bytes each, so about
     * 12 MB a writer): past it, the flush of the interval writes them all. A user's counts are
     * coalesced whatever their number, so this is reached only by more distinct counts changing
     * within a background interval than the bound, and costs commands, never a count.
     */
    static final int MAX_HELD = 10 * RedisWriter.MAX_BUFFERED;

    /**
     * {@code conversationId} is {@link UnreadCount#SENDER_BADGE} for the badge and the totals;
     * {@code kind} is the count's; {@code threadSeq} is a thread count's root, 0 otherwise. A class
     * rather than a record: the record's generated equals showed in the counting task's profile,
     * and this hash mixes the ids instead of summing them.
     */
    static final class Target {
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

    private static final String REPLACE_LIVE_USERS_SCRIPT =
            RedisConnection.replacingScript("zset", "");

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

    /** On a cluster: UNREAD_CHANGED goes out with SPUBLISH, a shard channel. */
    private final boolean sharded;

    /** What the task buffered since this buffer was last handed to a flush. */
    private final Map<Target, Update> latest = new HashMap<>();

    /**
     * The users erased since the last flush, whose held counts go and whose keys are deleted before
     * the counts are written: a count of one that arrived before the erasure was dropped from
     * {@link #latest} with it, so what is left there came after it.
     */
    private final Map<Long, Long> erased = new HashMap<>();

    /** Shared with the writer's other buffer; the sender's alone, never touched by {@link #add}. */
    private final HeldCounts held;

    /** Shared with the writer's other buffer; the sender's alone, as {@link #held}. */
    private final ChangeVersions versions;

    /** How long a user's counts are held before a flush of the interval writes them. */
    private final long holdMillis;

    /** Whether Redis holds what the counter showed; the sender's alone, as {@link #held}. */
    private final WrittenAfter writtenAfter;

    /**
     * @param holdMillis how long the flushes of the interval hold a user's counts nobody watches
     *     before they write them: the background interval less one flush interval, so that each is
     *     written within the background interval; 0 holds none
     * @param writtenAfter whether a count that changes nothing may be left out: where Redis holds
     *     what the counter showed
     */
    CountBuffer(
            String prefix,
            boolean sharded,
            HeldCounts held,
            ChangeVersions versions,
            long holdMillis,
            WrittenAfter writtenAfter) {
        this.prefix = prefix;
        this.sharded = sharded;
        this.held = held;
        this.versions = versions;
        this.holdMillis = holdMillis;
        this.writtenAfter = writtenAfter;
    }

    @Override
    public boolean add(UnreadCount count) {
        if (count.erased) {
            // Rare, and proportional to the buffer: the buffer is not indexed by user for it.
            latest.keySet().removeIf(target -> target.userId() == count.userId);
            erased.merge(count.userId, count.count, Math::max);
            return false;
        }
        Update update = new Update(count.count, count.before);
        Update older =
                latest.putIfAbsent(
                        new Target(count.userId, count.conversationId, count.kind, count.threadSeq),
                        update);
        if (older == null) {
            return false;
        }
        older.replaceWith(update);
        return true;
    }

    @Override
    public int size() {
        return latest.size() + erased.size();
    }

    @Override
    public int held() {
        return held.size();
    }

    /** Every count, held ones included; {@link #clear} once Redis acknowledged them. */
    @Override
    public List<RedisConnection.Command> commands() {
        List<RedisConnection.Command> commands = new ArrayList<>();
        eraseAll(commands);
        takeLatest(0);
        writesAndPushes(held::forEach, commands);
        return commands;
    }

    /**
     * The commands writing {@code counts}, then the change messages of the users among them that
     * are live.
     */
    private void writesAndPushes(
            Consumer<BiConsumer<Target, Update>> counts, List<RedisConnection.Command> commands) {
        Map<Long, UnreadChanged> changes = new HashMap<>();
        writes(counts, commands, changes);
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
    }

    /**
     * The counts of the users live now, and of the users whose counts have been held for {@code
     * holdMillis}; the others stay held, or are written too when more than {@link #MAX_HELD} are
     * held. Takes what it returns out of the buffer.
     *
     * <p>Writing each user's counts once they have been held long enough, rather than everyone's at
     * one background flush, spreads the background writes over the flushes of the interval: one
     * send of a second's worth of every user's counts kept the sender busy for up to a quarter of a
     * second, and the next flush, a live user's count with it, waited for it (docs/benchmarks.md).
     */
    @Override
    public List<RedisConnection.Command> dueCommands(long now) {
        // An erasure is never held: its deletes go at the next flush, before any later count.
        List<RedisConnection.Command> due = new ArrayList<>();
        eraseAll(due);
        takeLatest(now);
        if (held.size() > MAX_HELD) {
            due.addAll(commands());
            held.clear();
            return due;
        }
        Map<Target, Update> ripe = held.takeHeldFor(holdMillis, now);
        if (!ripe.isEmpty()) {
            writesAndPushes(ripe::forEach, due);
        }
        if (held.size() > 0) {
            due.add(new WriteLiveUsers(held.users()));
        }
        return due;
    }

    /**
     * The deletes of the users erased since the last flush, taken out of the buffer, and out of the
     * held counts what they held: held before this buffer came, so older than the erasure. Before
     * {@link #takeLatest}, which holds what came after it.
     */
    private void eraseAll(List<RedisConnection.Command> commands) {
        erased.forEach(
                (user, erasedAt) -> {
                    held.take(user);
                    erase(user, erasedAt, commands);
                });
        erased.clear();
    }

    /** Newer than anything held: they replace it. After {@link #eraseAll}. */
    private void takeLatest(long now) {
        latest.forEach((target, update) -> held.put(target, update, now));
        latest.clear();
    }

    /**
     * The commands writing {@code counts}, and each user's change message in {@code changes}; none
     * for a count that changes nothing where Redis holds what the counter showed ({@link
     * WrittenAfter}): most of a counter incarnation's first writes of a record, and a count that
     * went back to its value within the interval (a message and the inbox open after it).
     */
    private void writes(
            Consumer<BiConsumer<Target, Update>> counts,
            List<RedisConnection.Command> commands,
            Map<Long, UnreadChanged> changes) {
        Map<String, KeyWrites> hashes = new HashMap<>();
        Map<String, KeyWrites> sets = new HashMap<>();
        boolean skipUnchanged = writtenAfter.knowsRedis();
        counts.accept(
                (target, update) -> {
                    if (skipUnchanged && update.unchanged()) {
                        return;
                    }
                    long count = update.count;
                    write(target, count, commands, hashes, sets);
                    changes.computeIfAbsent(target.userId(), UnreadChanged::new)
                            .add(target.kind(), target.conversationId(), target.threadSeq, count);
                });
        hashes.forEach(
                (key, writes) ->
                        writes.commandsTo(commands, key, KeyCommand.Op.HSET, KeyCommand.Op.HDEL));
        sets.forEach(
                (key, writes) ->
                        writes.commandsTo(commands, key, KeyCommand.Op.SADD, KeyCommand.Op.SREM));
    }

    /** A user's score in the live users: live until then, in epoch milliseconds. */
    private static boolean isLive(Object score, long now) {
        return score instanceof Double until && until > now;
    }

    /**
     * The fast flush: ZMSCORE of the users with held counts in {@link RedisNames#LIVE_USERS}, then
     * the held counts of those live, and for each of them {@code SET unread:version:{userId} EX}
     * and PUBLISH of its UNREAD_CHANGED. A user added as live after this read reads its snapshot
     * without the counts still held, and gets them, with their message, at the next fast flush or
     * the background one, whichever comes first (docs/contract.md, "Live push").
     */
    private final class WriteLiveUsers implements RedisConnection.Then {
        private final String key = RedisNames.liveUsersKey(prefix);
        private final long[] users;

        /** What the last answer took out of the held counts; put back if it is asked again. */
        private Map<Target, Update> taken = Map.of();

        WriteLiveUsers(long[] users) {
            this.users = users;
        }

        @Override
        public Response<?> appendTo(AbstractPipeline pipeline) {
            String[] members = new String[users.length];
            for (int i = 0; i < users.length; i++) {
                members[i] = Long.toString(users[i]);
            }
            return pipeline.zmscore(key, members);
        }

        /** Another type's key there is replaced, and then nobody is live. */
        @Override
        public RedisConnection.Command replacingWrongType() {
            return p -> p.eval(REPLACE_LIVE_USERS_SCRIPT, List.of(key), List.of());
        }

        /**
         * A failed send is sent again whole by the writer's next flush, this read of who is live
         * with it: what the first answer took and never wrote goes back first.
         */
        @Override
        public List<RedisConnection.Command> then(Object reply) {
            held.putBack(taken);
            taken = new HashMap<>();
            if (!(reply instanceof List<?> scores)) {
                return List.of();
            }
            long now = System.currentTimeMillis();
            for (int i = 0; i < users.length; i++) {
                if (isLive(scores.get(i), now)) {
                    taken.putAll(held.take(users[i]));
                }
            }
            if (taken.isEmpty()) {
                return List.of();
            }
            Map<Long, UnreadChanged> changes = new HashMap<>();
            List<RedisConnection.Command> commands = new ArrayList<>(taken.size() * 2);
            writes(taken::forEach, commands, changes);
            if (sharded) {
                commands.add(RedisConnection.BARRIER);
            }
            long version = versions.next();
            for (UnreadChanged change : changes.values()) {
                pushTo(change, version, commands);
            }
            return commands;
        }
    }

    /** The user's version, then its change message with that version. */
    private void pushTo(
            UnreadChanged change, long version, List<RedisConnection.Command> commands) {
        String versionKey = RedisNames.versionKey(prefix, change.userId);
        String channel = RedisNames.unreadChangedChannel(prefix, change.userId);
        String message = change.json(version);
        String value = Long.toString(version);
        commands.add(p -> p.setex(versionKey, RedisNames.VERSION_TTL_SECONDS, value));
        commands.add(RedisConnection.publish(sharded, channel, message));
    }

    /**
     * ZMSCORE of the flush's changed users in {@link RedisNames#LIVE_USERS}, after their counts;
     * then, for each user live at that moment, {@code SET unread:version:{userId} EX} and PUBLISH
     * of its UNREAD_CHANGED. A user the API adds as live after this read is added before its
     * stream's snapshot is read, so after these counts were written: the snapshot has them, and
     * nothing is missed by not publishing them (docs/contract.md, "Live push").
     */
    private final class PushToLiveUsers implements RedisConnection.Then {
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
            return p -> p.eval(REPLACE_LIVE_USERS_SCRIPT, List.of(key), List.of());
        }

        @Override
        public List<RedisConnection.Command> then(Object reply) {
            if (!(reply instanceof List<?> scores)) {
                return List.of();
            }
            long now = System.currentTimeMillis();
            List<RedisConnection.Command> pushes = new ArrayList<>();
            for (int i = 0; i < changes.size(); i++) {
                if (isLive(scores.get(i), now)) {
                    pushTo(changes.get(i), version, pushes);
                }
            }
            return pushes;
        }
    }

    /**
     * The badge's SET or DEL goes straight to {@code commands}; a field of a hash or a member of a
     * set joins the other writes of its key.
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
                commands.add(
                        count == 0
                                ? RedisConnection.removal(p -> p.del(key))
                                : p -> p.set(key, value));
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

    /**
     * Deletes every key of an erased user, one command per key, so that on a cluster each goes to
     * its own slot's primary: the counts' keys, the version, and the user's live registration; sets
     * the API's action stamp to {@code erasedAt} unless it is later already, so that an action
     * taken after the erasure on an instance whose clock is behind is stamped after it, not
     * dropped; then announces the erasure on the user's change channel, where every API instance
     * serving the user ends its streams. On one connection (per primary) they are sent before the
     * counts of the same flush, and a later flush's counts after them.
     */
    private void erase(long user, long erasedAt, List<RedisConnection.Command> commands) {
        Set<String> keys = new LinkedHashSet<>();
        for (Count kind : Count.values()) {
            keys.add(kind.key(prefix, user));
        }
        keys.add(RedisNames.versionKey(prefix, user));
        for (String key : keys) {
            commands.add(RedisConnection.removal(p -> p.del(key)));
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
                    public boolean removes() {
                        return true;
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

    /** Drops what was handed to Redis: the held counts, and anything the task buffered. */
    @Override
    public void clear() {
        latest.clear();
        held.clear();
        erased.clear();
    }
}
