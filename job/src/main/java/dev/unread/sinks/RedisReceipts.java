package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import dev.unread.events.ReadReceipt;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Publishes the read receipts of every conversation cursor that moved forward (the job emits a
 * cursor only then) on the channel each {@link ReadReceipt} names: {@code READ_PROGRESS_CHANGED},
 * or {@code READ_RECEIPTS:{userId}} of a participant the receipt concerns:
 *
 * <pre>{"type":"READ_RECEIPT","conversationId":80001,"userId":10086,"readSeq":1038}</pre>
 *
 * <p>{@link UnreadConfig#redisKeyPrefix} goes before the channel name too, so that tests sharing a
 * Redis hear only their own receipts. Receipts are events, not state: each is published, none is
 * coalesced, in the order received, buffered and pipelined like the counts and flushed on the same
 * triggers. On a Redis Cluster every receipt channel is a shard channel (SPUBLISH; subscribers use
 * SSUBSCRIBE on the primary owning the channel's slot), as {@code UNREAD_CHANGED:{userId}} is.
 * Delivery is at least once: a replay after a restore, or a retried round trip, may publish a
 * receipt again; a receipt carries the absolute cursor, so a repeat is harmless.
 */
public class RedisReceipts implements Sink<ReadReceipt> {
    private static final long serialVersionUID = 1L;

    private final UnreadConfig config;

    public RedisReceipts(UnreadConfig config) {
        // Fail when the job is built, not in every task after it was deployed.
        config.redisEndpoint();
        this.config = config;
    }

    @Override
    public SinkWriter<ReadReceipt> createWriter(WriterInitContext context) {
        RedisConnection connection = new RedisConnection(config.redisEndpoint());
        return new RedisWriter<>(
                () -> new Buffer(config.redisKeyPrefix, connection.sharded()),
                connection,
                context,
                config.flushIntervalMs);
    }

    /** The message published for {@code receipt}, whatever its channel. */
    public static String receiptJson(ReadReceipt receipt) {
        return "{\"type\":\""
                + MessageTypes.READ_RECEIPT
                + "\",\"conversationId\":"
                + receipt.conversationId
                + ",\"userId\":"
                + receipt.readerId
                + ",\"readSeq\":"
                + receipt.readSeq
                + "}";
    }

    /**
     * The receipts since the last flush, in order. On a cluster every channel is a shard channel
     * and its receipts go out with SPUBLISH: a channel's one slot puts all of them on one node, in
     * order, instead of PUBLISH copying each to every node of the cluster.
     */
    static final class Buffer implements RedisWriter.Buffer<ReadReceipt> {
        private final String prefix;
        private final String everyone;
        private final boolean sharded;
        private final List<RedisConnection.Command> commands = new ArrayList<>();

        Buffer(String prefix, boolean sharded) {
            this.prefix = prefix;
            this.everyone = RedisNames.readProgressChannel(prefix);
            this.sharded = sharded;
        }

        @Override
        public boolean add(ReadReceipt receipt) {
            String message = receiptJson(receipt);
            String channel =
                    receipt.recipientId == ReadReceipt.EVERYONE
                            ? everyone
                            : RedisNames.readReceiptsChannel(prefix, receipt.recipientId);
            commands.add(RedisConnection.publish(sharded, channel, message));
            return false;
        }

        @Override
        public int size() {
            return commands.size();
        }

        @Override
        public List<RedisConnection.Command> commands() {
            return new ArrayList<>(commands);
        }

        @Override
        public void clear() {
            commands.clear();
        }
    }
}
