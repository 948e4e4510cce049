package dev.unread.api;

import io.javalin.http.Context;
import io.javalin.router.Endpoint;
import java.util.List;

/**
 * Checks every request, WebSocket upgrades included, passes whatever its route: who may reach the
 * API without a token, which pages may open a WebSocket, and the headers every answer carries.
 */
final class RequestGuards {

    private final ApiConfig config;
    private final boolean authEnabled;

    RequestGuards(ApiConfig config, boolean authEnabled) {
        this.config = config;
        this.authEnabled = authEnabled;
    }

    /**
     * Without a token the API trusts whoever reaches it, which must then be this machine: a Host
     * other than a loopback name is a page whose DNS name was rebound to 127.0.0.1, reading any
     * user's data from the visitor's browser.
     */
    void refuseOtherHostsWhenOpen(Context ctx) {
        if (authEnabled || config.openWithoutAuth) {
            return;
        }
        String host = ctx.header("Host");
        String name = host == null ? "" : host.replaceFirst(":[0-9]*$", "");
        if (!ApiConfig.loopback(name)) {
            throw new ApiError(403, "without a token only loopback names are served");
        }
    }

    /** Headers some frameworks take as the request's method instead of its own. */
    private static final List<String> METHOD_OVERRIDES =
            List.of("X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override");

    /**
     * 400 for a request naming another method in a header: Javalin routes a GET carrying {@code
     * X-HTTP-Method-Override: POST} as a write, which a page of any site may send, and which passed
     * the checks of writes made on the request's own method.
     */
    static void refuseMethodOverride(Context ctx) {
        for (String header : METHOD_OVERRIDES) {
            if (ctx.req().getHeader(header) != null) {
                throw ApiError.badRequest(header + " is not taken: send the method itself");
            }
        }
    }

    /**
     * After routing: a write from a browser page must come from an origin allowed to open a
     * WebSocket. A page of another site may send a write without a body, which needs no CORS
     * preflight, from a visitor's browser: with auth off on loopback it would act for any user.
     */
    void requireAllowedOriginForWrites(Context ctx) {
        Endpoint endpoint = ctx.endpoints().matchedHttpEndpoint();
        ApiRoute route = endpoint == null ? null : endpoint.metadata(ApiRoute.class);
        if (route != null && route.write()) {
            requireAllowedOrigin(ctx);
        }
    }

    /**
     * A browser names the page that opens a WebSocket, or sends a write, in {@code Origin} and lets
     * any page open one or send one without a body: only the API's own origin and the allowed ones
     * may. A client that sends no Origin is not a browser page.
     */
    void requireAllowedOrigin(Context ctx) {
        String origin = ctx.header("Origin");
        if (origin == null) {
            return;
        }
        String host = ctx.header("Host");
        boolean own = origin.equals("http://" + host) || origin.equals("https://" + host);
        if (!own
                && !config.allowedOrigins.contains(origin)
                && !config.allowedOrigins.contains("*")) {
            throw new ApiError(403, "origin not allowed");
        }
    }

    /**
     * Every answer is one user's data, or a probe's, as of now: no cache, shared or private, may
     * keep it; and none is to be read as another type than it says.
     */
    static void noStoreNoSniff(Context ctx) {
        ctx.header("Cache-Control", "no-store");
        ctx.header("X-Content-Type-Options", "nosniff");
    }
}
