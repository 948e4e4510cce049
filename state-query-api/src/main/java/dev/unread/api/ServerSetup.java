package dev.unread.api;

import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.router.Endpoint;
import jakarta.servlet.DispatcherType;
import java.util.EnumSet;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.SessionHandler;
import org.eclipse.jetty.session.NullSessionCache;
import org.eclipse.jetty.session.NullSessionDataStore;
import org.eclipse.jetty.util.HostPort;

/**
 * The server around the routes: Jetty's limits and error pages, no sessions, the checks every
 * request passes before and after routing, and the request metrics.
 */
final class ServerSetup {

    /** 500 ids of 19 digits do not fit Jetty's default 8 KiB of request line and headers. */
    private static final int MAX_REQUEST_HEADER_BYTES = 32 * 1024;

    private final ApiRoutes routes;
    private final AccessControl access;
    private final RequestGuards guards;
    private final RequestLimits limits;
    private final ApiMetrics metrics;

    ServerSetup(
            ApiRoutes routes,
            AccessControl access,
            RequestGuards guards,
            RequestLimits limits,
            ApiMetrics metrics) {
        this.routes = routes;
        this.access = access;
        this.guards = guards;
        this.limits = limits;
        this.metrics = metrics;
    }

    void configure(JavalinConfig cfg) {
        quietPerRequestWarnings();
        cfg.startup.showJavalinBanner = false;
        cfg.startup.showOldJavalinVersionWarning = false;
        cfg.http.prefer405over404 = true;
        cfg.http.maxRequestSize = Bodies.MAX_BODY_BYTES;
        cfg.http.defaultContentType = Responses.JSON;
        cfg.jetty.modifyHttpConfiguration(
                http -> {
                    http.setRequestHeaderSize(MAX_REQUEST_HEADER_BYTES);
                    http.setSendServerVersion(false);
                });
        cfg.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorHandler()));
        // The API keeps no sessions: every request carries its token. Javalin asks for one at
        // every WebSocket upgrade, refused ones included, and Jetty would keep each without end;
        // a cache that keeps nothing and no cookie make those sessions vanish with the request.
        cfg.jetty.modifyServletContextHandler(
                handler -> {
                    SessionHandler sessions = handler.getSessionHandler();
                    NullSessionCache none = new NullSessionCache(sessions);
                    none.setSessionDataStore(new NullSessionDataStore());
                    sessions.setSessionCache(none);
                    sessions.setUsingCookies(false);
                    handler.addFilter(
                            new FilterHolder(new MalformedUpgradeFilter()),
                            "/*",
                            EnumSet.of(DispatcherType.REQUEST));
                });
        cfg.requestLogger.http(this::record);

        // Before routing: Javalin decodes path parameters while it matches a route, and a bad
        // escape there would throw from inside Javalin and end as a 500.
        cfg.routes.before(ServerSetup::refuseBadEscapes);
        cfg.routes.before(RequestGuards::noStoreNoSniff);
        cfg.routes.before(RequestGuards::refuseMethodOverride);
        cfg.routes.before(guards::refuseOtherHostsWhenOpen);
        // After routing, so that a refused request is counted under its route; unknown paths
        // get 404 with or without a token (the routes are public in /openapi.json anyway).
        cfg.routes.beforeMatched(access::authenticate);
        cfg.routes.beforeMatched(limits::byUser);
        cfg.routes.beforeMatched(Bodies::requireJson);
        cfg.routes.beforeMatched(Bodies::limitByLength);
        cfg.routes.beforeMatched(guards::requireAllowedOriginForWrites);
        routes.register(cfg.routes);
        Responses.mapExceptions(cfg.routes, metrics);
    }

    /**
     * Jetty's HostPort warns of every malformed Host header and CONNECT target, repeating the value
     * whole (up to the 32 KiB of a header), while Jetty answers 400 anyway: 200 anonymous requests
     * wrote 6 MB of log. Set here rather than in each log configuration, so that the API bounds its
     * log however it is run (its own configuration, {@code bin/unread}'s, an operator's).
     */
    private static void quietPerRequestWarnings() {
        if (LogManager.getContext(false) instanceof LoggerContext) {
            Configurator.setLevel(HostPort.class.getName(), Level.ERROR);
        }
    }

    /**
     * A {@code %} in the path that does not start two hex digits, such as {@code %u0031} (which
     * Jetty lets through), is malformed: 400, as Jetty answers {@code %ZZ}.
     */
    private static void refuseBadEscapes(Context ctx) {
        if (MalformedUpgradeFilter.BAD_ESCAPE.matcher(ctx.req().getRequestURI()).find()) {
            throw ApiError.badRequest("malformed %-escape in the path");
        }
    }

    private void record(Context ctx, Float millis) {
        Endpoint endpoint = ctx.endpoints().matchedHttpEndpoint();
        String route = endpoint == null ? ApiMetrics.UNMATCHED : endpoint.path;
        metrics.request(ctx.method().name(), route, ctx.statusCode(), millis / 1000.0);
    }
}
