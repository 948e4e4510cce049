package dev.unread.api;

import dev.unread.contract.Setting;
import dev.unread.contract.Settings;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The settings of the HTTP API, each declared once: its variable, default, bounds and what it is
 * for, from which {@link ApiConfig} reads it, help lists it and docs/contract.md ("API settings")
 * has its row. The shared ones are the job's ({@link Settings}), with the same {@code UNREAD_*}
 * variables and defaults, so one environment configures both; the API's own start with {@code
 * UNREAD_API_}. The API takes no flags.
 *
 * <p>{@link ApiConfig} implements this interface only so that callers name the settings as they
 * always have, {@code ApiConfig.PORT}; nothing else should.
 */
public interface ApiSettings {

    /** A constant, for the flags of the tools that start the API to show as their default. */
    String DEFAULT_PORT = "8080";

    /**
     * The service token reaches every user's data: 16 random printable characters are about 100
     * bits, out of reach of guessing at any request rate; a shorter one is a password.
     */
    int MIN_TOKEN_LENGTH = 16;

    Setting<String> HOST =
            Setting.text("api-host", "127.0.0.1")
                    .described(
                            "address to bind; with no token nor JWT key, only a loopback address"
                                    + " unless `UNREAD_API_OPEN_WITHOUT_AUTH`");
    Setting<Integer> PORT =
            Setting.integer("api-port", Integer.parseInt(DEFAULT_PORT), 0, 65535)
                    .described("0 picks a free port");
    Setting<String> TOKEN =
            Setting.secret("api-token", null)
                    .described(
                            "printable ASCII without spaces, at least "
                                    + MIN_TOKEN_LENGTH
                                    + " characters; every route but `/health`, `/metrics` and"
                                    + " `/openapi.json` needs it; unset or empty: no service token");
    Setting<Integer> TIMEOUT_MS =
            Setting.integer("api-timeout-ms", 5000, 250)
                    .described("bound on each call to Redis, MySQL or Kafka");

    /** Without a token or JWT key, the API serves every user's data to whoever reaches it. */
    Setting<Boolean> OPEN_WITHOUT_AUTH =
            Setting.bool("api-open-without-auth", false)
                    .described(
                            "`true`: with no token nor JWT key, listen beyond loopback and answer"
                                    + " any `Host` (a network you trust)");

    Setting<List<String>> ALLOWED_ORIGINS =
            Setting.of(
                            "api-allowed-origins",
                            "",
                            text -> commaSeparated(text, UnaryOperator.identity()))
                    .described(
                            "comma-separated origins (`https://app.example`, or `*`) whose pages"
                                    + " may open the WebSocket and send writes besides the API's"
                                    + " own")
                    .shownAs(origins -> String.join(",", origins));
    Setting<String> JWT_SECRET =
            Setting.secret("api-jwt-secret", null)
                    .described("HS256 key of user tokens, at least 32 bytes");
    Setting<String> JWT_PUBLIC_KEY =
            Setting.secret("api-jwt-public-key", null)
                    .described("RS256 public key of user tokens, PEM; not with the secret");
    Setting<String> JWT_ISSUER =
            Setting.text("api-jwt-issuer", "")
                    .described("when set, every user token's `iss` must equal it");

    /** Unset, a token with an {@code aud} was made for another service. */
    Setting<String> JWT_AUDIENCE =
            Setting.text("api-jwt-audience", "")
                    .described(
                            "when set, every user token's `aud` must name it; empty: a token"
                                    + " carrying any `aud` is refused");

    Setting<Integer> JWT_MAX_LIFETIME_SECONDS =
            Setting.integer("api-jwt-max-lifetime-seconds", 86400, 60)
                    .described(
                            "a user token whose `exp` is further than this from its `iat` (or from"
                                    + " now) is refused");
    Setting<Integer> STREAM_HEARTBEAT_MS =
            Setting.integer("api-stream-heartbeat-ms", 15000, 100)
                    .described(
                            "an idle live stream gets a heartbeat this often (keep it below the"
                                    + " idle timeouts of proxies and of Jetty, 30 s)");
    Setting<Integer> STREAM_BUFFER =
            Setting.integer("api-stream-buffer", 256, 2)
                    .described(
                            "messages a live stream may have waiting; one more cuts the client"
                                    + " off");
    Setting<Integer> STREAM_WRITE_TIMEOUT_MS =
            Setting.integer("api-stream-write-timeout-ms", 10000, 100)
                    .described("a write to a live stream blocked this long cuts the client off");
    Setting<Integer> STREAM_SENDER_THREADS =
            Setting.integer("api-stream-sender-threads", 16, 1)
                    .described("threads writing to all the live streams");
    Setting<Integer> STREAM_MAX_PER_USER =
            Setting.integer("api-stream-max-per-user", 8, 1)
                    .described(
                            "live streams one user may have open on one instance; one more gets"
                                    + " 429");
    Setting<Integer> STREAM_MAX_TOTAL =
            Setting.integer("api-stream-max-total", 10000, 1)
                    .described("live streams one instance serves in all; one more gets 429");
    Setting<Integer> USER_WRITES_PER_SECOND =
            Setting.integer("api-user-writes-per-second", 10, 0)
                    .described(
                            "0: off; writes (every `POST` and `PUT`) one user may make a second, "
                                    + RateLimiter.BURST_SECONDS
                                    + " s of them at once; one more gets 429 with `Retry-After`");
    Setting<Integer> USER_STREAM_OPENS_PER_MINUTE =
            Setting.integer("api-user-stream-opens-per-minute", 60, 0)
                    .described(
                            "0: off; live streams one user may open a minute on one instance, a"
                                    + " minute's worth at once; one more gets 429 with"
                                    + " `Retry-After`");

