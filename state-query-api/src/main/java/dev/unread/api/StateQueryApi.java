package dev.unread.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.unread.contract.EventJson;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import io.javalin.router.Endpoint;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
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

    /** Paths served without the token: probes and scrapers, no user data. */
    static final Set<String> OPEN_PATHS = Set.of("/health", "/metrics", "/openapi.json");

    private static final String JSON = "application/json";
    private static final Pattern BAD_ESCAPE = Pattern.compile("%(?![0-9A-Fa-f]{2})");
    private static final String LOG_CONFIG = "dev/unread/api/log4j2-api.xml";
    private static final String OPENAPI_RESOURCE = "/dev/unread/api/openapi.json";

    private final ApiConfig config;
    private final ObjectMapper json;
    private final ApiMetrics metrics = new ApiMetrics();
    private final byte[] tokenHash;
    private final byte[] openApi;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final Map<String, Handler> routes = new LinkedHashMap<>();
    private final RedisUnread redis;
    private final MySqlCursorReader mysql;
    private final KafkaReads kafka;
    private final Health health;
    private final Javalin app;

    private StateQueryApi(ApiConfig config, HealthCheck extraCheck) {
        this.config = config;
        this.json = new ObjectMapper()
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        this.tokenHash = config.token == null ? null : sha256(config.token);
        this.openApi = resource(OPENAPI_RESOURCE);
        try {
            this.redis = open(new RedisUnread(config));
            this.mysql = open(new MySqlCursorReader(config));
            int healthTimeoutMs = Math.min(config.timeoutMs, MAX_HEALTH_TIMEOUT_MS);
            this.kafka = open(new KafkaReads(config, healthTimeoutMs));
            this.health = open(new Health(redis, mysql, kafka, extraCheck, metrics));
        } catch (RuntimeException e) {
            close();
            throw e;
        }

        routes.put("GET /api/users/{userId}/unread", this::userUnread);
        routes.put("GET /api/unread", this::usersUnread);
        routes.put("GET /api/users/{userId}/cursors", this::cursors);
        routes.put("POST /api/users/{userId}/inbox/opened", this::inboxOpened);
        routes.put("POST /api/conversations/{cid}/read", this::conversationRead);
        routes.put("GET /api/conversations/{cid}/readers", this::readers);
        routes.put("GET /health", this::health);
        routes.put("GET /metrics", this::metrics);
        routes.put("GET /openapi.json", this::openApi);
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
            System.err.println("usage: StateQueryApi (configured by UNREAD_* environment variables;"
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
        cfg.jetty.modifyHttpConfiguration(http -> {
            http.setRequestHeaderSize(MAX_REQUEST_HEADER_BYTES);
            http.setSendServerVersion(false);
        });
        cfg.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorHandler()));
        cfg.requestLogger.http(this::record);

        // Before routing: Javalin decodes path parameters while it matches a route, and a bad
        // escape there would throw from inside Javalin and end as a 500.
        cfg.routes.before(this::refuseBadEscapes);
        // After routing, so that a refused request is counted under its route; unknown paths
        // get 404 with or without a token (the routes are public in /openapi.json anyway).
        cfg.routes.beforeMatched(this::authenticate);
        cfg.routes.beforeMatched(this::limitBody);
        routes.forEach((route, handler) -> {
            String[] methodAndPath = route.split(" ", 2);
            if (methodAndPath[0].equals("GET")) {
                cfg.routes.get(methodAndPath[1], handler);
            } else {
                cfg.routes.post(methodAndPath[1], handler);
            }
        });

        cfg.routes.exception(ApiError.class, (e, ctx) -> error(ctx, e.status, e.getMessage()));
        cfg.routes.exception(DependencyException.class, (e, ctx) -> {
            metrics.dependencyError(e.dependency);
            // One line per failure: an outage must not flood the log with stack traces.
            Log.LOG.warn("{} {}: {} unavailable: {}", ctx.method(), ctx.path(), e.dependency,
                    String.valueOf(e.getCause()));
            Log.LOG.debug("{} failure", e.dependency, e.getCause());
            error(ctx, 503, e.getMessage());
        });
        cfg.routes.exception(HttpResponseException.class, (e, ctx) -> {
            // Javalin's own (404, 405, 413 ...): its message may echo input; send the phrase.
            error(ctx, e.getStatus(), HttpStatus.forStatus(e.getStatus()).getMessage());
        });
        cfg.routes.exception(Exception.class, (e, ctx) -> {
            Log.LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
            error(ctx, 500, "internal error");
        });
    }

    // --- handlers, one per route ---

    private void userUnread(Context ctx) {
        long userId = Params.id("userId", ctx.pathParam("userId"));
        respond(ctx, 200, redis.read(new long[] {userId}).get(0));
    }

    private void usersUnread(Context ctx) {
        long[] userIds = Params.idList("userIds", ctx.queryParams("userIds"));
        respond(ctx, 200, Map.of("users", redis.read(userIds)));
    }

    private void cursors(Context ctx) {
        long userId = Params.id("userId", ctx.pathParam("userId"));
        respond(ctx, 200, mysql.read(userId));
    }

    private void inboxOpened(Context ctx) {
        long userId = Params.id("userId", ctx.pathParam("userId"));
        publish(ctx, userId, EventJson.inboxOpened(userId, System.currentTimeMillis()));
    }

    private void conversationRead(Context ctx) {
        // The body first: an oversized one is a 413 whatever else is wrong, as with a length.
        byte[] bytes = body(ctx);
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        JsonNode body = Params.jsonObject(json, bytes);
        long userId = Params.longField(body, "userId", 1);
        long readSeq = Params.longField(body, "readSeq", 0);
        publish(
                ctx,
                userId,
                EventJson.conversationRead(
                        userId, conversationId, readSeq, System.currentTimeMillis()));
    }

    private void readers(Context ctx) {
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        long seq = Params.queryId("seq", ctx.queryParams("seq"));
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

    // --- around every request ---

    /** With a token configured, every route but {@link #OPEN_PATHS} needs it. */
    private void authenticate(Context ctx) {
        if (tokenHash == null || OPEN_PATHS.contains(ctx.path())) {
            return;
        }
        String header = ctx.header("Authorization");
        boolean bearer = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7);
        // Compare digests: equal lengths, and MessageDigest.isEqual takes the same time for
        // every content, so the response time tells nothing about the token.
        if (!bearer || !MessageDigest.isEqual(tokenHash, sha256(header.substring(7).trim()))) {
            ctx.header("WWW-Authenticate", "Bearer");
            throw new ApiError(401, "missing or wrong bearer token");
        }
    }

    /**
     * A {@code %} in the path that does not start two hex digits, such as {@code %u0031} (which
     * Jetty lets through), is malformed: 400, as Jetty answers {@code %ZZ}.
     */
    private void refuseBadEscapes(Context ctx) {
        if (BAD_ESCAPE.matcher(ctx.req().getRequestURI()).find()) {
            throw ApiError.badRequest("malformed %-escape in the path");
        }
    }

    private void limitBody(Context ctx) {
        long length = ctx.req().getContentLengthLong();
        if (length > MAX_BODY_BYTES) {
            if (length <= MAX_DRAINED_BYTES) {
                try (InputStream in = ctx.req().getInputStream()) {
                    drain(in);
                } catch (IOException e) {
                    // The client is gone or sends less than it said: it gets the 413 or nothing.
                }
            }
            throw tooLarge();
        }
    }

    /** Reads the body, refusing one over the limit even when it comes without a length. */
    private static byte[] body(Context ctx) {
        try (InputStream in = ctx.req().getInputStream()) {
            byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
            if (body.length > MAX_BODY_BYTES) {
                drain(in);
                throw tooLarge();
            }
            return body;
        } catch (IOException e) {
            throw ApiError.badRequest("body could not be read");
        }
    }

    /**
     * Reads and drops what is left of a refused body, up to {@link #MAX_DRAINED_BYTES}: closing a
     * connection with unread bytes makes TCP reset it, and the reset can overtake the 413 so the
     * client sees only a broken connection.
     */
    private static void drain(InputStream in) throws IOException {
        long left = MAX_DRAINED_BYTES;
        byte[] scrap = new byte[8192];
        int n;
        while (left > 0 && (n = in.read(scrap, 0, (int) Math.min(scrap.length, left))) > 0) {
            left -= n;
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

    private void publish(Context ctx, long userId, String text) {
        kafka.publish(userId, text);
        ctx.status(202).contentType(JSON).result(text);
    }

    private void respond(Context ctx, int status, Object body) {
        try {
            ctx.status(status).contentType(JSON).result(json.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void error(Context ctx, int status, String message) {
        ctx.status(status).contentType(JSON).result(JsonErrorHandler.body(status, message));
    }

    private <T extends AutoCloseable> T open(T resource) {
        resources.add(resource);
        return resource;
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
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
