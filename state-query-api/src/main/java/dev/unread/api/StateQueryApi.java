package dev.unread.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API of docs/contract.md: unread counts from Redis, read cursors from MySQL, read events
 * to Kafka. {@link #start} runs it inside another program (the {@code unread} CLI); {@link #main}
 * runs it alone, configured by the environment. This class opens the clients and wires the routes
 * of {@link ApiRoutes} to them; the handlers live with their resource.
 */
public final class StateQueryApi implements AutoCloseable {

    /** A health probe must answer quickly, even with a long dependency timeout. */
    private static final int MAX_HEALTH_TIMEOUT_MS = 2000;

    private static final String LOG_CONFIG = "dev/unread/api/log4j2-api.xml";

    /** The path of {@code userId}'s Server-Sent Events stream, for the clients that open one. */
    public static String eventsPath(long userId) {
        return ApiRoutes.EVENTS.replace("{userId}", Long.toString(userId));
    }

    private final ApiConfig config;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ApiRoutes routes;
    private final Javalin app;

    private StateQueryApi(ApiConfig config, HealthCheck extraCheck) {
        this.config = config;
        ObjectMapper json =
                new ObjectMapper()
                        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                        .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        ApiMetrics metrics = new ApiMetrics();
        Auth auth = new Auth(config);
        RequestLimits limits = new RequestLimits(config);
        RequestGuards guards = new RequestGuards(config, auth.enabled());
        try {
            RedisUnread redis = open(new RedisUnread(config, metrics));
            RedisWrites writes = new RedisWrites(redis, config.redisKeyPrefix);
            LiveStreams streams = open(new LiveStreams(config, redis, writes, json, metrics));
            MySqlCursorReader mysql = open(new MySqlCursorReader(config));
            int healthTimeoutMs = Math.min(config.timeoutMs, MAX_HEALTH_TIMEOUT_MS);
            KafkaReads kafka = open(new KafkaReads(config, healthTimeoutMs));
            Health health = open(new Health(redis, mysql, kafka, extraCheck, metrics));
            AccessControl access = new AccessControl(auth, redis, limits);
            this.routes =
                    new ApiRoutes(
                            new CountRoutes(config, json, redis, mysql, access),
                            new UserActions(json, writes, kafka, access),
                            new StreamRoutes(config, streams, metrics, access, guards, limits),
                            new OpsRoutes(json, metrics, health, access));
            ServerSetup server = new ServerSetup(routes, access, guards, limits, metrics);
            this.app = Javalin.create(server::configure);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
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

    /** "METHOD /path" of every HTTP route, as registered. */
    List<String> routes() {
        return routes.http().stream().map(ApiRoute::key).toList();
    }

    /** The HTTP routes served, as declared. */
    List<ApiRoute> routeTable() {
        return routes.http();
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

    private <T extends AutoCloseable> T open(T resource) {
        resources.add(resource);
        return resource;
    }

    /** Created on first use, so that {@link #main} can configure logging before. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(StateQueryApi.class);
    }
}
