package dev.unread.cli;

import dev.unread.api.ApiConfig;
import dev.unread.api.StateQueryApi;
import dev.unread.config.UnreadConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code unread api}: the HTTP API alone, in front of a job that runs elsewhere, configured by the
 * {@code UNREAD_*} environment as {@link ApiConfig#fromEnv} reads it.
 */
final class ApiCommand {

    static final String NAME = "api";

    private ApiCommand() {}

    /** Serves until Ctrl-C (or SIGTERM), then stops the server and its clients. */
    static int run(List<String> args, Unread.Session session) throws Exception {
        ApiConfig config = config(args, session.env());
        CountDownLatch stop = new CountDownLatch(1);
        boolean trapped = Signals.trap(stop::countDown, "INT", "TERM");
        StateQueryApi api = StateQueryApi.start(config);
        // Without the signal handlers, the JVM's shutdown closes the server instead.
        Thread hook = new Thread(api::close, "unread-api-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            session.out()
                    .printf(
                            "unread API listening on http://%s:%d - Ctrl-C stops%n",
                            config.host, api.port());
            session.out().flush();
            stop.await();
            return Unread.OK;
        } finally {
            api.close();
            if (trapped) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // The JVM is already shutting down; closing twice is harmless.
                }
            }
        }
    }

    /** The environment's settings, with {@code --port} winning over {@code UNREAD_API_PORT}. */
    static ApiConfig config(List<String> args, Map<String, String> env) {
        Map<String, String> flags;
        try {
            flags = UnreadConfig.parseFlags(args.toArray(String[]::new));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
        for (String name : flags.keySet()) {
            if (!name.equals("port")) {
                throw new UsageException(
                        "unknown flag --" + name + "; the API is configured by UNREAD_* variables");
            }
        }
        try {
            ApiConfig config = ApiConfig.fromEnv(env);
            String port = flags.get("port");
            if (port == null) {
                return config;
            }
            try {
                return config.toBuilder().port(Integer.parseInt(port.trim())).build();
            } catch (NumberFormatException e) {
                throw new UsageException("--port must be a whole number, was " + port);
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
    }

    static String usage() {
        return """
        Usage: unread api [--port PORT]

        Runs the HTTP API alone: unread counts from Redis, read cursors from MySQL, and
        read events published to Kafka, for a job that runs elsewhere. Prints the address
        once it listens; Ctrl-C stops it. It starts even while Redis, MySQL or Kafka are
        down: requests that need them get 503, and GET /health names them.

        Flags:
          --port PORT                port to listen on (default UNREAD_API_PORT, else 8080;
                                     0: any free port)

        Environment (default):
          UNREAD_API_HOST            address to bind (127.0.0.1)
          UNREAD_API_PORT            port (8080)
          UNREAD_API_TOKEN           bearer token every route but /health, /metrics and
                                     /openapi.json needs (unset: none)
          UNREAD_API_JWT_SECRET      HS256 key of per-user JWTs, at least 32 bytes (unset)
          UNREAD_API_JWT_PUBLIC_KEY  or the RS256 public key of per-user JWTs, PEM (unset)
          UNREAD_API_TIMEOUT_MS      bound on each Redis, MySQL or Kafka call (5000)
          UNREAD_REDIS_URL           redis://127.0.0.1:6379/0
          UNREAD_REDIS_KEY_PREFIX    (empty)
          UNREAD_JDBC_URL            jdbc:mysql://127.0.0.1:3306/test
          UNREAD_JDBC_USER           root
          UNREAD_JDBC_PASSWORD       (empty)
          UNREAD_KAFKA_BOOTSTRAP     127.0.0.1:9092
          UNREAD_READS_TOPIC         chat-reads

        Endpoints, errors and examples: state-query-api/README.md.
        """;
    }
}
