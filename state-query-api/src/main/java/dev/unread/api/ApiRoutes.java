package dev.unread.api;

import static dev.unread.api.Access.BEARER;
import static dev.unread.api.Access.BEARER_OR_URL;
import static dev.unread.api.Access.OPEN;
import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;
import static io.javalin.http.HandlerType.PUT;

import io.javalin.router.JavalinDefaultRoutingApi;
import java.util.List;

/**
 * Every route of the API (docs/contract.md, "HTTP API"), grouped by the resource it serves: its
 * method, path, access and handler. Adding a route is a line here and its handler in the class of
 * its resource; {@code openapi.json} lists the same routes, which a test checks.
 */
final class ApiRoutes {

    static final String EVENTS = "/api/users/{userId}/events";
    static final String WEB_SOCKET = "/api/users/{userId}/ws";

    /** The WebSocket's access, for its upgrade too, which passes no HTTP route's checks. */
    private static final Access WEB_SOCKET_ACCESS = BEARER_OR_URL;

    private static final boolean JSON_BODY = true;
    private static final boolean NO_BODY = false;

    private final List<ApiRoute> http;
    private final StreamRoutes streams;

    ApiRoutes(CountRoutes counts, UserActions actions, StreamRoutes streams, OpsRoutes ops) {
        this.streams = streams;
        this.http =
                List.of(
                        // A user's counts and read cursors.
                        new ApiRoute(
                                GET,
                                "/api/users/{userId}/unread",
                                BEARER,
                                NO_BODY,
                                counts::userUnread),
                        new ApiRoute(GET, "/api/unread", BEARER, NO_BODY, counts::usersUnread),
                        new ApiRoute(
                                GET,
                                "/api/users/{userId}/cursors",
                                BEARER,
                                NO_BODY,
                                counts::cursors),
                        // A user's actions, published to chat-reads.
                        new ApiRoute(
                                POST,
                                "/api/users/{userId}/inbox/opened",
                                BEARER,
                                NO_BODY,
                                actions::inboxOpened),
                        new ApiRoute(
                                POST,
                                "/api/conversations/{cid}/read",
                                BEARER,
                                JSON_BODY,
                                actions::conversationRead),
                        new ApiRoute(
                                PUT,
                                "/api/users/{userId}/conversations/{cid}/preference",
                                BEARER,
                                JSON_BODY,
                                actions::countPreference),
                        new ApiRoute(
                                POST,
                                "/api/users/{userId}/conversations/{cid}/unread",
                                BEARER,
                                NO_BODY,
                                actions::markUnread),
                        new ApiRoute(
                                POST,
                                "/api/users/{userId}/conversations/{cid}/threads/{threadSeq}/read",
                                BEARER,
                                JSON_BODY,
                                actions::threadRead),
                        new ApiRoute(
                                PUT,
                                "/api/users/{userId}/conversations/{cid}/threads/{threadSeq}/follow",
                                BEARER,
                                JSON_BODY,
                                actions::threadFollow),
                        // A user's live stream; its WebSocket twin is registered below.
                        new ApiRoute(GET, EVENTS, BEARER_OR_URL, NO_BODY, streams::events),
                        // A conversation's readers.
                        new ApiRoute(
                                GET,
                                "/api/conversations/{cid}/readers",
                                BEARER,
                                NO_BODY,
                                counts::readers),
                        // Probes, scrapers and the page: no user data.
                        new ApiRoute(GET, "/health", OPEN, NO_BODY, ops::health),
                        new ApiRoute(GET, "/metrics", OPEN, NO_BODY, ops::metrics),
                        new ApiRoute(GET, "/openapi.json", OPEN, NO_BODY, ops::openApi),
                        new ApiRoute(GET, "/", OPEN, NO_BODY, ops::inboxPage));
    }

    /** The HTTP routes, in the order registered. */
    List<ApiRoute> http() {
        return http;
    }

    /**
     * Registers the HTTP routes as endpoints of their own method, and the WebSocket: an upgrade is
     * checked before it happens, so that a refused one gets a plain HTTP status.
     */
    void register(JavalinDefaultRoutingApi routes) {
        http.forEach(route -> routes.addEndpoint(route.endpoint()));
        routes.wsBeforeUpgrade(
                WEB_SOCKET, ctx -> streams.authorizeWebSocket(ctx, WEB_SOCKET_ACCESS));
        routes.ws(
                WEB_SOCKET,
                ws -> {
                    ws.onConnect(streams::webSocketConnected);
                    ws.onClose(StreamRoutes::webSocketEnded);
                    ws.onError(StreamRoutes::webSocketEnded);
                },
                WEB_SOCKET_ACCESS);
    }
}
