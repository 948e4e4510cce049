package dev.unread.sinks;

import dev.unread.contract.Count;
import dev.unread.events.UnreadCount;
import dev.unread.sinks.HeldCounts.Update;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The counts sink's buffer: the latest value of each count since the last flush, coalesced by
 * target, its hand-over to the held counts, and which counts and erasures a flush writes, in which
 * order (see {@link RedisCounts} for the keys and the order of the commands). The commands are
 * built by {@link ErasureCommands} (an erasure's), {@link CountWrites} (the counts') and {@link
 * LivePushes} (who is live, and their versions and change messages).
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

        long threadSeq() {
            return threadSeq;
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

    /** How long a user's counts are held before a flush of the interval writes them. */
    private final long holdMillis;

    /** The commands of the erasures, before the counts of the same flush. */
    private final ErasureCommands erasures;

    /**
     * The counts' commands and the live users' versions and messages; the sender's alone, as {@link
     * #held}.
     */
    private final LivePushes live;

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
        this.held = held;
        this.holdMillis = holdMillis;
        this.erasures = new ErasureCommands(prefix, sharded);
        this.live =
                new LivePushes(
                        prefix,
                        sharded,
                        held,
                        versions,
                        new CountWrites(prefix, sharded, writtenAfter));
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
        live.writesAndPushes(held::forEach, commands);
        return commands;
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
            live.writesAndPushes(ripe::forEach, due);
        }
        if (held.size() > 0) {
            due.add(live.writeLiveUsers(held.users()));
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
                    erasures.erase(user, erasedAt, commands);
                });
        erased.clear();
    }

    /** Newer than anything held: they replace it. After {@link #eraseAll}. */
    private void takeLatest(long now) {
        latest.forEach((target, update) -> held.put(target, update, now));
        latest.clear();
    }

    /** Drops what was handed to Redis: the held counts, and anything the task buffered. */
    @Override
    public void clear() {
        latest.clear();
        held.clear();
        erased.clear();
    }
}
