package dev.unread.sinks;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;

/**
 * The sink writer of both Redis sinks: buffers what the sink's {@link Buffer} makes of each record
 * and sends the buffer to Redis in one pipelined flush one flush interval after the first record it
 * holds arrived, when it holds {@link #MAX_BUFFERED} entries, and whenever Flink calls {@link
 * #flush} (before every checkpoint barrier and at the end of input).
 *
 * <p>The flushes of the interval and of a full buffer are sent by a thread of the writer's own, one
 * at a time and in order, so the task goes on counting while Redis answers (the task waited for
 * Redis about a tenth of its time, docs/benchmarks.md). {@link #flush} hands the rest to the same
 * thread and waits for it: a checkpoint still completes only after everything before its barrier is
 * in Redis, and a restore replays at most what came after it. A send that fails after the
 * connection's retries fails the task at its next write or flush, so nothing is dropped silently;
 * what it held is replayed from the last checkpoint. Timers run in the task's thread, never
 * alongside {@link #write}.
 *
 * <p>Two threads, and what each owns: the task's thread adds records to one buffer; the sender
 * turns the other buffer, handed over whole, into commands and sends them. The hand-over is the
 * executor's submit, the way back the send's future ({@link FlushSender}), so each buffer belongs
 * to one thread at a time. What the two buffers share (the counts sink's held counts, {@link
 * CountBuffer}) belongs to the sender alone: only the making and sending of commands touch it,
 * never {@link Buffer#add}. (The task's thread once took an erased user's held counts out while the
 * sender was moving that user's older counts in, and the badge came back after the erasure's
 * deletes.)
 *
 * <p>A buffer may hold some updates back from the flushes of the interval ({@link
 * Buffer#dueCommands}: the counts of users nobody watches, each written by the flush of the
 * interval once held for long enough); with a background interval longer than the flush interval,
 * the flushes of the interval go on while records came within the last background interval,
 * everything held is sent once a whole background interval passed without a record, and at every
 * {@link #flush}, so a checkpoint still completes only after everything before its barrier is in
 * Redis.
 *
 * <p>The writer keeps no state, but learns each checkpoint's id ({@link #snapshotState}): before
 * its first write after a barrier it sends, and awaits, what its {@link WrittenAfter} marks
 * (nothing for a writer that knows nothing of what Redis holds); the first thing the sender does is
 * read those marks.
 *
 * <p>Metrics on the writer's group: {@value #COMMANDS_METRIC} (commands Redis acknowledged),
 * {@value #COALESCED_METRIC} (updates absorbed by a later one), {@value #UNCHANGED_METRIC} (what
 * removals named that Redis did not hold: each alone, a command that changed nothing), {@value
 * #WRONG_TYPE_METRIC} (keys of the wrong type replaced, see {@link RedisConnection}), {@value
 * #FLUSHES_METRIC} and {@value #ROUND_TRIPS_METRIC} (what the flushes cost, retries included),
 * {@value #RETRIES_METRIC} (failed attempts retried) and {@value #FLUSH_MILLIS_METRIC} (a histogram
 * of each flush's time in Redis).
 */
final class RedisWriter<T> implements StatefulSinkWriter<T, Void> {

    /** What one sink sends: records in, Redis commands out. */
    interface Buffer<T> {
        /**
         * Buffers what {@code record} means for Redis, copying what it needs: with object reuse the
         * record changes after this call.
         *
         * @return true when the record replaced a buffered update of the same key or field
         */
        boolean add(T record);

        int size();

        /**
         * Every buffered update as commands, one per key or field, in no particular order; {@link
         * #clear} once Redis acknowledged them.
         */
        List<RedisConnection.Command> commands();

        /**
         * What the flush of the interval or of a full buffer writes, taken out of the buffer: all
         * of it, unless the buffer holds some back for the background flush (the counts of users
         * nobody watches, {@link CountBuffer}).
         *
         * @param now the writer's processing time when the flush was handed to the sender
         */
        default List<RedisConnection.Command> dueCommands(long now) {
            List<RedisConnection.Command> commands = commands();
            clear();
            return commands;
        }

