package dev.unread.api;

import java.nio.ByteBuffer;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/** A stream over a WebSocket: each message one text frame; heartbeats are pings. */
final class WebSocketStream extends StreamClient {
    /** 1013 "Try Again Later": the stream ended, a new one gets a fresh snapshot. */
    static final int TRY_AGAIN_LATER = 1013;

    private final Session session;

    WebSocketStream(
            long userId, ApiMetrics metrics, int capacity, Executor senders, Session session) {
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
