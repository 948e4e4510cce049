package dev.unread.api;

import static dev.unread.api.Access.BEARER;
import static dev.unread.api.Access.BEARER_OR_URL;
import static dev.unread.api.Access.OPEN;
import static dev.unread.api.Access.SERVICE;
import static io.javalin.http.HandlerType.DELETE;
import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;
import static io.javalin.http.HandlerType.PUT;

import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.util.List;

/**
 * Every route of the API (docs/contract.md, "HTTP API"), grouped by the resource it serves: its
 * method, path, access and handler. Adding a route is a line here and its handler in the class of
 * its resource; {@code openapi.json} lists the same routes, which a test checks.
 */
final class ApiRoutes {

    private static final String USER = "/api/users/{userId}";
    private static final String USER_CONVERSATION = USER + "/conversations/{cid}";
    private static final String USER_THREAD = USER_CONVERSATION + "/threads/{threadSeq}";
    private static final String CONVERSATION = "/api/conversations/{cid}";

    static final String EVENTS = USER + "/events";
    static final String WEB_SOCKET = USER + "/ws";

    /** The WebSocket's access, for its upgrade too, which passes no HTTP route's checks. */
    private static final Access WEB_SOCKET_ACCESS = BEARER_OR_URL;

    private final List<ApiRoute> http;
    private final StreamRoutes streams;

    ApiRoutes(CountRoutes counts, UserActions actions, StreamRoutes streams, OpsRoutes ops) {
        this.streams = streams;
        this.http = table(counts, actions, streams, ops);
    }

    private static List<ApiRoute> table(
            CountRoutes counts, UserActions actions, StreamRoutes streams, OpsRoutes ops) {
        return List.of(
                // A user's counts and read cursors.
                route(GET, USER + "/unread", BEARER, counts::userUnread),
                route(GET, "/api/unread", BEARER, counts::usersUnread),
                route(GET, USER + "/cursors", BEARER, counts::cursors),
                // A user's actions, published to chat-reads.
                route(POST, USER + "/inbox/opened", BEARER, actions::inboxOpened),
                route(POST, USER + "/read-all", BEARER, actions::readAll),
                withJsonBody(POST, CONVERSATION + "/read", BEARER, actions::conversationRead),
                withJsonBody(
                        PUT, USER_CONVERSATION + "/preference", BEARER, actions::countPreference),
                route(POST, USER_CONVERSATION + "/unread", BEARER, actions::markUnread),
                withJsonBody(POST, USER_THREAD + "/read", BEARER, actions::threadRead),
                withJsonBody(PUT, USER_THREAD + "/follow", BEARER, actions::threadFollow),
                // The operator erases a user, published to chat-reads too.
                route(DELETE, USER, SERVICE, actions::erase),
                // A user's live stream; its WebSocket twin is registered below.
                route(GET, EVENTS, BEARER_OR_URL, streams::events),
                // A conversation's readers.
                route(GET, CONVERSATION + "/readers", BEARER, counts::readers),
                // Probes, scrapers and the page: no user data.
                route(GET, "/health", OPEN, ops::health),
                route(GET, "/metrics", OPEN, ops::metrics),
                route(GET, "/openapi.json", OPEN, ops::openApi),
                route(GET, "/", OPEN, ops::inboxPage));
    }

    private static ApiRoute route(HandlerType method, String path, Access access, Handler handler) {
        return new ApiRoute(method, path, access, false, handler);
    }

    private static ApiRoute withJsonBody(
            HandlerType method, String path, Access access, Handler handler) {
        return new ApiRoute(method, path, access, true, handler);
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