        /**
         * Updates held back by {@link #dueCommands} for a later flush; read by the sender after a
         * send, which hands the figure back to the task.
         */
        default int held() {
            return 0;
        }

        void clear();
    }

    static final String COMMANDS_METRIC = RedisCounts.COMMANDS_METRIC;
    static final String COALESCED_METRIC = RedisCounts.COALESCED_METRIC;
    static final String WRONG_TYPE_METRIC = "redisWrongTypeKeysReplaced";
    static final String UNCHANGED_METRIC = RedisCounts.UNCHANGED_METRIC;
    static final String FLUSHES_METRIC = RedisCounts.FLUSHES_METRIC;
    static final String ROUND_TRIPS_METRIC = RedisCounts.ROUND_TRIPS_METRIC;
    static final String RETRIES_METRIC = RedisCounts.RETRIES_METRIC;
    static final String FLUSH_MILLIS_METRIC = RedisCounts.FLUSH_MILLIS_METRIC;

    /** Bounds the writer's memory: ~100 bytes an entry, ten round trips a flush. */
    static final int MAX_BUFFERED = 10 * RedisConnection.BATCH_SIZE;

    /** Takes the task's records. */
    private Buffer<T> buffer;

    /**
     * The buffer handed to the sender with the last flush, which turns it into commands and clears
     * it there: building a flush's commands (change messages included) was a third of the counting
     * task's time when the task did it. Empty, and the task's again, once that send was awaited.
     */
    private Buffer<T> sending;

    /** The sender thread, and the hand-over to it. */
    private final FlushSender<T> sender;

    private final ProcessingTimeService timeService;
    private final long flushIntervalMs;

    /** 0: no background flush, every flush writes everything. */
    private final long backgroundFlushIntervalMs;

    private final Counter updatesCoalesced;

    private ScheduledFuture<?> flushTimer;

    /**
     * Set with the first record after a flush of everything, for a background interval: while it
     * is, the buffer may hold updates back, and flushes of the interval go on without new records,
     * so a user who becomes live gets what is held within one interval. When it fires it is set
     * again if records came meanwhile (the flushes of the interval then go on writing each user's
     * held counts once due), and otherwise writes everything.
     */
    private ScheduledFuture<?> backgroundTimer;

    /** Whether a record came since {@link #backgroundTimer} was set. */
    private boolean recordsSinceBackgroundTimer;

    /**
     * The last checkpoint whose barrier passed, or the one the writer started from (0 when none):
     * the task's, handed to the sender with each flush.
     */
    private long checkpoint;

    /**
     * @param buffers makes the writer's two buffers: one takes records while the other is sent; a
     *     buffer is only ever used by one thread at a time
     */
    RedisWriter(
            Supplier<Buffer<T>> buffers,
            RedisConnection connection,
            WriterInitContext context,
            long flushIntervalMs) {
        this(buffers, connection, context, flushIntervalMs, flushIntervalMs);
    }

    /**
     * @param backgroundFlushIntervalMs the flushes of the interval go on while records came within
     *     this long, and everything held back by {@link Buffer#dueCommands} is written once this
     *     long passed without one; at most {@code flushIntervalMs}: every flush writes everything
     */
    RedisWriter(
            Supplier<Buffer<T>> buffers,
            RedisConnection connection,
            WriterInitContext context,
            long flushIntervalMs,
            long backgroundFlushIntervalMs) {
        this(
                buffers,
                connection,
                context,
                flushIntervalMs,
                backgroundFlushIntervalMs,
                FlushSender.newSender(),
                WrittenAfter.none());
    }

