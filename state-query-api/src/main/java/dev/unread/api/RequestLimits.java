package dev.unread.api;

import io.javalin.http.Context;
import io.javalin.router.Endpoint;
import java.util.Set;

/**
 * The rate limits of docs/contract.md ("Limits"): writes and stream opens per user, and, before a
 * token is looked at, per client address; past one, 429 with {@code Retry-After}. Reads are not
 * limited here: each is one bounded round trip, and the batch's answer has its own cap.
 */
final class RequestLimits {

    private static final Set<String> WRITE_METHODS = Set.of("POST", "PUT", "DELETE");

    private final RateLimiter userWrites;
    private final RateLimiter userStreamOpens;
    private final RateLimiter addresses;

    RequestLimits(ApiConfig config) {
        this.userWrites = RateLimiter.perSecond(config.userWritesPerSecond, config.limiterMaxKeys);
        this.userStreamOpens =
                RateLimiter.perMinute(config.userStreamOpensPerMinute, config.limiterMaxKeys);
        this.addresses =
                RateLimiter.perSecond(config.addressRequestsPerSecond, config.limiterMaxKeys);
    }

    /**
     * Before routing and authentication: a caller without a valid token makes no user's bucket, so
     * its writes and stream opens are counted by its address.
     */
    void byAddress(Context ctx) {
        String method = ctx.req().getMethod();
        if (WRITE_METHODS.contains(method) || isStreamPath(ctx.path())) {
            addresses.require(ctx.ip(), "requests from this address", retryAfter(ctx));
        }
    }

    /** After authentication: the writes and stream opens of the user the request acts for. */
    void byUser(Context ctx) {
        Endpoint endpoint = ctx.endpoints().matchedHttpEndpoint();
        if (endpoint == null) {
            return;
        }
        boolean write = WRITE_METHODS.contains(endpoint.method.name());
        boolean open = endpoint.path.equals(ApiRoutes.EVENTS);
        if (!write && !open) {
            return;
        }
        long user = actingUser(ctx);
        if (user != 0) {
            (write ? userWrites : userStreamOpens)
                    .require(user, write ? "writes" : "stream opens", retryAfter(ctx));
        }
    }

    /**
     * A WebSocket upgrade's stream open, once authenticated; an upgrade passes neither handler
     * above, so it calls {@link #byAddress} itself before authenticating.
     */
    void webSocketOpen(Context ctx) {
        long user = actingUser(ctx);
        if (user != 0) {
            userStreamOpens.require(user, "stream opens", retryAfter(ctx));
        }
    }

    /**
     * The token's user; with the service token (or no auth) the user of the path, since the chat
     * server acts for each user; 0 when the route names none (a service-token conversation read).
     */
    private static long actingUser(Context ctx) {
        long caller = AccessControl.caller(ctx).userId();
        if (caller != 0) {
            return caller;
        }
        String user = ctx.pathParamMap().get("userId");
        try {
            return user == null ? 0 : Params.id("userId", user);
        } catch (ApiError malformed) {
            // The handler answers it with 400.
            return 0;
        }
    }

    private static boolean isStreamPath(String path) {
        return path.startsWith("/api/users/") && (path.endsWith("/events") || path.endsWith("/ws"));
    }

    private static RateLimiter.RetryAfter retryAfter(Context ctx) {
        return seconds -> ctx.header("Retry-After", seconds);
    }
}
