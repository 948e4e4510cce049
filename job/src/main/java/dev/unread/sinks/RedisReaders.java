package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.RedisNames;
import dev.unread.events.ReaderUpdate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.params.ZAddParams;

/**
 * Writes "read by N": the sorted set {@code chat:readers:{conversationId}}, member the
 * participant's userId, score its read cursor, with {@code ZADD ... GT} so a score only rises
 * whatever order writes arrive in, a replay after a restore included, and {@code ZREM} of a member
 * who left the conversation or was erased. Updates of one member within the flush interval are
 * coalesced to the highest, or to the removal when it came last; a score after a removal is written
 * with a plain {@code ZADD}, which replaces what Redis holds as the removal would have (an erased
 * member's cursor starts again below the score it had).
 *
 * <p>Scores are doubles: a cursor above 2^53 is stored rounded.
 */
public class RedisReaders implements Sink<ReaderUpdate> {
    private static final long serialVersionUID = 1L;

    private final UnreadConfig config;

    public RedisReaders(UnreadConfig config) {
        // Fail when the job is built, not in every task after it was deployed.
        config.redisEndpoint();
        this.config = config;
    }

    @Override
    public SinkWriter<ReaderUpdate> createWriter(WriterInitContext context) {
        return new RedisWriter<>(
                () -> new Buffer(config.redisKeyPrefix),
                new RedisConnection(config.redisEndpoint()),
                context,
                config.flushIntervalMs);
    }

    /**
     * A reader's update since the last flush: its highest cursor ({@code score}, 0 for none) and
     * whether a removal came before it ({@code removed}); a removal alone is {@code ZREM}.
     */
    private static final class Pending {
        private final long score;
        private final boolean removed;

        Pending(long score, boolean removed) {
            this.score = score;
            this.removed = removed;
        }

        long score() {
            return score;
        }

        boolean removed() {
            return removed;
        }
    }

    /**
     * The highest cursor of each conversation's reader since the last flush, or its removal when
     * that came last (a reader who left or was erased), or both when a cursor followed a removal.
     */
    static final class Buffer implements RedisWriter.Buffer<ReaderUpdate> {
        private final String prefix;

        /** conversationId → (userId → its update). */
        private final Map<Long, Map<Long, Pending>> latest = new HashMap<>();

        private int size;

        Buffer(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public boolean add(ReaderUpdate update) {
            Map<Long, Pending> cursors =
                    latest.computeIfAbsent(update.conversationId, c -> new HashMap<>());
            Pending before = cursors.get(update.userId);
            if (!update.participant) {
                // Whatever came before in the interval is removed with the member.
                cursors.put(update.userId, new Pending(0, true));
            } else if (before == null) {
                cursors.put(update.userId, new Pending(update.lastReadSeq, false));
            } else {
                long highest = Math.max(before.score(), update.lastReadSeq);
                cursors.put(update.userId, new Pending(highest, before.removed()));
            }
            if (before == null) {
                size++;
                return false;
            }
            return true;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public List<RedisConnection.Command> commands() {
            List<RedisConnection.Command> commands = new ArrayList<>(size);
            latest.forEach(
                    (conversationId, cursors) -> {
                        String key = RedisNames.readersKey(prefix, conversationId);
                        cursors.forEach(
                                (user, pending) -> {
                                    commands.add(
                                            pending.score() == 0
                                                    ? new RemoveCommand(key, user)
                                                    : new CursorCommand(
                                                            key,
                                                            user,
                                                            pending.score(),
                                                            pending.removed()));
                                });
                    });
            return commands;
        }

        @Override
        public void clear() {
            latest.clear();
            size = 0;
        }
    }

    /**
     * {@code ZADD GT} of a reader's cursor, or after a removal ({@code replaces}) a plain {@code
     * ZADD}, as {@code ZREM} then {@code ZADD} would write it; a key of another type there (a
     * leftover, another application's) is replaced, as the counts' keys are (see {@link
     * RedisCounts}).
     */
    private static final class CursorCommand implements RedisConnection.Command {
        private static final ZAddParams RISE_ONLY = ZAddParams.zAddParams().gt();

        /** Deletes KEYS[1] unless it is a sorted set, then raises ARGV[1]'s score to ARGV[2]. */
        private static final String RISE_SCRIPT =
                RedisConnection.replacingScript(
                        "zset", "redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[1])\n");

        /** Deletes KEYS[1] unless it is a sorted set, then sets ARGV[1]'s score to ARGV[2]. */
        private static final String SET_SCRIPT =
                RedisConnection.replacingScript(
                        "zset", "redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])\n");

        private final String key;
        private final String member;
        private final long seq;
        private final boolean replaces;

        CursorCommand(String key, long user, long seq, boolean replaces) {
            this.key = key;
            this.member = Long.toString(user);
            this.seq = seq;
            this.replaces = replaces;
        }

        @Override
        public Response<?> appendTo(AbstractPipeline pipeline) {
            return replaces
                    ? pipeline.zadd(key, seq, member)
                    : pipeline.zadd(key, seq, member, RISE_ONLY);
        }

        @Override
        public RedisConnection.Command replacingWrongType() {
            List<String> args = List.of(member, Long.toString(seq));
            return p -> p.eval(replaces ? SET_SCRIPT : RISE_SCRIPT, List.of(key), args);
        }
    }

    /** {@code ZREM} of a reader who left; a key of another type there is replaced, as above. */
    private static final class RemoveCommand implements RedisConnection.Command {
        private static final String REPLACE_SCRIPT =
                RedisConnection.replacingScript("zset", "redis.call('ZREM', KEYS[1], ARGV[1])\n");

        private final String key;
        private final String member;

        RemoveCommand(String key, long user) {
            this.key = key;
            this.member = Long.toString(user);
        }

        @Override
        public Response<?> appendTo(AbstractPipeline pipeline) {
            return pipeline.zrem(key, member);
        }

        @Override
        public RedisConnection.Command replacingWrongType() {
            return p -> p.eval(REPLACE_SCRIPT, List.of(key), List.of(member));
        }

        @Override
        public boolean removes() {
            return true;
        }
    }
}