    /**
     * @param sender runs the sends, one at a time: tests pass one that holds a send where they
     *     choose, to interleave it with the task's records
     * @param writtenAfter read first of all by the sender, and marked before the first write after
     *     each checkpoint's barrier; shared with the buffers, which ask it what Redis holds
     */
    RedisWriter(
            Supplier<Buffer<T>> buffers,
            RedisConnection connection,
            WriterInitContext context,
            long flushIntervalMs,
            long backgroundFlushIntervalMs,
            ExecutorService sender,
            WrittenAfter writtenAfter) {
        this.checkpoint = context.getRestoredCheckpointId().orElse(0);
        this.buffer = buffers.get();
        this.sending = buffers.get();
        this.timeService = context.getProcessingTimeService();
        this.flushIntervalMs = flushIntervalMs;
        this.backgroundFlushIntervalMs =
                backgroundFlushIntervalMs > flushIntervalMs ? backgroundFlushIntervalMs : 0;
        this.updatesCoalesced = context.metricGroup().counter(COALESCED_METRIC);
        this.sender = new FlushSender<>(connection, context.metricGroup(), sender, writtenAfter);
    }

    @Override
    public void write(T record, Context context) throws IOException, InterruptedException {
        if (buffer.add(record)) {
            updatesCoalesced.inc();
        }
        if (buffer.size() >= MAX_BUFFERED) {
            handOver(false);
        } else if (flushTimer == null) {
            // The interval starts with the first buffered update, so an idle writer has no timer.
            startInterval();
        }
        if (backgroundFlushIntervalMs > 0) {
            if (backgroundTimer == null) {
                startBackgroundInterval();
            } else {
                recordsSinceBackgroundTimer = true;
            }
        }
    }

    private void startBackgroundInterval() {
        recordsSinceBackgroundTimer = false;
        backgroundTimer =
                timeService.registerTimer(
                        timeService.getCurrentProcessingTime() + backgroundFlushIntervalMs,
                        time -> {
                            backgroundTimer = null;
                            if (!recordsSinceBackgroundTimer) {
                                // Quiet for an interval: whatever is held is due.
                                handOver(true);
                                return;
                            }
                            startBackgroundInterval();
                            if (flushTimer == null) {
                                startInterval();
                            }
                        });
    }

    private void startInterval() {
        flushTimer =
                timeService.registerTimer(
                        timeService.getCurrentProcessingTime() + flushIntervalMs,
                        time -> {
                            flushTimer = null;
                            handOver(false);
                            if (backgroundTimer != null && flushTimer == null) {
                                startInterval();
                            }
                        });
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        handOver(true);
        sender.await();
    }

    /**
     * Hands the buffer (after what a failed send left) to the sender, and takes the other one;
     * waits only when the previous send is still going.
     *
     * @param everything whether what the buffer holds back goes too
     */
    private void handOver(boolean everything) throws IOException, InterruptedException {
        sender.await();
        endInterval();
        if (everything) {
            endBackgroundInterval();
        }
        if (sender.isIdle(buffer)) {
            return;
        }
        Buffer<T> full = buffer;
        buffer = sending;
        sending = full;
        sender.send(full, everything, timeService.getCurrentProcessingTime(), checkpoint);
    }

    /**
     * Called after {@link #flush} has written everything before the barrier of {@code
     * checkpointId}: what is sent from now on is written after it. The writer keeps no state.
     */
    @Override
    public List<Void> snapshotState(long checkpointId) {
        checkpoint = checkpointId;
        return List.of();
    }

    /** The buffer the timer was set for is being sent; the next record starts a new interval. */
    private void endInterval() {
        if (flushTimer != null) {
            flushTimer.cancel(false);
            flushTimer = null;
        }
    }

    private void endBackgroundInterval() {
        if (backgroundTimer != null) {
            backgroundTimer.cancel(false);
            backgroundTimer = null;
        }
    }

    @Override
    public void close() {
        endInterval();
        endBackgroundInterval();
        sender.close();
    }
}
