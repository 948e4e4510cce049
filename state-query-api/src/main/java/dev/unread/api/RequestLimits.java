package dev.unread.api;

import io.javalin.http.Context;
import io.javalin.router.Endpoint;
import java.util.Set;

/**
 * The rate limits of docs/contract.md ("Limits"): writes and stream opens per user, and failed
 * authentications per client address; past one, 429 with {@code Retry-After}. Each instance keeps
 * its own. Reads are not limited here: each is one bounded round trip, and the batch's answer has
 * its own cap.
 */
final class RequestLimits {

    private static final Set<String> WRITE_METHODS = Set.of("POST", "PUT", "DELETE");

    private final RateLimiter userWrites;
    private final RateLimiter userStreamOpens;
    private final RateLimiter addresses;
    private final ClientAddress clients;

    RequestLimits(ApiConfig config) {
        this.clients = new ClientAddress(config.trustedProxies);
        this.userWrites = RateLimiter.perSecond(config.userWritesPerSecond, config.limiterMaxKeys);
        this.userStreamOpens =
                RateLimiter.perMinute(config.userStreamOpensPerMinute, config.limiterMaxKeys);
        this.addresses =
                RateLimiter.perSecond(config.addressRequestsPerSecond, config.limiterMaxKeys);
    }

    /**
     * A request failed authentication: a caller without a valid token makes no user's bucket, so
     * its failures are counted by its address, and past the limit it gets 429 instead of 401. Only
     * failures count: a valid caller behind the same proxy or NAT is never refused with it.
     */
    void authenticationFailed(Context ctx) {
        addresses.require(clients.of(ctx), "requests from this address", retryAfter(ctx));
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
     * A WebSocket upgrade's stream open, once authenticated: an upgrade passes no handler above.
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

    private static RateLimiter.RetryAfter retryAfter(Context ctx) {
        return seconds -> ctx.header("Retry-After", seconds);
    }
}
