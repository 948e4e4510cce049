package dev.unread.api;

import io.javalin.http.Context;
import io.javalin.websocket.WsContext;

/**
 * Who a request acts for, decided before its handler from the {@link Access} its route declares,
 * and kept on the request for the handler, which checks each user and conversation it touches.
 */
final class AccessControl {

    private static final String CALLER = "unread.caller";
    private static final String ACCESS_TOKEN = "access_token";

    private final Auth auth;
    private final RedisUnread redis;
    private final RequestLimits limits;

    AccessControl(Auth auth, RedisUnread redis, RequestLimits limits) {
        this.auth = auth;
        this.redis = redis;
        this.limits = limits;
    }

    /**
     * Before the handler of every matched route, a WebSocket upgrade's included: with a token or a
     * JWT key configured, the credential its route's access asks for.
     */
    void authenticate(Context ctx) {
        authenticate(ctx, Access.of(ctx.routeRoles()));
    }

    void authenticate(Context ctx, Access access) {
        Auth.Caller caller =
                !auth.enabled()
                        ? Auth.Caller.SERVICE
                        : switch (access) {
                            case OPEN -> Auth.Caller.SERVICE;
                            case BEARER -> bearer(ctx, false);
                            case BEARER_OR_URL -> bearer(ctx, true);
                            case SERVICE -> service(ctx);
                        };
        ctx.attribute(CALLER, caller);
    }

    /**
     * Whether an open route's caller may see what only the operator should (why a check failed):
     * with auth off anyone, else the service token in the header. Refuses nobody.
     */
    boolean isService(Context ctx) {
        if (!auth.enabled()) {
            return true;
        }
        try {
            return auth.authenticate(bearerHeader(ctx)).userId() == 0;
        } catch (ApiError e) {
            return false;
        }
    }

    private static String bearerHeader(Context ctx) {
        String header = ctx.header("Authorization");
        return header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
                ? header.substring(7).trim()
                : null;
    }

    private Auth.Caller bearer(Context ctx, boolean inUrlToo) {
        String credential = bearerHeader(ctx);
        boolean inUrl = credential == null && inUrlToo;
        if (inUrl) {
            credential = ctx.queryParam(ACCESS_TOKEN);
        }
        try {
            Auth.Caller caller = auth.authenticate(credential);
            if (inUrl && caller.userId() == 0) {
                // Proxies and access logs keep URLs: a user token there expires and reaches one
                // user, the service token would reach everyone for as long as it is configured.
                throw new ApiError(401, "the service token is taken only in a header");
            }
            return caller;
        } catch (ApiError e) {
            if (e.status == 401) {
                // Past its address's allowance of failures a caller gets 429 instead.
                limits.authenticationFailed(ctx);
            }
            ctx.header("WWW-Authenticate", "Bearer");
            throw e;
        }
    }

    private Auth.Caller service(Context ctx) {
        Auth.Caller caller = bearer(ctx, false);
        if (caller.userId() != 0) {
            throw new ApiError(403, "only the service token may do this");
        }
        return caller;
    }

    /** The path parameter {@code userId}, which the caller must be allowed to touch. */
    static long userParam(Context ctx) {
        long userId = Params.id("userId", ctx.pathParam("userId"));
        caller(ctx).require(userId);
        return userId;
    }

    /** Who the request acts for; null before {@link #authenticate} ran. */
    static Auth.Caller caller(Context ctx) {
        return ctx.attribute(CALLER);
    }

    /** Who a WebSocket acts for, as its upgrade was authenticated. */
    static Auth.Caller caller(WsContext ctx) {
        return ctx.attribute(CALLER);
    }

    /**
     * 403 for a user token unless {@code userId} has a read cursor or an unread count in the
     * conversation, or for a thread's route ({@code threadSeq} above 0) in that thread: a user's
     * own writes create state and Redis members per conversation, so they are taken only where the
     * user takes part; the service token (the chat server) acts anywhere.
     */
    void requireTakesPart(Context ctx, long conversationId, long threadSeq, long userId) {
        if (caller(ctx).userId() != 0 && !redis.concerns(conversationId, threadSeq, userId)) {
            throw new ApiError(403, "the token's user has no part in this conversation");
        }
    }
}
