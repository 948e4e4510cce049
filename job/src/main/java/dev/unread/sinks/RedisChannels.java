package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.events.ChannelWrite;
import java.util.concurrent.ExecutorService;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Writes the channel stage's {@link ChannelWrite}s to Redis (docs/contract.md, "Channels in Redis"
 * and "Live push"): each channel's index, the members' tracks, and the notices. A flush, in order:
 *
 * <ol>
 *   <li>the tracks: {@code HSET} of each changed track's JSON on {@code
 *       chat:channel-tracks:{userId}} (field {@code {C}}, or {@code {C}:{T}} for a followed
 *       thread), {@code HDEL} of a removed one, one command per member's hash that sets and one
 *       that deletes;
 *   <li>per channel C one transaction ({@link ChannelTransaction}): {@code MULTI}, {@code SETRANGE}
 *       of each changed 64-byte block of {@code chat:channel:{C}:seqs}, {@code ZADD} and {@code
 *       ZREM} of the sorted sets, {@code SET chat:channel:{C}:version}, {@code EXEC};
 *   <li>C's notices on {@code CHANNEL_CHANGED:{C}}, each with the version C's transaction set;
 *   <li>for each member whose track changed and who is live ({@code unread:live-users}, as for the
 *       counts' change messages), a {@code TRACK_CHANGED} per changed track on {@code
 *       UNREAD_CHANGED:{userId}}.
 * </ol>
 *
 * <p>A reader that finds an index write finds the tracks written with it: on one node the pipeline
 * keeps the order, on a Redis Cluster the transactions wait until every track is acknowledged. A
 * channel's keys and notice channel share the hash tag {@code {C}}, so its transaction and notices
 * go to one primary, in order; on a cluster notices go out with SPUBLISH, shard channels.
 *
 * <p>Everything written is absolute: a block is written whole from the stage's copy, so a write
 * lost in a failover is repaired by the next write of its block, and a replay after a restore
 * converges. The version is the wall clock in microseconds, one more than the last when the clock
 * has not moved ({@link ChangeVersions}), so it rises with every write of a channel's index, across
 * a restore or a rescale too, and a notice carries the version of the write it follows: a reader
 * holding the index at that version or later has what the notice announces. A notice is an event: a
 * replay publishes it again, with a newer version.
 *
 * <p>Within a flush interval ({@link UnreadConfig#flushIntervalMs}) the writes are coalesced: the
 * last bytes of a block, the last add or remove of a sorted-set member, the last value of a track;
 * none is held for a background flush. The flushes, retries, checkpoints, end of input, the
 * connection (one node or a Redis Cluster), the replacement of keys of the wrong type and the
 * metrics are the counts sink's ({@link RedisWriter}, {@link RedisConnection}). {@link
 * UnreadConfig#redisKeyPrefix} goes before every key and channel. Records of one channel, and of
 * one member's tracks, must reach the same subtask in order (the stage's keyed stream does that),
 * or an older value could be written last.
 */
public class RedisChannels implements Sink<ChannelWrite> {
    private static final long serialVersionUID = 1L;

    private final UnreadConfig config;

    /**
     * Reads {@code redis-url}, {@code redis-cluster-nodes}, {@code redis-ca-file}, {@code
     * redis-key-prefix} and {@code flush-interval-ms}.
     */
    public RedisChannels(UnreadConfig config) {
        // Fail when the job is built, not in every task after it was deployed.
        config.redisEndpoint();
        this.config = config;
    }

    @Override
    public SinkWriter<ChannelWrite> createWriter(WriterInitContext context) {
        return createWriter(context, FlushSender.newSender());
    }

    /** The writer, its sends run by {@code sender} (one at a time). */
    SinkWriter<ChannelWrite> createWriter(WriterInitContext context, ExecutorService sender) {
        RedisConnection connection = new RedisConnection(config.redisEndpoint());
        // One clock for both buffers: a channel's versions rise across them.
        ChangeVersions versions = new ChangeVersions();
        return new RedisWriter<>(
                () -> new ChannelBuffer(config.redisKeyPrefix, connection.sharded(), versions),
                connection,
                context,
                config.flushIntervalMs,
                config.flushIntervalMs,
                sender,
                WrittenAfter.none());
    }
}
