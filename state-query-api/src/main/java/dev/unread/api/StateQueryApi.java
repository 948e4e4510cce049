package dev.unread.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import io.javalin.router.Endpoint;
import jakarta.servlet.DispatcherType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.SessionHandler;
import org.eclipse.jetty.session.NullSessionCache;
import org.eclipse.jetty.session.NullSessionDataStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API of docs/contract.md: unread counts from Redis, read cursors from MySQL, read events
 * to Kafka. {@link #start} runs it inside another program (the {@code unread} CLI); {@link #main}
 * runs it alone, configured by the environment.
 */
public final class StateQueryApi implements AutoCloseable {

    /** Request bodies are two small numbers; anything larger is refused with 413. */
    static final int MAX_BODY_BYTES = 16 * 1024;

    /** A refused body up to this size is read to its end so that the client receives the 413. */
    static final int MAX_DRAINED_BYTES = 1024 * 1024;

    /** 500 ids of 19 digits do not fit Jetty's default 8 KiB of request line and headers. */
    private static final int MAX_REQUEST_HEADER_BYTES = 32 * 1024;

    /** A health probe must answer quickly, even with a long dependency timeout. */
    private static final int MAX_HEALTH_TIMEOUT_MS = 2000;

    /** Paths served without the token: probes, scrapers and the inbox page, no user data. */
    static final Set<String> OPEN_PATHS = Set.of("/health", "/metrics", "/openapi.json", "/");

    /** Routes that also take the token as {@code ?access_token=}. */
    static final String EVENTS_ROUTE = "/api/users/{userId}/events";

    static final String WS_ROUTE = "/api/users/{userId}/ws";

    /** The path of {@code userId}'s Server-Sent Events stream, for the clients that open one. */
    public static String eventsPath(long userId) {
        return EVENTS_ROUTE.replace("{userId}", Long.toString(userId));
    }

    static final Set<String> STREAM_ROUTES = Set.of(EVENTS_ROUTE, WS_ROUTE);
    private static final Pattern WS_PATH = Pattern.compile("/api/users/[^/]+/ws");

    private static final String ACCESS_TOKEN = "access_token";
    static final String CALLER = "unread.caller";
    static final String JSON = "application/json";
    private static final String LOG_CONFIG = "dev/unread/api/log4j2-api.xml";
    private static final String OPENAPI_RESOURCE = "/dev/unread/api/openapi.json";
    private static final String INBOX_RESOURCE = "/dev/unread/api/inbox.html";

    private final ApiConfig config;
    private final ObjectMapper json;
    private final ApiMetrics metrics = new ApiMetrics();
    private final Auth auth;
    private final byte[] openApi;
    private final byte[] inboxPage;

    /** The page's Content-Security-Policy: its own script and style only, from no other page. */
    private final String inboxPolicy;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final Map<String, Handler> routes = new LinkedHashMap<>();
    private final RedisUnread redis;
    private final MySqlCursorReader mysql;
    private final KafkaReads kafka;
    private final LiveStreams streams;
    private final UserActions actions;
    private final RequestLimits limits;
    private final RequestGuards guards;
    private final StreamRoutes streamRoutes;
    private final Health health;
    private final Javalin app;

    private StateQueryApi(ApiConfig config, HealthCheck extraCheck) {
        this.config = config;
        this.json =
                new ObjectMapper()
                        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                        .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        this.auth = new Auth(config);
        this.limits = new RequestLimits(config);
        this.guards = new RequestGuards(config, auth.enabled());
        this.openApi = resource(OPENAPI_RESOURCE);
        this.inboxPage = resource(INBOX_RESOURCE);
        this.inboxPolicy = InboxPolicy.of(new String(inboxPage, StandardCharsets.UTF_8));
        try {
            this.redis = open(new RedisUnread(config));
            this.streams = open(new LiveStreams(config, redis, json, metrics));
            this.mysql = open(new MySqlCursorReader(config));
            int healthTimeoutMs = Math.min(config.timeoutMs, MAX_HEALTH_TIMEOUT_MS);
            this.kafka = open(new KafkaReads(config, healthTimeoutMs));
            this.health = open(new Health(redis, mysql, kafka, extraCheck, metrics));
            this.actions = new UserActions(json, redis, kafka);
            this.streamRoutes = new StreamRoutes(config, streams, metrics);
        } catch (RuntimeException e) {
            close();
            throw e;
        }

        routes.put("GET /api/users/{userId}/unread", this::userUnread);
        routes.put("GET /api/unread", this::usersUnread);
        routes.put("GET /api/users/{userId}/cursors", this::cursors);
        routes.put("POST /api/users/{userId}/inbox/opened", actions::inboxOpened);
        routes.put("POST /api/conversations/{cid}/read", actions::conversationRead);
        routes.put(
                "PUT /api/users/{userId}/conversations/{cid}/preference", actions::countPreference);
        routes.put("POST /api/users/{userId}/conversations/{cid}/unread", actions::markUnread);
        routes.put(
                "POST /api/users/{userId}/conversations/{cid}/threads/{threadSeq}/read",
                actions::threadRead);
        routes.put(
                "PUT /api/users/{userId}/conversations/{cid}/threads/{threadSeq}/follow",
                actions::threadFollow);
        routes.put("GET " + EVENTS_ROUTE, streamRoutes::events);
        routes.put("GET /api/conversations/{cid}/readers", this::readers);
        routes.put("GET /health", this::health);
        routes.put("GET /metrics", this::metrics);
        routes.put("GET /openapi.json", this::openApi);
        routes.put("GET /", this::inboxPage);
        this.app = Javalin.create(this::configure);
    }

    /** Starts the API with the dependency checks of {@code /health} only. */
    public static StateQueryApi start(ApiConfig config) {
        return start(config, null);
    }

    /**
     * Binds {@code config.host:config.port} and serves until {@link #close()}. Redis, MySQL and
     * Kafka need not be up yet: until they are, requests needing them get 503.
     *
     * @param extraCheck one more condition for {@code /health} to be UP; null for none
     */
    public static StateQueryApi start(ApiConfig config, HealthCheck extraCheck) {
        StateQueryApi api = new StateQueryApi(config, extraCheck);
        try {
            api.app.start(config.host, config.port);
        } catch (RuntimeException e) {
            api.close();
            throw e;
        }
        Log.LOG.info("unread API listening on http://{}:{} ({})", config.host, api.port(), config);
        return api;
    }

    /** The port bound: the configured one, or the one picked for port 0. */
    public int port() {
        return app.port();
    }

    public ApiConfig config() {
        return config;
    }

    /** "METHOD /path" of every route, as registered. */
    List<String> routes() {
        return List.copyOf(routes.keySet());
    }

    @Override
    public void close() {
        if (app != null) {
            app.stop();
        }
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                Log.LOG.warn("closing {} failed", resources.get(i).getClass().getSimpleName(), e);
            }
        }
    }

    /** Runs the API alone, configured by the {@code UNREAD_*} environment, until killed. */
    public static void main(String[] args) {
        // Before the first logger exists: log4j2's own default shows errors only.
        if (System.getProperty("log4j2.configurationFile") == null) {
            System.setProperty("log4j2.configurationFile", LOG_CONFIG);
        }
        if (args.length > 0) {
            System.err.println(
                    "usage: StateQueryApi (configured by UNREAD_* environment variables;"
                            + " see state-query-api/README.md)");
            System.exit(2);
        }
        StateQueryApi api = start(ApiConfig.fromEnv(System.getenv()));
        Runtime.getRuntime().addShutdownHook(new Thread(api::close, "unread-api-shutdown"));
        System.out.println("unread API listening on http://" + api.config.host + ":" + api.port());
    }

    private void configure(JavalinConfig cfg) {
        cfg.startup.showJavalinBanner = false;
        cfg.startup.showOldJavalinVersionWarning = false;
        cfg.http.prefer405over404 = true;
        cfg.http.maxRequestSize = MAX_BODY_BYTES;
        cfg.http.defaultContentType = JSON;
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
        cfg.routes.before(this::refuseBadEscapes);
        cfg.routes.before(RequestGuards::noStoreNoSniff);
        cfg.routes.before(guards::refuseOtherHostsWhenOpen);
        cfg.routes.before(limits::byAddress);
        // After routing, so that a refused request is counted under its route; unknown paths
        // get 404 with or without a token (the routes are public in /openapi.json anyway).
        cfg.routes.beforeMatched(this::authenticate);
        cfg.routes.beforeMatched(limits::byUser);
        cfg.routes.beforeMatched(UserActions::requireJson);
        cfg.routes.beforeMatched(this::limitBody);
        cfg.routes.wsBeforeUpgrade(WS_ROUTE, this::authorizeWebSocket);
        cfg.routes.ws(
                WS_ROUTE,
                ws -> {
                    ws.onConnect(streamRoutes::webSocketConnected);
                    ws.onClose(StreamRoutes::webSocketEnded);
                    ws.onError(StreamRoutes::webSocketEnded);
                });
        routes.forEach(
                (route, handler) -> {
                    String[] methodAndPath = route.split(" ", 2);
                    switch (methodAndPath[0]) {
                        case "GET" -> cfg.routes.get(methodAndPath[1], handler);
                        case "PUT" -> cfg.routes.put(methodAndPath[1], handler);
                        default -> cfg.routes.post(methodAndPath[1], handler);
                    }
                });

        cfg.routes.exception(ApiError.class, (e, ctx) -> error(ctx, e.status, e.getMessage()));
        cfg.routes.exception(
                DependencyException.class,
                (e, ctx) -> {
                    metrics.dependencyError(e.dependency);
                    if (e.misconfigured) {
                        Log.LOG.warn("{} {}: {}", ctx.method(), ctx.path(), e.getMessage());
                        error(ctx, 503, e.getMessage());
                        return;
                    }
                    // One line per failure: an outage must not flood the log with stack traces.
                    Log.LOG.warn(
                            "{} {}: {} unavailable: {}",
                            ctx.method(),
                            ctx.path(),
                            e.dependency,
                            String.valueOf(e.getCause()));
                    Log.LOG.debug("{} failure", e.dependency, e.getCause());
                    error(ctx, 503, e.getMessage());
                });
        cfg.routes.exception(
                HttpResponseException.class,
                (e, ctx) -> {
                    // Javalin's own (404, 405, 413 ...): its message may echo input; send the
                    // phrase.
                    error(ctx, e.getStatus(), HttpStatus.forStatus(e.getStatus()).getMessage());
                });
        cfg.routes.exception(
                Exception.class,
                (e, ctx) -> {
                    if (e instanceof IOException) {
                        // The client went away (a reset during a WebSocket upgrade, say): no one
                        // to answer, and anyone can do it, so no stack trace per request.
                        Log.LOG.debug("{} {}: client gone: {}", ctx.method(), ctx.path(), e);
                        return;
                    }
                    Log.LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
                    error(ctx, 500, "internal error");
                });
    }

    // --- handlers, one per route ---

    private void userUnread(Context ctx) {
        long userId = userParam(ctx);
        RedisUnread.UserAnswer answer = redis.read(new long[] {userId}).get(0);
        if (answer instanceof RedisUnread.Unreadable) {
            throw new ApiError(500, RedisUnread.Unreadable.MESSAGE);
        }
        respond(ctx, 200, answer);
    }

    /**
     * Each user once, however often listed (one user 500 times was a 72 MB answer), and an answer
     * of at most {@code batchMaxAnswerBytes}, refused with 413 before it is all in memory.
     */
    private void usersUnread(Context ctx) {
        long[] userIds =
                LongStream.of(Params.idList("userIds", ctx.queryParams("userIds")))
                        .distinct()
                        .toArray();
        for (long userId : userIds) {
            caller(ctx).require(userId);
        }
        CappedBuffer answer = new CappedBuffer(config.batchMaxAnswerBytes);
        try {
            json.writeValue(answer, Map.of("users", redis.read(userIds)));
        } catch (IOException e) {
            if (!answer.full()) {
                throw new UncheckedIOException(e);
            }
            throw new ApiError(
                    413,
                    "the answer would exceed "
                            + config.batchMaxAnswerBytes
                            + " bytes: ask for fewer users at a time");
        }
        ctx.status(200).contentType(JSON).result(answer.toByteArray());
    }

    private void cursors(Context ctx) {
        long userId = userParam(ctx);
        respond(ctx, 200, mysql.read(userId));
    }

    /**
     * Before the upgrade, so that a refused WebSocket gets a plain 401, 403 or 400. An upgrade
     * passes none of the HTTP routes' before-handlers, so it runs the Host check itself: with auth
     * off, a rebound name with its own Origin would otherwise reach any user's stream.
     */
    private void authorizeWebSocket(Context ctx) {
        RequestGuards.noStoreNoSniff(ctx);
        guards.refuseOtherHostsWhenOpen(ctx);
        guards.requireAllowedOrigin(ctx);
        limits.byAddress(ctx);
        if (auth.enabled()) {
            authenticate(ctx, true);
        } else {
            ctx.attribute(CALLER, Auth.Caller.SERVICE);
        }
        limits.webSocketOpen(ctx);
        streams.requireRoom(userParam(ctx));
    }

    /**
     * Read by N. A user's token reads only a conversation the user has a cursor in or a count in;
     * the service token reads any.
     */
    private void readers(Context ctx) {
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        long seq = Params.queryId("seq", ctx.queryParams("seq"));
        actions.requireTakesPart(ctx, conversationId, 0, caller(ctx).userId());
        respond(ctx, 200, redis.readers(conversationId, seq));
    }

    private void health(Context ctx) {
        Map<String, String> problems = health.check();
        List<String> failed = Health.failed(problems);
        ObjectNode body = json.createObjectNode().put("status", failed.isEmpty() ? "UP" : "DOWN");
        ObjectNode checks = body.putObject("checks");
        problems.forEach(
                (name, problem) -> checks.put(name, problem == null ? "UP" : "DOWN: " + problem));
        if (!failed.isEmpty()) {
            body.put("error", "unavailable: " + String.join(", ", failed));
        }
        respond(ctx, failed.isEmpty() ? 200 : 503, body);
    }

    private void metrics(Context ctx) {
        ctx.contentType(ApiMetrics.CONTENT_TYPE).result(metrics.scrape());
    }

    private void openApi(Context ctx) {
        ctx.contentType(JSON).result(openApi);
    }

    /** The inbox page: static, no user data, so open like /openapi.json; it asks for a token. */
    private void inboxPage(Context ctx) {
        ctx.header("Content-Security-Policy", inboxPolicy);
        ctx.header("X-Frame-Options", "DENY");
        ctx.contentType("text/html; charset=utf-8").result(inboxPage);
    }

    // --- around every request ---

    /**
     * With a token or a JWT key configured, every route but {@link #OPEN_PATHS} needs a bearer
     * token (with a trailing slash too, which Javalin routes to the same handler); the caller it
     * names is kept for the handler, which checks the user it touches.
     */
    private void authenticate(Context ctx) {
        String path = ctx.path();
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (!auth.enabled() || OPEN_PATHS.contains(path)) {
            ctx.attribute(CALLER, Auth.Caller.SERVICE);
            return;
        }
        // A WebSocket upgrade matches no HTTP endpoint, so its path is checked by pattern.
        authenticate(
                ctx,
                STREAM_ROUTES.contains(matchedPath(ctx)) || WS_PATH.matcher(ctx.path()).matches());
    }

    private void authenticate(Context ctx, boolean queryToken) {
        String header = ctx.header("Authorization");
        String credential =
                header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
                        ? header.substring(7).trim()
                        : null;
        boolean inUrl = credential == null && queryToken;
        if (inUrl) {
            // EventSource and WebSocket cannot set headers; only the stream routes take this,
            // so that tokens stay out of the URLs (and logs) of every other route.
            credential = ctx.queryParam(ACCESS_TOKEN);
        }
        try {
            Auth.Caller caller = auth.authenticate(credential);
            if (inUrl && caller.userId() == 0) {
                // Proxies and access logs keep URLs: a user token there expires and reaches one
                // user, the service token would reach everyone for as long as it is configured.
                throw new ApiError(401, "the service token is taken only in a header");
            }
            ctx.attribute(CALLER, caller);
        } catch (ApiError e) {
            ctx.header("WWW-Authenticate", "Bearer");
            throw e;
        }
    }

    /** The path parameter {@code userId}, which the caller must be allowed to touch. */
    static long userParam(Context ctx) {
        long userId = Params.id("userId", ctx.pathParam("userId"));
        caller(ctx).require(userId);
        return userId;
    }

    static Auth.Caller caller(Context ctx) {
        return ctx.attribute(CALLER);
    }

    private static String matchedPath(Context ctx) {
        Endpoint endpoint = ctx.endpoints().matchedHttpEndpoint();
        return endpoint == null ? ctx.path() : endpoint.path;
    }

    /**
     * A {@code %} in the path that does not start two hex digits, such as {@code %u0031} (which
     * Jetty lets through), is malformed: 400, as Jetty answers {@code %ZZ}.
     */
    private void refuseBadEscapes(Context ctx) {
        if (MalformedUpgradeFilter.BAD_ESCAPE.matcher(ctx.req().getRequestURI()).find()) {
            throw ApiError.badRequest("malformed %-escape in the path");
        }
    }

    private void limitBody(Context ctx) {
        if (ctx.req().getContentLengthLong() > MAX_BODY_BYTES) {
            throw tooLarge();
        }
    }

    /** Reads the body, refusing one over the limit even when it comes without a length. */
    static byte[] body(Context ctx) {
        // Left open: a refusal reads the rest of an oversized body from the same stream (see
        // drainRefusedBody), and closing it first would leave those bytes for TCP to reset.
        try {
            byte[] body = ctx.req().getInputStream().readNBytes(MAX_BODY_BYTES + 1);
            if (body.length > MAX_BODY_BYTES) {
                throw tooLarge();
            }
            return body;
        } catch (IOException e) {
            throw ApiError.badRequest("body could not be read");
        }
    }

    /**
     * Reads and drops what is left of a refused request's body, up to {@link #MAX_DRAINED_BYTES} (a
     * body said to be longer is not waited for): closing a connection with unread bytes makes TCP
     * reset it, and the reset can overtake the answer, so the client of a 401, 404 or 413 sees only
     * a broken connection.
     */
    private static void drainRefusedBody(Context ctx) {
        if (ctx.req().getContentLengthLong() > MAX_DRAINED_BYTES) {
            return;
        }
        try (InputStream in = ctx.req().getInputStream()) {
            long left = MAX_DRAINED_BYTES;
            byte[] scrap = new byte[8192];
            int n;
            while (left > 0 && (n = in.read(scrap, 0, (int) Math.min(scrap.length, left))) > 0) {
                left -= n;
            }
        } catch (IOException | IllegalStateException e) {
            // The client is gone, sends less than it said, or the body was taken as a stream
            // already: it gets the answer or nothing.
        }
    }

    private static ApiError tooLarge() {
        return new ApiError(413, "body larger than " + MAX_BODY_BYTES + " bytes");
    }

    private void record(Context ctx, Float millis) {
        Endpoint endpoint = ctx.endpoints().matchedHttpEndpoint();
        String route = endpoint == null ? ApiMetrics.UNMATCHED : endpoint.path;
        metrics.request(ctx.method().name(), route, ctx.statusCode(), millis / 1000.0);
    }

    private void respond(Context ctx, int status, Object body) {
        try {
            ctx.status(status).contentType(JSON).result(json.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void error(Context ctx, int status, String message) {
        drainRefusedBody(ctx);
        ctx.status(status).contentType(JSON).result(JsonErrorHandler.body(status, message));
    }

    private <T extends AutoCloseable> T open(T resource) {
        resources.add(resource);
        return resource;
    }

    /** Created on first use, so that {@link #main} can configure logging before. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(StateQueryApi.class);
    }

    private static byte[] resource(String name) {
        try (InputStream in = StateQueryApi.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " missing from the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
