package dev.unread.api;

import static dev.unread.api.StateQueryApi.caller;
import static dev.unread.api.StateQueryApi.userParam;

import io.javalin.http.Context;
import io.javalin.http.sse.SseHandler;
import io.javalin.websocket.WsConnectContext;
import io.javalin.websocket.WsContext;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live stream routes of docs/contract.md ("Live push"): Server-Sent Events and the WebSocket,
 * each a {@link StreamClient} registered with {@link LiveStreams}. Apart from {@link
 * StateQueryApi}, which authorizes and routes to them, as one concern.
 */
final class StreamRoutes {

    private static final Logger LOG = LoggerFactory.getLogger(StreamRoutes.class);

    private static final String STREAM = "unread.stream";
    private static final String EVENT_STREAM = "text/event-stream";

    private final ApiConfig config;
    private final LiveStreams streams;
    private final ApiMetrics metrics;

    StreamRoutes(ApiConfig config, LiveStreams streams, ApiMetrics metrics) {
        this.config = config;
        this.streams = streams;
        this.metrics = metrics;
    }

    /**
     * The live stream over Server-Sent Events: registered, subscribed and its snapshot queued
     * before the response starts, so a Redis failure is still a 503.
     */
    void events(Context ctx) {
        long userId = userParam(ctx);
        String accept = ctx.header("Accept");
        if (accept == null || !accept.contains(EVENT_STREAM)) {
            throw new ApiError(406, "Accept: " + EVENT_STREAM + " required");
        }
        StreamClient.Sse client =
                new StreamClient.Sse(userId, metrics, config.streamBuffer, streams.senders());
        client.expiresAt(caller(ctx).expiresAtMs());
        streams.open(client);
        try {
            new SseHandler(
                            sse -> {
                                sse.keepAlive();
                                sse.onClose(() -> client.close(false));
                                try {
                                    client.attach(sse);
                                } catch (RuntimeException e) {
                                    client.close(true);
                                    throw e;
                                }
                            })
                    .handle(ctx);
        } catch (Exception e) {
            // However the response failed to begin, the stream ends here, and its slot and live
            // registration with it.
            client.close(true);
            if (e instanceof IOException) {
                // Jetty's, thrown unchecked by Javalin: the client reset the connection.
                return;
            }
            throw e;
        }
    }

    void webSocketConnected(WsConnectContext ctx) {
        long userId = Long.parseLong(ctx.pathParam("userId"));
        StreamClient.Ws client =
                new StreamClient.Ws(
                        userId, metrics, config.streamBuffer, streams.senders(), ctx.session);
        ctx.attribute(STREAM, client);
        Auth.Caller caller = ctx.attribute(StateQueryApi.CALLER);
        client.expiresAt(caller == null ? 0 : caller.expiresAtMs());
        client.attach();
        try {
            streams.open(client);
        } catch (ApiError e) {
            // Another stream took the last room between the upgrade's check and now.
            ctx.closeSession(1013, e.getMessage());
        } catch (DependencyException e) {
            metrics.dependencyError(e.dependency);
            LOG.warn(
                    "{} {}: {} unavailable: {}",
                    "WS",
                    StateQueryApi.WS_ROUTE,
                    e.dependency,
                    String.valueOf(e.getCause()));
            ctx.closeSession(1011, e.getMessage());
        }
    }

    static void webSocketEnded(WsContext ctx) {
        StreamClient client = ctx.attribute(STREAM);
        if (client != null) {
            client.close(true);
        }
    }
}
