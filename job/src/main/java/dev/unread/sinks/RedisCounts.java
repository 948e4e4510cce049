package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.events.UnreadCount;
import java.io.IOException;
import java.util.Collection;
import java.util.concurrent.ExecutorService;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Writes counts to Redis as the contract's keys, with absolute values only, so that a replay after
 * a restore converges to the same state:
 *
 * <ul>
 *   <li>the sender badge: string {@code unread:senders:{userId}}, set to the count, deleted when it
 *       drops to 0: on one node the badges of a flush, whoever's, go in one {@code MSET} and one
 *       {@code DEL}; on a cluster a command per badge;
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
 * replaced: {@code MSET} and {@code DEL} replace any type themselves; a hash or set command Redis
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
 *
 * <p>Counts are written fast only for who watches. Each flush of the interval reads, with one
 * ZMSCORE, which users holding buffered counts are live, and writes only theirs (then their
 * versions and change messages, as above); the other users' counts stay held, coalescing further,
 * and each user's are written by the flush of the interval that finds them held for {@link
 * UnreadConfig#backgroundFlushIntervalMs} less one flush interval (user by user, so the background
 * writes spread over the flushes instead of one large send a second that the next flush waited
 * for), everything held once a background interval passed without a record, at every checkpoint
 * (before its barrier, so restores replay as before), at the end of input, and early when more than
 * {@link CountBuffer#MAX_HELD} are held. While counts are held, flushes of the interval go on
 * without new records, so a user who becomes live gets what is held at the next one. Before this
 * every changed count cost a write every interval, watched or not (issue 35); most users have no
 * live stream, and a count changed several times within the background interval is written once.
 *
 * <p>The job's writer ({@link #ofCounter}) sends no command that changes nothing where it knows
 * Redis holds what the counter showed: a count equal to what it was before the first of the updates
 * it stands for ({@link UnreadCount#before}) is left out. That is most of a counter incarnation's
 * first writes of a record (its zeros were an HDEL, SREM or DEL each, half of the commands at
 * production sparsity, issue 46), and a count that went back to its value within the interval. A
 * writer knows it from a fresh start, and after a restore from a checkpoint after whose barrier
 * nothing was written; elsewhere it writes every count, see {@link WrittenAfter}.
 */
public class RedisCounts implements Sink<UnreadCount>, SupportsWriterState<UnreadCount, Void> {
    private static final long serialVersionUID = 1L;

    /** Counter on each Redis sink writer's metric group: commands Redis acknowledged. */
    public static final String COMMANDS_METRIC = "redisCommands";

    /**
     * Counter on each Redis sink writer's metric group: the keys, fields and members that removals
     * (DEL, HDEL, SREM, ZREM) named and Redis did not hold, each a command that would have changed
     * nothing on its own.
     */
    public static final String UNCHANGED_METRIC = "redisUnchangedCommands";

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

    /** Whether the writers take the counter's subtasks' counts: see {@link #ofCounter}. */
    private final boolean ofCounter;

    /** Writes every count it is given: for a writer outside the job's counter. */
    public RedisCounts(UnreadConfig config) {
        this(config, false);
    }

    private RedisCounts(UnreadConfig config, boolean ofCounter) {
        // Fail when the job is built, not in every task after it was deployed.
        config.redisEndpoint();
        this.config = config;
        this.ofCounter = ofCounter;
    }

    /**
     * The job's sink, whose writer takes the counts of the counter's subtask of the same index (a
     * forward edge: the same parallelism and key groups), and leaves out a count equal to what
     * Redis holds where it knows Redis holds what the counter showed ({@link WrittenAfter}).
     */
    public static RedisCounts ofCounter(UnreadConfig config) {
        return new RedisCounts(config, true);
    }

    @Override
    public StatefulSinkWriter<UnreadCount, Void> createWriter(WriterInitContext context) {
        return createWriter(context, FlushSender.newSender());
    }

    /** The checkpoint it starts from is the context's: the writer keeps no state of its own. */
    @Override
    public StatefulSinkWriter<UnreadCount, Void> restoreWriter(
            WriterInitContext context, Collection<Void> recoveredState) {
        return createWriter(context);
    }

    /** No state: a writer only learns each checkpoint's id, see {@link WrittenAfter}. */
    @Override
    public SimpleVersionedSerializer<Void> getWriterStateSerializer() {
        return NoWriterState.INSTANCE;
    }

    /** The writer, its sends run by {@code sender} (one at a time). */
    StatefulSinkWriter<UnreadCount, Void> createWriter(
            WriterInitContext context, ExecutorService sender) {
        RedisConnection connection = new RedisConnection(config.redisEndpoint());
        // The sender's alone, as what the buffers share below.
        WrittenAfter writtenAfter =
                ofCounter
                        ? WrittenAfter.of(
                                config.redisKeyPrefix,
                                context.getTaskInfo(),
                                context.getRestoredCheckpointId())
                        : WrittenAfter.none();
        // One clock for both buffers: a user's versions rise across them.
        ChangeVersions versions = new ChangeVersions();
        HeldCounts held = new HeldCounts();
        // Each count is written within the background interval; one no longer than the flush
        // interval holds nothing.
        long holdMillis = Math.max(0, config.backgroundFlushIntervalMs - config.flushIntervalMs);
        return new RedisWriter<>(
                () ->
                        new CountBuffer(
                                config.redisKeyPrefix,
                                connection.sharded(),
                                held,
                                versions,
                                holdMillis,
                                writtenAfter),
                connection,
                context,
                config.flushIntervalMs,
                config.backgroundFlushIntervalMs,
                sender,
                writtenAfter);
    }

    /**
     * The sink's buffer and connection without Flink around them, for a writer outside a Flink job
     * that must send exactly the job's commands: the bench's Kafka Streams peer (dev.unread.peer),
     * which flushes it before each of its commits as the sink does before each checkpoint.
     */
    public static Batch batch(UnreadConfig config) {
        RedisConnection connection = new RedisConnection(config.redisEndpoint());
        return new Batch(
                new CountBuffer(
                        config.redisKeyPrefix,
                        connection.sharded(),
                        new HeldCounts(),
                        new ChangeVersions(),
                        0,
                        WrittenAfter.none()),
                connection);
    }

    /** Coalesces counts by key until {@link #flush}; one per thread. */
    public static final class Batch implements AutoCloseable {
        private final CountBuffer buffer;
        private final RedisConnection connection;

        private Batch(CountBuffer buffer, RedisConnection connection) {
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

    /** The writer's state, which is none. */
    private enum NoWriterState implements SimpleVersionedSerializer<Void> {
        INSTANCE;

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Void state) {
            return new byte[0];
        }

        @Override
        public Void deserialize(int version, byte[] serialized) {
            return null;
        }
    }
}
