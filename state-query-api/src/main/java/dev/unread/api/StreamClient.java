package dev.unread.api;

import dev.unread.contract.MessageTypes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One client's live stream: the messages for it wait in a bounded queue and are written, one at a
 * time, by a task on the shared sender pool, so the thread that reads Redis never waits for a
 * client. Until its snapshot is queued the client keeps what arrives aside; then it drops every
 * UNREAD_CHANGED not newer than the snapshot and any later one that would go backwards.
 *
 * <p>A client whose queue is full, or whose write has not completed within the write timeout, is
 * cut off: its queue is dropped, it is sent {@link #RECONNECT} if that still goes through within
 * the timeout, and closed. Either way the others are not held up: their messages never wait behind
 * its queue, and its stuck write holds one sender thread only until the timeout.
 *
 * <p>How a message reaches the client is its transport's: {@link SseStream} or {@link
 * WebSocketStream}.
 */
abstract class StreamClient {

    /** The last message of a stream the API ends; a client opens a new stream (new snapshot). */
    static final String RECONNECT = "{\"type\":\"" + MessageTypes.RECONNECT + "\"}";

    /** Written as a heartbeat (an SSE comment or a WebSocket ping), never queued twice. */
    private static final String HEARTBEAT = new String("heartbeat");

    /** Messages written before the sender task gives its thread to another client. */
    private static final int FAIR_SHARE = 64;

    private enum State {
        SNAPSHOT_PENDING,
        OPEN,
        CLOSING,
        CLOSED
    }

    final long userId;

    /** What the client holds of its user's counts, and when they must be read again. */
    final StreamCounts counts;

    private final ApiMetrics metrics;
    private final int capacity;
    private final Executor senders;
    private final ArrayDeque<String> queue = new ArrayDeque<>();
    private final List<Message> beforeSnapshot = new ArrayList<>();
    private State state = State.SNAPSHOT_PENDING;
    private long version;
    private boolean sending;
    private boolean attached;
    private Runnable onClosed;

    /** When the token this stream was opened with expires (epoch ms); 0: never. */
    private volatile long expiresAtMs;

    /** System.nanoTime() when the write under way started; 0 when none is. */
    private volatile long writingSince;

    StreamClient(long userId, ApiMetrics metrics, int capacity, Executor senders) {
        this.userId = userId;
        this.counts = new StreamCounts(userId);
        this.metrics = metrics;
        this.capacity = capacity;
        this.senders = senders;
    }

    /** A message for this client's user as it came from Redis; version 0 for a receipt. */
    record Message(boolean change, long version, String text) {}

    /** Writes one message; blocks until the transport took it. False: the client is gone. */
    abstract boolean write(String text) throws Exception;

    /** Writes a heartbeat; false: the client is gone. */
    abstract boolean heartbeat() throws Exception;

    /** Closes the connection; {@code hard}: without waiting for anything still being sent. */
    abstract void disconnect(boolean hard);

    /**
     * Runs once, when the stream has ended for whatever reason; at once if it has already: it is
     * set after the stream is registered, and a cut-off or a client gone in between would otherwise
     * keep its slot.
     */
    void onClosed(Runnable action) {
        synchronized (this) {
            if (state != State.CLOSED) {
                this.onClosed = action;
                return;
            }
        }
        action.run();
    }

    /** From the Redis thread: queues {@code message}, or keeps it aside until the snapshot. */
    synchronized void deliver(Message message) {
        if (state == State.SNAPSHOT_PENDING) {
            if (beforeSnapshot.size() >= capacity) {
                metrics.streamCutOff(ApiMetrics.CUT_OFF_SLOW);
                cutOff();
            } else {
                beforeSnapshot.add(message);
            }
        } else if (state == State.OPEN) {
            offer(message);
        }
    }

    /**
     * Queues the snapshot of version {@code snapshotVersion}, then what arrived since the
     * subscription and is newer than it.
     */
    synchronized void start(String snapshot, long snapshotVersion) {
        if (state != State.SNAPSHOT_PENDING) {
            return;
        }
        state = State.OPEN;
        version = snapshotVersion;
        enqueue(snapshot);
        for (Message message : beforeSnapshot) {
            offer(message);
        }
        beforeSnapshot.clear();
    }

    /** The transport is ready for writes (an SSE response is open once this is called). */
    synchronized void attach() {
        attached = true;
        schedule();
    }

    /** Queues a heartbeat unless something is waiting to be written anyway. */
    synchronized void heartbeatDue() {
        if (state == State.OPEN && queue.isEmpty() && !sending) {
            enqueue(HEARTBEAT);
        }
    }

    /** The stream ends when the token it was opened with expires: {@code epochMs}, 0: never. */
    void expiresAt(long epochMs) {
        this.expiresAtMs = epochMs;
    }

    /** Whether the token this stream was opened with has expired at {@code nowMs}. */
    boolean expired(long nowMs) {
        long at = expiresAtMs;
        return at != 0 && nowMs >= at;
    }

    /** Whether a write has been under way for longer than {@code timeoutNanos}. */
    boolean stuck(long nowNanos, long timeoutNanos) {
        long since = writingSince;
        return since != 0 && nowNanos - since > timeoutNanos;
    }

    /** Ends the stream: tells the client to reconnect if it still listens, then closes. */
    void cutOff() {
        end(RECONNECT);
    }

    /**
     * Ends the stream: sends {@code last} instead of anything still queued if the client still
     * listens, then closes.
     */
    synchronized void end(String last) {
        if (state == State.CLOSING || state == State.CLOSED) {
            return;
        }
        state = State.CLOSING;
        beforeSnapshot.clear();
        queue.clear();
        queue.add(last);
        if (!attached) {
            close(true);
        } else {
            schedule();
        }
    }

    /** Closes at once, without a last message: the client is gone or its write is stuck. */
    void close(boolean hard) {
        Runnable action;
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
            queue.clear();
            action = onClosed;
        }
        try {
            disconnect(hard);
        } finally {
            if (action != null) {
                action.run();
            }
        }
    }

    private void offer(Message message) {
        if (message.change()) {
            if (message.version() <= version) {
                // Older than what the client holds: absolute values would take it back.
                return;
            }
            version = message.version();
        }
        if (queue.size() >= capacity) {
            metrics.streamCutOff(ApiMetrics.CUT_OFF_SLOW);
            cutOff();
        } else {
            enqueue(message.text());
        }
    }

    private void enqueue(String text) {
        queue.add(text);
        schedule();
    }

    private void schedule() {
        if (attached && !sending && !queue.isEmpty()) {
            sending = true;
            senders.execute(this::send);
        }
    }

    /** The sender task: writes what is queued, a fair share at a time. */
    private void send() {
        for (int written = 0; ; written++) {
            String next;
            boolean last;
            synchronized (this) {
                next = written < FAIR_SHARE ? queue.poll() : null;
                if (next == null) {
                    sending = false;
                    schedule();
                    return;
                }
                last = state == State.CLOSING && queue.isEmpty();
            }
            boolean delivered;
            writingSince = Math.max(1, System.nanoTime());
            try {
                delivered = next == HEARTBEAT ? heartbeat() : write(next);
            } catch (Exception e) {
                delivered = false;
            } finally {
                writingSince = 0;
            }
            if (!delivered || last) {
                synchronized (this) {
                    sending = false;
                }
                close(!delivered);
                return;
            }
        }
    }
}
