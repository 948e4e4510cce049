package dev.unread.api;

import io.javalin.security.RouteRole;
import java.util.Set;

/**
 * Who may call a route, as the role it is declared with in {@link ApiRoutes} (docs/contract.md,
 * "Authentication"). With no token or JWT key configured every route is open. Which user a token's
 * caller may touch is not a role: it depends on the ids of each request, so the handlers check it
 * ({@link AccessControl#userParam}).
 */
enum Access implements RouteRole {
    /** Probes, scrapers and the inbox page: no user data, so no token. */
    OPEN,

    /** A bearer token in {@code Authorization}: the service token or a user's JWT. */
    BEARER,

    /**
     * As {@link #BEARER}, or a user's JWT as {@code ?access_token=}: EventSource and WebSocket
     * cannot set headers. Only the stream routes, so that tokens stay out of other URLs.
     */
    BEARER_OR_URL,

    /**
     * The service token alone, in {@code Authorization}: what the chat platform's operator does to
     * a user and no user token may, an erasure.
     */
    SERVICE;

    /** The access of a route declared with these roles; none is refused as needing a token. */
    static Access of(Set<? extends RouteRole> roles) {
        for (RouteRole role : roles) {
            if (role instanceof Access access) {
                return access;
            }
        }
        return BEARER;
    }
}
