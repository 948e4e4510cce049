package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.RedisNames;
import dev.unread.events.UnreadCount;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Writes counts to Redis as the contract's keys, with absolute values only, so that a replay
 * after a restore converges to the same state:
 *
 * <ul>
 *   <li>the sender badge: string {@code unread:senders:{userId}}, {@code SET} to the count, {@code
 *       DEL} when it drops to 0;
 *   <li>a conversation's count: hash {@code chat:unread:{userId}}, field {@code {conversationId}},
 *       {@code HSET} to the count, {@code HDEL} when it drops to 0.
 * </ul>
 *
 * <p>{@link UnreadConfig#redisKeyPrefix} goes before every key (tests use it to isolate
 * themselves in a shared Redis). Updates of one key or field inside the flush interval ({@link
 * UnreadConfig#flushIntervalMs}) are coalesced: only the last value is sent. Records of one user
 * must reach the same subtask in order (the job's keyed stream does that), or an older value could
 * be written last.
 */
public class RedisCounts implements Sink<UnreadCount> {
    private static final long serialVersionUID = 1L;


    /** Counter on each Redis sink writer's metric group: commands Redis acknowledged. */
    public static final String COMMANDS_METRIC = "redisCommands";

    /** Counter on each Redis sink writer's metric group: updates absorbed by a later one. */
    public static final String COALESCED_METRIC = "redisCoalescedUpdates";

    private final UnreadConfig config;

    public RedisCounts(UnreadConfig config) {
        // Fail when the job is built, not in every task after it was deployed.
        config.redisEndpoint();
        this.config = config;
    }

    @Override
    public SinkWriter<UnreadCount> createWriter(WriterInitContext context) {
        return new RedisWriter<>(
                new Buffer(config.redisKeyPrefix),
                new RedisConnection(config.redisEndpoint()),
                context,
                config.flushIntervalMs);
    }

    /** The latest count of each badge and conversation since the last flush. */
    static final class Buffer implements RedisWriter.Buffer<UnreadCount> {
        /**
         * {@code conversationId} is {@link UnreadCount#SENDER_BADGE} for the badge. A class rather
         * than a record: the record's generated equals showed in the counting task's profile,
         * and this hash mixes the two ids instead of summing them.
         */
        private static final class Target {
            private final long userId;
            private final long conversationId;

            Target(long userId, long conversationId) {
                this.userId = userId;
                this.conversationId = conversationId;
            }

            long userId() {
                return userId;
            }

            long conversationId() {
                return conversationId;
            }

            @Override
            public boolean equals(Object o) {
                return o instanceof Target t
                        && t.userId == userId
                        && t.conversationId == conversationId;
            }

            @Override
            public int hashCode() {
                return Long.hashCode(userId * 0x9E3779B97F4A7C15L + conversationId);
            }
        }

        private final String prefix;
        private final Map<Target, Long> latest = new HashMap<>();

        Buffer(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public boolean add(UnreadCount count) {
            return latest.put(new Target(count.userId, count.conversationId), count.count) != null;
        }

        @Override
        public int size() {
            return latest.size();
        }

        @Override
        public List<RedisConnection.Command> commands() {
            List<RedisConnection.Command> commands = new ArrayList<>(latest.size());
            latest.forEach((target, count) -> commands.add(command(target, count)));
            return commands;
        }

        private RedisConnection.Command command(Target target, long count) {
            String value = Long.toString(count);
            if (target.conversationId() == UnreadCount.SENDER_BADGE) {
                String key = RedisNames.sendersKey(prefix, target.userId());
                return count == 0 ? p -> p.del(key) : p -> p.set(key, value);
            }
            String key = RedisNames.conversationsKey(prefix, target.userId());
            String field = Long.toString(target.conversationId());
            return count == 0 ? p -> p.hdel(key, field) : p -> p.hset(key, field, value);
        }

        @Override
        public void clear() {
            latest.clear();
        }
    }
}
