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

        /**
         * Per conversation, at most one command of each kind per {@link
         * KeyCommands#FIELDS_PER_COMMAND} readers: in a channel every message raises its sender's
         * score, so a command per reader was a command per message.
         */
        @Override
        public List<RedisConnection.Command> commands() {
            List<RedisConnection.Command> commands = new ArrayList<>();
            latest.forEach(
                    (conversationId, cursors) -> {
                        String key = RedisNames.readersKey(prefix, conversationId);
                        List<Map.Entry<String, Double>> rises = new ArrayList<>();
                        List<Map.Entry<String, Double>> replacing = new ArrayList<>();
                        List<String> removals = new ArrayList<>();
                        cursors.forEach(
                                (user, pending) -> {
                                    String member = Long.toString(user);
                                    if (pending.score() == 0) {
                                        removals.add(member);
                                    } else {
                                        (pending.removed() ? replacing : rises)
                                                .add(Map.entry(member, (double) pending.score()));
                                    }
                                });
                        int size = KeyCommands.FIELDS_PER_COMMAND;
                        KeyCommands.chunks(
                                commands,
                                rises,
                                size,
                                scores -> new CursorCommand(key, scores, false));
                        KeyCommands.chunks(
                                commands,
                                replacing,
                                size,
                                scores -> new CursorCommand(key, scores, true));
                        KeyCommands.chunks(
                                commands,
                                removals,
                                size,
                                members -> new RemoveCommand(key, members));
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
     * {@code ZADD GT} of readers' cursors, or after their removal ({@code replaces}) a plain {@code
     * ZADD}, as {@code ZREM} then {@code ZADD} would write them; a key of another type there (a
     * leftover, another application's) is replaced, as the counts' keys are (see {@link
     * RedisCounts}).
     */
    private static final class CursorCommand implements RedisConnection.Command {
        private static final ZAddParams RISE_ONLY = ZAddParams.zAddParams().gt();

        /** Deletes KEYS[1] unless it is a sorted set, then raises each score in ARGV. */
        private static final String RISE_SCRIPT =
                RedisConnection.replacingScript(
                        "zset", "redis.call('ZADD', KEYS[1], 'GT', unpack(ARGV))\n");

        /** Deletes KEYS[1] unless it is a sorted set, then sets each score in ARGV. */
        private static final String SET_SCRIPT =
                RedisConnection.replacingScript(
                        "zset", "redis.call('ZADD', KEYS[1], unpack(ARGV))\n");

        private final String key;
        private final Map<String, Double> scores;
        private final boolean replaces;

        CursorCommand(String key, List<Map.Entry<String, Double>> scores, boolean replaces) {
            this.key = key;
            this.scores = new HashMap<>(2 * scores.size());
            for (Map.Entry<String, Double> score : scores) {
                this.scores.put(score.getKey(), score.getValue());
            }
            this.replaces = replaces;
        }

        @Override
        public Response<?> appendTo(AbstractPipeline pipeline) {
            return replaces ? pipeline.zadd(key, scores) : pipeline.zadd(key, scores, RISE_ONLY);
        }

        @Override
        public RedisConnection.Command replacingWrongType() {
            List<String> args = new ArrayList<>(2 * scores.size());
            scores.forEach(
                    (member, score) -> {
                        args.add(Long.toString(score.longValue()));
                        args.add(member);
                    });
            return p -> p.eval(replaces ? SET_SCRIPT : RISE_SCRIPT, List.of(key), args);
        }
    }

    /**
     * {@code ZREM} of readers who left or were erased; a key of another type there is replaced, as
     * above.
     */
    private static final class RemoveCommand implements RedisConnection.Command {
        private static final String REPLACE_SCRIPT =
                RedisConnection.replacingScript(
                        "zset", "redis.call('ZREM', KEYS[1], unpack(ARGV))\n");

        private final String key;
        private final String[] members;

        RemoveCommand(String key, List<String> members) {
            this.key = key;
            this.members = members.toArray(new String[0]);
        }

        @Override
        public Response<?> appendTo(AbstractPipeline pipeline) {
            return pipeline.zrem(key, members);
        }

        @Override
        public RedisConnection.Command replacingWrongType() {
            return p -> p.eval(REPLACE_SCRIPT, List.of(key), List.of(members));
        }

        @Override
        public int removes() {
            return members.length;
        }
    }
}
