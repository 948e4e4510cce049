package dev.unread.sinks;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;

/**
 * The sink writer of both Redis sinks: buffers what the sink's {@link Buffer} makes of each record
 * and sends the buffer to Redis in one pipelined flush one flush interval after the first record it
 * holds arrived, when it holds {@link #MAX_BUFFERED} entries, and whenever Flink calls {@link
 * #flush} (before every checkpoint barrier and at the end of input). So a checkpoint completes only
 * after everything before it is in Redis, and a restore replays at most what came after it.
 *
 * <p>The buffer is cleared only after Redis acknowledged the whole flush; a flush that fails after
 * the connection's retries throws, failing the task, so nothing is dropped silently. Timers run in
 * the task's thread, never alongside {@link #write}.
 *
 * <p>Metrics on the writer's group: {@value #COMMANDS_METRIC} (commands Redis acknowledged),
 * {@value #COALESCED_METRIC} (updates absorbed by a later one), {@value #WRONG_TYPE_METRIC} (keys
 * of the wrong type replaced, see {@link RedisConnection}), {@value #FLUSHES_METRIC} and {@value
 * #ROUND_TRIPS_METRIC} (what the flushes cost, retries included).
 */
final class RedisWriter<T> implements SinkWriter<T> {

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

        /** The buffered updates as commands, one per key or field, in no particular order. */
        List<RedisConnection.Command> commands();

        void clear();
    }

    static final String COMMANDS_METRIC = RedisCounts.COMMANDS_METRIC;
    static final String COALESCED_METRIC = RedisCounts.COALESCED_METRIC;
    static final String WRONG_TYPE_METRIC = "redisWrongTypeKeysReplaced";
    static final String FLUSHES_METRIC = RedisCounts.FLUSHES_METRIC;
    static final String ROUND_TRIPS_METRIC = RedisCounts.ROUND_TRIPS_METRIC;

    /** Bounds the writer's memory: ~100 bytes an entry, ten round trips a flush. */
    static final int MAX_BUFFERED = 10 * RedisConnection.BATCH_SIZE;

    private final Buffer<T> buffer;
    private final RedisConnection connection;
    private final ProcessingTimeService timeService;
    private final long flushIntervalMs;
    private final Counter commandsSent;
    private final Counter updatesCoalesced;
    private final Counter wrongTypeKeysReplaced;
    private final Counter flushes;
    private final Counter roundTrips;

    private ScheduledFuture<?> flushTimer;

    RedisWriter(
            Buffer<T> buffer,
            RedisConnection connection,
            WriterInitContext context,
            long flushIntervalMs) {
        this.buffer = buffer;
        this.connection = connection;
        this.timeService = context.getProcessingTimeService();
        this.flushIntervalMs = flushIntervalMs;
        this.commandsSent = context.metricGroup().counter(COMMANDS_METRIC);
        this.updatesCoalesced = context.metricGroup().counter(COALESCED_METRIC);
        this.wrongTypeKeysReplaced = context.metricGroup().counter(WRONG_TYPE_METRIC);
        this.flushes = context.metricGroup().counter(FLUSHES_METRIC);
        this.roundTrips = context.metricGroup().counter(ROUND_TRIPS_METRIC);
    }

    @Override
    public void write(T record, Context context) throws IOException, InterruptedException {
        if (buffer.add(record)) {
            updatesCoalesced.inc();
        }
        if (buffer.size() >= MAX_BUFFERED) {
            flushBuffer();
        } else if (flushTimer == null) {
            // The interval starts with the first buffered update, so an idle writer has no timer.
            flushTimer =
                    timeService.registerTimer(
                            timeService.getCurrentProcessingTime() + flushIntervalMs,
                            time -> {
                                flushTimer = null;
                                flushBuffer();
                            });
        }
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        flushBuffer();
    }

    private void flushBuffer() throws IOException, InterruptedException {
        if (buffer.size() == 0) {
            return;
        }
        List<RedisConnection.Command> commands = buffer.commands();
        long roundTripsBefore = connection.roundTrips();
        wrongTypeKeysReplaced.inc(connection.send(commands));
        flushes.inc();
        roundTrips.inc(connection.roundTrips() - roundTripsBefore);
        buffer.clear();
        if (flushTimer != null) {
            // The buffer it was set for is written; the next record starts a new interval.
            flushTimer.cancel(false);
            flushTimer = null;
        }
        commandsSent.inc(commands.size());
    }

    @Override
    public void close() {
        if (flushTimer != null) {
            flushTimer.cancel(false);
            flushTimer = null;
        }
        connection.close();
    }
}
