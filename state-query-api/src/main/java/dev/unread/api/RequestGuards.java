package dev.unread.api;

import io.javalin.http.Context;

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

    /**
     * A browser names the page that opens a WebSocket in {@code Origin} and, unlike for other
     * requests, lets any page open one: only the API's own origin and the allowed ones may. A
     * client that sends no Origin is not a browser page.
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
