package dev.unread.api;

import dev.unread.contract.MessageTypes;
import io.javalin.http.sse.SseClient;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

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

    /** Runs once, when the stream has ended for whatever reason. */
    synchronized void onClosed(Runnable action) {
        this.onClosed = action;
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
    synchronized void cutOff() {
        if (state == State.CLOSING || state == State.CLOSED) {
            return;
        }
        state = State.CLOSING;
        beforeSnapshot.clear();
        queue.clear();
        queue.add(RECONNECT);
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

    /** A stream over Server-Sent Events: each message one {@code data:} event. */
    static final class Sse extends StreamClient {
        private volatile SseClient sse;

        Sse(long userId, ApiMetrics metrics, int capacity, Executor senders) {
            super(userId, metrics, capacity, senders);
        }

        void attach(SseClient client) {
            this.sse = client;
            // Jetty completes the response when the client goes away; nothing may write after.
            client.ctx()
                    .req()
                    .getAsyncContext()
                    .addListener(
                            new AsyncListener() {
                                @Override
                                public void onComplete(AsyncEvent event) {
                                    close(true);
                                }

                                @Override
                                public void onTimeout(AsyncEvent event) {
                                    close(true);
                                }

                                @Override
                                public void onError(AsyncEvent event) {
                                    close(true);
                                }

                                @Override
                                public void onStartAsync(AsyncEvent event) {}
                            });
            if (client.ctx().req().getProtocol().startsWith("HTTP/1")) {
                watchForEnd(endPoint(client));
            }
            attach();
        }

        /**
         * Jetty reads nothing more of a connection whose response is under way, so a client that
         * closed or reset it would be seen only when a write fails, a heartbeat later, holding its
         * slot and its user's live registration till then: reading it sees the end at once. On
         * HTTP/1 only, where the connection carries this response alone (it is answered with {@code
         * Connection: close}), so whatever else the client sends may be dropped.
         */
        private void watchForEnd(EndPoint endPoint) {
            endPoint.tryFillInterested(
                    org.eclipse.jetty.util.Callback.from(
                            () -> readToEnd(endPoint), failure -> close(true)));
        }

        private void readToEnd(EndPoint endPoint) {
            ByteBuffer scrap = BufferUtil.allocate(256);
            try {
                int n;
                while ((n = endPoint.fill(scrap)) > 0) {
                    BufferUtil.clear(scrap);
                }
                if (n < 0) {
                    close(true);
                    return;
                }
            } catch (IOException e) {
                close(true);
                return;
            }
            watchForEnd(endPoint);
        }

        private static EndPoint endPoint(SseClient client) {
            return ServletContextRequest.getServletContextRequest(client.ctx().req())
                    .getConnectionMetaData()
                    .getConnection()
                    .getEndPoint();
        }

        @Override
        boolean write(String text) {
            sse.sendData(text);
            // Javalin's emitter swallows the IOException of a client that went away.
            return !sse.terminated();
        }

        @Override
        boolean heartbeat() {
            sse.sendComment("heartbeat");
            return !sse.terminated();
        }

        @Override
        void disconnect(boolean hard) {
            SseClient client = sse;
            if (client == null) {
                return;
            }
            try {
                if (hard) {
                    // Fails a write blocked on a client that stopped reading, freeing its thread.
                    endPoint(client).close();
                }
                client.close();
            } catch (RuntimeException e) {
                // The response is complete already: the client went away first.
            }
        }
    }

    /** A stream over a WebSocket: each message one text frame; heartbeats are pings. */
    static final class Ws extends StreamClient {
        /** 1013 "Try Again Later": the stream ended, a new one gets a fresh snapshot. */
        static final int TRY_AGAIN_LATER = 1013;

        private final Session session;

        Ws(long userId, ApiMetrics metrics, int capacity, Executor senders, Session session) {
            super(userId, metrics, capacity, senders);
            this.session = session;
        }

        @Override
        boolean write(String text) throws InterruptedException {
            Callback.Completable done = new Callback.Completable();
            session.sendText(text, done);
            return completed(done);
        }

        @Override
        boolean heartbeat() throws InterruptedException {
            Callback.Completable done = new Callback.Completable();
            session.sendPing(ByteBuffer.allocate(0), done);
            return completed(done);
        }

        private static boolean completed(Callback.Completable done) throws InterruptedException {
            try {
                done.get();
                return true;
            } catch (ExecutionException e) {
                return false;
            }
        }

        @Override
        void disconnect(boolean hard) {
            if (hard) {
                session.disconnect();
            } else {
                session.close(TRY_AGAIN_LATER, "reconnect", Callback.NOOP);
            }
        }
    }
}
