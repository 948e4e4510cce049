package dev.unread.sinks;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * A {@link RedisWriter}'s sender thread and the hand-over to it: takes a buffer handed over whole,
 * turns it into commands and sends them, one flush at a time and in order, while the task fills the
 * writer's other buffer. The hand-over is the executor's submit, the way back the send's future, so
 * each buffer belongs to one thread at a time.
 *
 * <p>What runs in {@link #send}'s task, and only there, is the sender thread's: the making of a
 * buffer's commands, and with it what the writer's two buffers share (the counts sink's held counts
 * and versions), and {@link WrittenAfter}. Everything else here is called by the task's thread:
 * {@link #send} itself, {@link #await} and {@link #isIdle}.
 */
final class FlushSender<T> {

    /** Flushes the histogram keeps: at one flush per 100 ms interval, the last 50 seconds. */
    private static final int FLUSH_MILLIS_WINDOW = 500;

    private final RedisConnection connection;

    /** Sends flushes in the background, one at a time, so they reach Redis in order. */
    private final ExecutorService sender;

    /** What Redis holds, and the marks of writes after a checkpoint: the sender's alone. */
    private final WrittenAfter writtenAfter;

    private final Counter commandsSent;
    private final Counter wrongTypeKeysReplaced;
    private final Counter unchanged;
    private final Counter flushes;
    private final Counter roundTrips;
    private final Counter retries;
    private final Histogram flushMillis;

    /** The send not yet awaited, to the updates the buffers held back after it; null when none. */
    private Future<Integer> inFlight;

    /**
     * What the buffers held back after the last send awaited: the task never reads the buffers'
     * own.
     */
    private int held;

    private List<RedisConnection.Command> inFlightCommands = List.of();

    /** What a failed background send held, sent first by the next flush. */
    private List<RedisConnection.Command> unsent = List.of();

    /** A writer's own sender: one thread, so its sends reach Redis in order. */
    static ExecutorService newSender() {
        return Executors.newSingleThreadExecutor(
                r -> {
                    Thread t = new Thread(r, "redis-sink-sender");
                    t.setDaemon(true);
                    return t;
                });
    }

    /**
     * @param metrics the writer's group, where the sends' metrics go (see {@link RedisWriter})
     * @param writtenAfter read first of all by the sender, and marked before the first write after
     *     each checkpoint's barrier
     */
    FlushSender(
            RedisConnection connection,
            MetricGroup metrics,
            ExecutorService sender,
            WrittenAfter writtenAfter) {
        this.connection = connection;
        this.sender = sender;
        this.writtenAfter = writtenAfter;
        this.commandsSent = metrics.counter(RedisWriter.COMMANDS_METRIC);
        this.wrongTypeKeysReplaced = metrics.counter(RedisWriter.WRONG_TYPE_METRIC);
        this.unchanged = metrics.counter(RedisWriter.UNCHANGED_METRIC);
        this.flushes = metrics.counter(RedisWriter.FLUSHES_METRIC);
        this.roundTrips = metrics.counter(RedisWriter.ROUND_TRIPS_METRIC);
        this.retries = metrics.counter(RedisWriter.RETRIES_METRIC);
        this.flushMillis =
                metrics.histogram(
                        RedisWriter.FLUSH_MILLIS_METRIC,
                        new DescriptiveStatisticsHistogram(FLUSH_MILLIS_WINDOW));
        List<RedisConnection.Command> start = writtenAfter.start();
        if (!start.isEmpty()) {
            // Awaited by the first flush, as a send would be: a failure fails the task there.
            inFlight =
                    sender.submit(
                            () -> {
                                send(start);
                                return 0;
                            });
        }
    }

    /**
     * Whether a hand-over of {@code buffer} would send nothing: it is empty, the buffers hold
     * nothing back, and no failed send is left. Called after {@link #await}.
     */
    boolean isIdle(RedisWriter.Buffer<T> buffer) {
        return buffer.size() == 0 && held == 0 && unsent.isEmpty();
    }

    /**
     * Hands {@code full} to the sender, after what a failed send left; the task takes it back only
     * after {@link #await}. Called after {@link #await}.
     *
     * @param everything whether what the buffer holds back goes too
     * @param now the writer's processing time, for {@link RedisWriter.Buffer#dueCommands}
     * @param after the last checkpoint whose barrier passed: what is sent is written after it
     */
    void send(RedisWriter.Buffer<T> full, boolean everything, long now, long after) {
        List<RedisConnection.Command> retry = unsent;
        unsent = List.of();
        inFlightCommands = retry;
        inFlight =
                sender.submit(
                        () -> {
                            List<RedisConnection.Command> commands = new ArrayList<>(retry);
                            if (everything) {
                                commands.addAll(full.commands());
                                full.clear();
                            } else {
                                commands.addAll(full.dueCommands(now));
                            }
                            // Read by the task only after the send was awaited.
                            inFlightCommands = commands;
                            if (!commands.isEmpty()) {
                                List<RedisConnection.Command> mark =
                                        writtenAfter.beforeWriting(after);
                                if (!mark.isEmpty()) {
                                    send(mark);
                                }
                                send(commands);
                            }
                            return full.held();
                        });
    }

    private void send(List<RedisConnection.Command> commands)
            throws IOException, InterruptedException {
        long roundTripsBefore = connection.roundTrips();
        long retriesBefore = connection.retries();
        long started = System.nanoTime();
        RedisConnection.Sent sent;
        try {
            sent = connection.send(commands);
        } finally {
            // A send that failed for good retried too: counted before the task fails with it.
            retries.inc(connection.retries() - retriesBefore);
        }
        flushMillis.update(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        wrongTypeKeysReplaced.inc(sent.replaced());
        flushes.inc();
        roundTrips.inc(connection.roundTrips() - roundTripsBefore);
        commandsSent.inc(sent.commands());
        unchanged.inc(sent.unchanged());
    }

    /** Waits for the send in flight, and throws what made it fail. */
    void await() throws IOException, InterruptedException {
        if (inFlight == null) {
            return;
        }
        try {
            held = inFlight.get();
        } catch (ExecutionException e) {
            // Kept for the next flush, before anything newer: the values are absolute.
            unsent = inFlightCommands;
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("sending to Redis failed", e.getCause());
        } finally {
            inFlight = null;
            inFlightCommands = List.of();
        }
    }

    /** Stops the sender thread, then closes the connection. */
    void close() {
        sender.shutdownNow();
        try {
            sender.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            connection.close();
        }
    }
}
