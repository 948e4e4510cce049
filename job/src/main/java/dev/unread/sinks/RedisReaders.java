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
import redis.clients.jedis.params.ZAddParams;

/**
 * Writes "read by N": the sorted set {@code chat:readers:{conversationId}}, member the
 * participant's userId, score its read cursor, with {@code ZADD ... GT} so a score only rises
 * whatever order writes arrive in, a replay after a restore included. Updates of one member within
 * the flush interval are coalesced to the highest.
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

    /** The highest cursor of each conversation's reader since the last flush. */
    static final class Buffer implements RedisWriter.Buffer<ReaderUpdate> {
        private static final ZAddParams RISE_ONLY = ZAddParams.zAddParams().gt();

        private final String prefix;

        /** conversationId → (userId → cursor). */
        private final Map<Long, Map<Long, Long>> latest = new HashMap<>();

        private int size;

        Buffer(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public boolean add(ReaderUpdate update) {
            Map<Long, Long> cursors =
                    latest.computeIfAbsent(update.conversationId, c -> new HashMap<>());
            Long before = cursors.get(update.userId);
            if (before == null) {
                cursors.put(update.userId, update.lastReadSeq);
                size++;
                return false;
            }
            cursors.put(update.userId, Math.max(before, update.lastReadSeq));
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
                                (user, seq) -> {
                                    String member = Long.toString(user);
                                    commands.add(p -> p.zadd(key, seq, member, RISE_ONLY));
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
}
