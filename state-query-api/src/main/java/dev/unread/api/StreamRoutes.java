package dev.unread.api;

import static dev.unread.api.AccessControl.caller;
import static dev.unread.api.AccessControl.userParam;

import io.javalin.http.Context;
import io.javalin.http.sse.SseHandler;
import io.javalin.websocket.WsConnectContext;
import io.javalin.websocket.WsContext;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live stream routes of docs/contract.md ("Live push"): Server-Sent Events and the WebSocket,
 * each a {@link StreamClient} registered with {@link LiveStreams}.
 */
final class StreamRoutes {

    private static final Logger LOG = LoggerFactory.getLogger(StreamRoutes.class);

    private static final String STREAM = "unread.stream";
    private static final String EVENT_STREAM = "text/event-stream";

    private final ApiConfig config;
    private final LiveStreams streams;
    private final ApiMetrics metrics;
    private final AccessControl access;
    private final RequestGuards guards;
    private final RequestLimits limits;

    StreamRoutes(
            ApiConfig config,
            LiveStreams streams,
            ApiMetrics metrics,
            AccessControl access,
            RequestGuards guards,
            RequestLimits limits) {
        this.config = config;
        this.streams = streams;
        this.metrics = metrics;
        this.access = access;
        this.guards = guards;
        this.limits = limits;
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
        SseStream client = new SseStream(userId, metrics, config.streamBuffer, streams.senders());
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

    /**
     * Before the upgrade, so that a refused WebSocket gets a plain 401, 403 or 400. An upgrade
     * passes none of the HTTP routes' before-handlers, so it runs the Host check itself: with auth
     * off, a rebound name with its own Origin would otherwise reach any user's stream.
     */
    void authorizeWebSocket(Context ctx, Access access) {
        RequestGuards.noStoreNoSniff(ctx);
        try {
            RequestGuards.refuseMethodOverride(ctx);
            guards.refuseOtherHostsWhenOpen(ctx);
            guards.requireAllowedOrigin(ctx);
            this.access.authenticate(ctx, access);
            limits.webSocketOpen(ctx);
            streams.requireRoom(userParam(ctx));
        } catch (ApiError e) {
            // Javalin answers a refused upgrade with the status alone.
            Responses.sendNow(ctx, e);
            throw e;
        }
    }

    void webSocketConnected(WsConnectContext ctx) {
        long userId = Long.parseLong(ctx.pathParam("userId"));
        WebSocketStream client =
                new WebSocketStream(
                        userId, metrics, config.streamBuffer, streams.senders(), ctx.session);
        ctx.attribute(STREAM, client);
        Auth.Caller caller = AccessControl.caller(ctx);
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
                    ApiRoutes.WEB_SOCKET,
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
