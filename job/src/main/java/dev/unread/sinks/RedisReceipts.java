package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.RedisNames;
import dev.unread.events.ConversationCursor;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import redis.clients.jedis.ClusterPipeline;

/**
 * Publishes a read receipt on the Redis channel {@code READ_PROGRESS_CHANGED} for every
 * conversation cursor that moved forward (the job emits a cursor only then):
 *
 * <pre>{"type":"READ_RECEIPT","conversationId":80001,"userId":10086,"readSeq":1038}</pre>
 *
 * <p>{@link UnreadConfig#redisKeyPrefix} goes before the channel name too, so that tests sharing a
 * Redis hear only their own receipts. Receipts are events, not state: each is published, none is
 * coalesced, in the order received, buffered and pipelined like the counts and flushed on the same
 * triggers. On a Redis Cluster the channel is a shard channel (SPUBLISH; subscribers use
 * SSUBSCRIBE). Delivery is at least once: a replay after a restore, or a retried round trip, may
 * publish a receipt again; a receipt carries the absolute cursor, so a repeat is harmless.
 */
public class RedisReceipts implements Sink<ConversationCursor> {
    private static final long serialVersionUID = 1L;

    private final UnreadConfig config;

    public RedisReceipts(UnreadConfig config) {
        // Fail when the job is built, not in every task after it was deployed.
        config.redisEndpoint();
        this.config = config;
    }

    @Override
    public SinkWriter<ConversationCursor> createWriter(WriterInitContext context) {
        RedisConnection connection = new RedisConnection(config.redisEndpoint());
        return new RedisWriter<>(
                new Buffer(
                        RedisNames.readProgressChannel(config.redisKeyPrefix),
                        connection.sharded()),
                connection,
                context,
                config.flushIntervalMs);
    }

    /** The message published for {@code cursor}. */
    public static String receiptJson(ConversationCursor cursor) {
        return "{\"type\":\"READ_RECEIPT\",\"conversationId\":"
                + cursor.conversationId
                + ",\"userId\":"
                + cursor.userId
                + ",\"readSeq\":"
                + cursor.lastReadSeq
                + "}";
    }

    /**
     * The receipts since the last flush, in order. On a cluster they go out with SPUBLISH on the
     * same channel, now a shard channel: its one slot puts every receipt on one node, in order,
     * instead of PUBLISH copying each to every node of the cluster.
     */
    static final class Buffer implements RedisWriter.Buffer<ConversationCursor> {
        private final String channel;
        private final boolean sharded;
        private final List<String> receipts = new ArrayList<>();

        Buffer(String channel, boolean sharded) {
            this.channel = channel;
            this.sharded = sharded;
        }

        @Override
        public boolean add(ConversationCursor cursor) {
            receipts.add(receiptJson(cursor));
            return false;
        }

        @Override
        public int size() {
            return receipts.size();
        }

        @Override
        public List<RedisConnection.Command> commands() {
            List<RedisConnection.Command> commands = new ArrayList<>(receipts.size());
            for (String receipt : receipts) {
                commands.add(
                        sharded
                                ? p -> ((ClusterPipeline) p).spublish(channel, receipt)
                                : p -> p.publish(channel, receipt));
            }
            return commands;
        }

        @Override
        public void clear() {
            receipts.clear();
        }
    }
}
