package dev.unread.api;

import io.javalin.http.sse.SseClient;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.BufferUtil;

/** A stream over Server-Sent Events: each message one {@code data:} event. */
final class SseStream extends StreamClient {
    private volatile SseClient sse;

    SseStream(long userId, ApiMetrics metrics, int capacity, Executor senders) {
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
     * Jetty reads nothing more of a connection whose response is under way, so a client that closed
     * or reset it would be seen only when a write fails, a heartbeat later, holding its slot and
     * its user's live registration till then: reading it sees the end at once. On HTTP/1 only,
     * where the connection carries this response alone (it is answered with {@code Connection:
     * close}), so whatever else the client sends may be dropped.
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