    /**
     * Only failures count: a valid caller behind the same proxy or NAT as an attacker would
     * otherwise be refused with it.
     */
    Setting<Integer> ADDRESS_REQUESTS_PER_SECOND =
            Setting.integer("api-address-requests-per-second", 50, 0)
                    .described(
                            "0: off; requests failing authentication (401) one client address may"
                                    + " make a second, "
                                    + RateLimiter.BURST_SECONDS
                                    + " s of them at once; past it they get 429; an IPv6 client"
                                    + " is its /64; a valid token is never refused by it");

    /** Behind a proxy every client has the proxy's address, unless the proxy is trusted. */
    Setting<List<String>> TRUSTED_PROXIES =
            Setting.of(
                            "api-trusted-proxies",
                            "",
                            text -> commaSeparated(text, ClientAddress::requireBlock))
                    .described(
                            "comma-separated addresses and CIDR blocks (`10.0.0.0/8`) of the"
                                    + " proxies in front of the API: a request from one is limited"
                                    + " by the nearest untrusted address in `X-Forwarded-For`;"
                                    + " empty: by the connection's address");

    Setting<Integer> BATCH_MAX_ANSWER_BYTES =
            Setting.integer("api-batch-max-answer-bytes", 4194304, 1024)
                    .described(
                            "the largest answer of `GET /api/unread`; a larger one is refused with"
                                    + " 413");
    Setting<Integer> LIMITER_MAX_KEYS =
            Setting.integer("api-limiter-max-keys", 100000, 1)
                    .described(
                            "users and addresses each rate limit tracks at most (fixed memory);"
                                    + " past it the least recently seen is forgotten, and starts"
                                    + " again with a full allowance");

    /** Every setting the API reads, in the order help and docs/contract.md list them. */
    List<Setting<?>> ALL =
            List.of(
                    HOST,
                    PORT,
                    TOKEN,
                    TIMEOUT_MS,
                    OPEN_WITHOUT_AUTH,
                    ALLOWED_ORIGINS,
                    JWT_SECRET,
                    JWT_PUBLIC_KEY,
                    JWT_ISSUER,
                    JWT_AUDIENCE,
                    JWT_MAX_LIFETIME_SECONDS,
                    Settings.REDIS_URL,
                    Settings.REDIS_CLUSTER_NODES,
                    Settings.REDIS_CA_FILE,
                    Settings.REDIS_KEY_PREFIX,
                    Settings.JDBC_URL,
                    Settings.JDBC_USER,
                    Settings.JDBC_PASSWORD,
                    Settings.KAFKA_BOOTSTRAP,
                    Settings.KAFKA_PROPERTIES,
                    Settings.READS_TOPIC,
                    STREAM_HEARTBEAT_MS,
                    STREAM_BUFFER,
                    STREAM_WRITE_TIMEOUT_MS,
                    STREAM_SENDER_THREADS,
                    STREAM_MAX_PER_USER,
                    STREAM_MAX_TOTAL,
                    USER_WRITES_PER_SECOND,
                    USER_STREAM_OPENS_PER_MINUTE,
                    ADDRESS_REQUESTS_PER_SECOND,
                    TRUSTED_PROXIES,
                    BATCH_MAX_ANSWER_BYTES,
                    LIMITER_MAX_KEYS);

    /**
     * The values of a comma-separated list, trimmed, empty ones dropped, each through {@code
     * check}.
     */
    private static List<String> commaSeparated(String text, UnaryOperator<String> check) {
        return Arrays.stream(text.split(","))
                .map(String::trim)
                .filter(value -> !value.isEmpty())
                .map(check)
                .toList();
    }

    /** The settings of {@link #ALL} that are not secrets. */
    List<Setting<?>> SETTINGS = ALL.stream().filter(setting -> !setting.secret()).toList();

    /** The variables of the secrets of {@link #ALL}: no flag, never shown. */
    List<String> SECRETS = ALL.stream().filter(Setting::secret).map(Setting::env).toList();

    String HOST_ENV = HOST.env();
    String PORT_ENV = PORT.env();
    String TOKEN_ENV = TOKEN.env();
    String JWT_SECRET_ENV = JWT_SECRET.env();
    String JWT_PUBLIC_KEY_ENV = JWT_PUBLIC_KEY.env();
    String TIMEOUT_ENV = TIMEOUT_MS.env();
    String STREAM_HEARTBEAT_ENV = STREAM_HEARTBEAT_MS.env();
    String STREAM_BUFFER_ENV = STREAM_BUFFER.env();
    String STREAM_WRITE_TIMEOUT_ENV = STREAM_WRITE_TIMEOUT_MS.env();
    String STREAM_SENDER_THREADS_ENV = STREAM_SENDER_THREADS.env();
    String REDIS_URL_ENV = Settings.REDIS_URL.env();
    String REDIS_CLUSTER_NODES_ENV = Settings.REDIS_CLUSTER_NODES.env();
    String REDIS_CA_FILE_ENV = Settings.REDIS_CA_FILE.env();
    String REDIS_KEY_PREFIX_ENV = Settings.REDIS_KEY_PREFIX.env();
    String JDBC_URL_ENV = Settings.JDBC_URL.env();
    String JDBC_USER_ENV = Settings.JDBC_USER.env();
    String JDBC_PASSWORD_ENV = Settings.JDBC_PASSWORD_ENV;
    String KAFKA_BOOTSTRAP_ENV = Settings.KAFKA_BOOTSTRAP.env();
    String READS_TOPIC_ENV = Settings.READS_TOPIC.env();
    String KAFKA_PROPERTIES_ENV = Settings.KAFKA_PROPERTIES.env();
}
