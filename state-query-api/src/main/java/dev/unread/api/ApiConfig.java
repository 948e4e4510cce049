package dev.unread.api;

import dev.unread.contract.KafkaClientProperties;
import dev.unread.contract.RedisEndpoint;
import dev.unread.contract.Setting;
import dev.unread.contract.Settings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Settings of the HTTP API. The shared ones use the same {@code UNREAD_*} variables and defaults as
 * the Flink job, so one environment configures both; the API's own ones start with {@code
 * UNREAD_API_}. Built from the environment ({@link #fromEnv}) or in code ({@link #builder()}), as
 * the CLI and the tests do.
 */
public final class ApiConfig {

    public static final Setting HOST = new Setting("api-host", "127.0.0.1");

    /** A constant, for the flags of the tools that start the API to show as their default. */
    public static final String DEFAULT_PORT = "8080";

    public static final Setting PORT = new Setting("api-port", DEFAULT_PORT);
    public static final Setting TIMEOUT_MS = new Setting("api-timeout-ms", "5000");
    public static final Setting STREAM_HEARTBEAT_MS =
            new Setting("api-stream-heartbeat-ms", "15000");
    public static final Setting STREAM_BUFFER = new Setting("api-stream-buffer", "256");
    public static final Setting STREAM_WRITE_TIMEOUT_MS =
            new Setting("api-stream-write-timeout-ms", "10000");
    public static final Setting STREAM_SENDER_THREADS =
            new Setting("api-stream-sender-threads", "16");
    public static final Setting STREAM_MAX_PER_USER = new Setting("api-stream-max-per-user", "8");
    public static final Setting STREAM_MAX_TOTAL = new Setting("api-stream-max-total", "10000");

    /** Writes one user may make a second; the bucket holds {@link RateLimiter#BURST_SECONDS}'. */
    public static final Setting USER_WRITES_PER_SECOND =
            new Setting("api-user-writes-per-second", "10");

    /** Live streams one user may open a minute here; as many may open at once. */
    public static final Setting USER_STREAM_OPENS_PER_MINUTE =
            new Setting("api-user-stream-opens-per-minute", "60");

    /**
     * Writes and stream opens one client address may make a second, before its token is looked at;
     * behind a proxy every client has the proxy's address, so raise it there or set 0 (off).
     */
    public static final Setting ADDRESS_REQUESTS_PER_SECOND =
            new Setting("api-address-requests-per-second", "50");

    /** The largest answer of a batch read; a larger one is refused with 413. */
    public static final Setting BATCH_MAX_ANSWER_BYTES =
            new Setting("api-batch-max-answer-bytes", "4194304");

    /** Users and addresses each rate limiter tracks at most, the least recently seen dropped. */
    public static final Setting LIMITER_MAX_KEYS = new Setting("api-limiter-max-keys", "100000");

    /** When set, a user token must carry this {@code iss}. */
    public static final Setting JWT_ISSUER = new Setting("api-jwt-issuer", "");

    /**
     * When set, a user token's {@code aud} must name it; unset, a token carrying any {@code aud} is
     * refused: it was made for another service.
     */
    public static final Setting JWT_AUDIENCE = new Setting("api-jwt-audience", "");

    /** The longest a user token may live: from {@code iat}, or from now, to {@code exp}. */
    public static final Setting JWT_MAX_LIFETIME_SECONDS =
            new Setting("api-jwt-max-lifetime-seconds", "86400");

    /**
     * With no token nor JWT key, the API serves every user's data to whoever reaches it: it then
     * listens on loopback only, unless this says the network in front of it is trusted.
     */
    public static final Setting OPEN_WITHOUT_AUTH = new Setting("api-open-without-auth", "false");

    /**
     * Origins ({@code https://app.example}, comma-separated) whose pages may open a WebSocket, in
     * addition to the API's own; {@code *}: any.
     */
    public static final Setting ALLOWED_ORIGINS = new Setting("api-allowed-origins", "");

    /** The API reads its settings from the environment alone. */
    private static final Map<String, String> NO_FLAGS = Map.of();

    public static final String HOST_ENV = HOST.env();
    public static final String PORT_ENV = PORT.env();

    /** A secret: from the environment only. */
    public static final String TOKEN_ENV = "UNREAD_API_TOKEN";

    /**
     * The service token reaches every user's data: 16 random printable characters are about 100
     * bits, out of reach of guessing at any request rate; a shorter one is a password.
     */
    public static final int MIN_TOKEN_LENGTH = 16;

    /** A secret: the HS256 key of per-user JWTs, from the environment only. */
    public static final String JWT_SECRET_ENV = "UNREAD_API_JWT_SECRET";

    /** The RS256 public key (PEM) of per-user JWTs; from the environment, as the secret. */
    public static final String JWT_PUBLIC_KEY_ENV = "UNREAD_API_JWT_PUBLIC_KEY";

    public static final String TIMEOUT_ENV = TIMEOUT_MS.env();
    public static final String STREAM_HEARTBEAT_ENV = STREAM_HEARTBEAT_MS.env();
    public static final String STREAM_BUFFER_ENV = STREAM_BUFFER.env();
    public static final String STREAM_WRITE_TIMEOUT_ENV = STREAM_WRITE_TIMEOUT_MS.env();
    public static final String STREAM_SENDER_THREADS_ENV = STREAM_SENDER_THREADS.env();
    public static final String REDIS_URL_ENV = Settings.REDIS_URL.env();
    public static final String REDIS_CLUSTER_NODES_ENV = Settings.REDIS_CLUSTER_NODES.env();
    public static final String REDIS_CA_FILE_ENV = Settings.REDIS_CA_FILE.env();
    public static final String REDIS_KEY_PREFIX_ENV = Settings.REDIS_KEY_PREFIX.env();
    public static final String JDBC_URL_ENV = Settings.JDBC_URL.env();
    public static final String JDBC_USER_ENV = Settings.JDBC_USER.env();
    public static final String JDBC_PASSWORD_ENV = Settings.JDBC_PASSWORD_ENV;
    public static final String KAFKA_BOOTSTRAP_ENV = Settings.KAFKA_BOOTSTRAP.env();
    public static final String READS_TOPIC_ENV = Settings.READS_TOPIC.env();
    public static final String KAFKA_PROPERTIES_ENV = Settings.KAFKA_PROPERTIES.env();

    /**
     * The settings {@link #fromEnv} reads, in the order the API's help lists them; besides these it
     * reads only the {@link #SECRETS}.
     */
    public static final List<Setting> SETTINGS =
            List.of(
                    HOST,
                    PORT,
                    TIMEOUT_MS,
                    OPEN_WITHOUT_AUTH,
                    ALLOWED_ORIGINS,
                    JWT_ISSUER,
                    JWT_AUDIENCE,
                    JWT_MAX_LIFETIME_SECONDS,
                    Settings.REDIS_URL,
                    Settings.REDIS_CLUSTER_NODES,
                    Settings.REDIS_CA_FILE,
                    Settings.REDIS_KEY_PREFIX,
                    Settings.JDBC_URL,
                    Settings.JDBC_USER,
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
                    BATCH_MAX_ANSWER_BYTES,
                    LIMITER_MAX_KEYS);

    /** The variables {@link #fromEnv} reads that hold secrets: unset by default, and no flag. */
    public static final List<String> SECRETS =
            List.of(TOKEN_ENV, JWT_SECRET_ENV, JWT_PUBLIC_KEY_ENV, JDBC_PASSWORD_ENV);

    /** Address to bind; loopback by default so that nothing is exposed by accident. */
    public final String host;

    /** 0 binds any free port; {@link StateQueryApi#port()} tells which. */
    public final int port;

    /**
     * Bearer token (printable ASCII) every request must carry, except to {@code /health}, {@code
     * /metrics} and {@code /openapi.json}; null: no authentication.
     */
    public final String token;

    /**
     * HS256 key (at least 32 bytes) of per-user JWTs, whose {@code sub} is the one user they may
     * read and act for; null: no JWTs. At most one of this and {@link #jwtPublicKey}.
     */
    public final String jwtSecret;

    /** RS256 public key in PEM of per-user JWTs; null: none. */
    public final String jwtPublicKey;

    /** Serve without a token beyond loopback, and to any Host name. */
    public final boolean openWithoutAuth;

    /** Origins allowed to open a WebSocket besides the API's own; may hold {@code *}. */
    public final List<String> allowedOrigins;

    /** The {@code iss} every user token must carry; empty: not checked. */
    public final String jwtIssuer;

    /** The {@code aud} every user token must name; empty: tokens with an {@code aud} refused. */
    public final String jwtAudience;

    /** The longest lifetime a user token may claim. */
    public final int jwtMaxLifetimeSeconds;

    /**
     * Bound on each call to a dependency: the Kafka acknowledgement of a POST, taking a MySQL
     * connection, a Redis connect or read, each health check (at most 2 s there).
     */
    public final int timeoutMs;

    /** A live stream idle this long gets a heartbeat (an SSE comment, a WebSocket ping). */
    public final int streamHeartbeatMs;

    /** Messages a live stream may have waiting; one more and the client is cut off. */
    public final int streamBuffer;

    /** A write to a live stream blocked this long cuts the client off. */
    public final int streamWriteTimeoutMs;

    /** Threads writing to the live streams, shared by all of them. */
    public final int streamSenderThreads;

    /** Live streams one user may have open on this instance; one more gets 429. */
    public final int streamMaxPerUser;

    /** Live streams this instance serves in all; one more gets 429. */
    public final int streamMaxTotal;

    /** The rate limits (0: off) and caps of {@link #USER_WRITES_PER_SECOND} and the next ones. */
    public final int userWritesPerSecond;

    public final int userStreamOpensPerMinute;
    public final int addressRequestsPerSecond;
    public final int batchMaxAnswerBytes;
    public final int limiterMaxKeys;

    /** {@code redis[s]://[[user]:password@]host:port/db}, {@code rediss://} for TLS. */
    public final String redisUrl;

    /** Seed nodes {@code host:port,...} of a Redis Cluster; empty: the one node of the URL. */
    public final String redisClusterNodes;

    /** PEM file of the CAs a TLS Redis is checked against; empty: the JVM's. */
    public final String redisCaFile;

    /** Put before every Redis key, as the job does; empty by default. */
    public final String redisKeyPrefix;

    public final String jdbcUrl;
    public final String jdbcUser;
    public final String jdbcPassword;
    public final String kafkaBootstrap;

    /**
     * Kafka client settings (SASL, TLS, timeouts) for the producer and the health check's admin
     * client, from the {@code UNREAD_KAFKA_PROPERTIES} file; none by default. May hold secrets:
     * never log it but through {@link KafkaClientProperties#masked}.
     */
    public final Map<String, String> kafkaProperties;

    /** Topic the POST endpoints publish read events to. */
    public final String readsTopic;

    private ApiConfig(Builder b) {
        host = require(b.host, "host");
        port = b.port;
        token = b.token == null || b.token.isEmpty() ? null : b.token;
        jwtSecret = b.jwtSecret == null || b.jwtSecret.isEmpty() ? null : b.jwtSecret;
        jwtPublicKey = b.jwtPublicKey == null || b.jwtPublicKey.isBlank() ? null : b.jwtPublicKey;
        openWithoutAuth = b.openWithoutAuth;
        allowedOrigins =
                b.allowedOrigins == null
                        ? List.of()
                        : Arrays.stream(b.allowedOrigins.split(","))
                                .map(String::trim)
                                .filter(o -> !o.isEmpty())
                                .toList();
        jwtIssuer = b.jwtIssuer == null ? "" : b.jwtIssuer;
        jwtAudience = b.jwtAudience == null ? "" : b.jwtAudience;
        jwtMaxLifetimeSeconds = b.jwtMaxLifetimeSeconds;
        if (jwtMaxLifetimeSeconds < 60) {
            throw new IllegalArgumentException(
                    JWT_MAX_LIFETIME_SECONDS.env()
                            + " must be at least 60, was "
                            + jwtMaxLifetimeSeconds);
        }
        timeoutMs = b.timeoutMs;
        streamHeartbeatMs = b.streamHeartbeatMs;
        streamBuffer = b.streamBuffer;
        streamWriteTimeoutMs = b.streamWriteTimeoutMs;
        streamSenderThreads = b.streamSenderThreads;
        streamMaxPerUser = b.streamMaxPerUser;
        streamMaxTotal = b.streamMaxTotal;
        userWritesPerSecond = b.userWritesPerSecond;
        userStreamOpensPerMinute = b.userStreamOpensPerMinute;
        addressRequestsPerSecond = b.addressRequestsPerSecond;
        batchMaxAnswerBytes = b.batchMaxAnswerBytes;
        limiterMaxKeys = b.limiterMaxKeys;
        if (userWritesPerSecond < 0
                || userStreamOpensPerMinute < 0
                || addressRequestsPerSecond < 0
                || batchMaxAnswerBytes < 1024
                || limiterMaxKeys < 1) {
            throw new IllegalArgumentException(
                    "limits must be at least: 0 (off) for rates, 1024 bytes of batch answer,"
                            + " 1 key per limiter");
        }
        redisUrl = require(b.redisUrl, "redis URL");
        redisClusterNodes = b.redisClusterNodes == null ? "" : b.redisClusterNodes;
        redisCaFile = b.redisCaFile == null ? "" : b.redisCaFile;
        redisKeyPrefix = b.redisKeyPrefix == null ? "" : b.redisKeyPrefix;
        jdbcUrl = require(b.jdbcUrl, "JDBC URL");
        jdbcUser = require(b.jdbcUser, "JDBC user");
        jdbcPassword = b.jdbcPassword == null ? "" : b.jdbcPassword;
        kafkaBootstrap = require(b.kafkaBootstrap, "Kafka bootstrap servers");
        kafkaProperties = Map.copyOf(b.kafkaProperties);
        readsTopic = require(b.readsTopic, "reads topic");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, was " + port);
        }
        if (timeoutMs < 250) {
            throw new IllegalArgumentException("timeout must be >= 250 ms, was " + timeoutMs);
        }
        if (token != null && !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            // A header value carries ASCII only; anything else could never match.
            throw new IllegalArgumentException("token must be printable ASCII without spaces");
        }
        if (token != null && token.length() < MIN_TOKEN_LENGTH) {
            // The value is not shown: it is a secret, however weak.
            throw new IllegalArgumentException(
                    TOKEN_ENV + " must be at least " + MIN_TOKEN_LENGTH + " characters");
        }
        if (streamHeartbeatMs < 100
                || streamBuffer < 2
                || streamWriteTimeoutMs < 100
                || streamSenderThreads < 1
                || streamMaxPerUser < 1
                || streamMaxTotal < 1) {
            throw new IllegalArgumentException(
                    "stream settings must be at least: heartbeat 100 ms, buffer 2,"
                            + " write timeout 100 ms, 1 sender thread, 1 stream per user and in all");
        }
        if (jwtSecret != null && jwtPublicKey != null) {
            throw new IllegalArgumentException(
                    JWT_SECRET_ENV + " and " + JWT_PUBLIC_KEY_ENV + " must not both be set");
        }
        if (jwtSecret != null && jwtSecret.getBytes(StandardCharsets.UTF_8).length < 32) {
            // HS256 needs a key of at least 256 bits (RFC 7518, 3.2); the value is not shown.
            throw new IllegalArgumentException(JWT_SECRET_ENV + " must be at least 32 bytes");
        }
        if (jwtPublicKey != null) {
            Auth.rsaPublicKey(jwtPublicKey);
        }
        if (!jdbcUrl.startsWith("jdbc:mysql:")) {
            // Without the value: it may hold a password parameter.
            throw new IllegalArgumentException("JDBC URL must start with jdbc:mysql:");
        }
        redisEndpoint();
        if (token == null
                && jwtSecret == null
                && jwtPublicKey == null
                && !openWithoutAuth
                && !loopback(host)) {
            throw new IllegalArgumentException(
                    HOST_ENV
                            + "="
                            + host
                            + " without "
                            + TOKEN_ENV
                            + " or a JWT key would serve every user's data to the network: set"
                            + " a token, or "
                            + OPEN_WITHOUT_AUTH.env()
                            + "=true behind a boundary you trust");
        }
    }

    /** Whether {@code host} names this machine's loopback only (a literal, or localhost). */
    static boolean loopback(String host) {
        String name =
                host.startsWith("[") && host.endsWith("]")
                        ? host.substring(1, host.length() - 1)
                        : host;
        if (name.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (!name.matches("[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*")) {
            // A name other than localhost: the resolver, or a rebinding, decides where it points.
            return false;
        }
        try {
            return InetAddress.getByName(name).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** The defaults: every dependency on 127.0.0.1 at its usual port, no token, port 8080. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The defaults overridden by those of {@code env} (usually {@code System.getenv()}) set, each
     * read by {@link Setting#from} as the job reads its settings; the API takes no flags.
     */
    public static ApiConfig fromEnv(Map<String, String> env) {
        Builder b = builder();
        b.host = HOST.from(NO_FLAGS, env);
        b.port = wholeNumber(PORT, env);
        b.token = env.get(TOKEN_ENV);
        b.jwtSecret = env.get(JWT_SECRET_ENV);
        b.jwtPublicKey = env.get(JWT_PUBLIC_KEY_ENV);
        b.openWithoutAuth = Boolean.parseBoolean(OPEN_WITHOUT_AUTH.from(NO_FLAGS, env));
        b.allowedOrigins = ALLOWED_ORIGINS.from(NO_FLAGS, env);
        b.jwtIssuer = JWT_ISSUER.from(NO_FLAGS, env);
        b.jwtAudience = JWT_AUDIENCE.from(NO_FLAGS, env);
        b.jwtMaxLifetimeSeconds = wholeNumber(JWT_MAX_LIFETIME_SECONDS, env);
        b.timeoutMs = wholeNumber(TIMEOUT_MS, env);
        b.streamHeartbeatMs = wholeNumber(STREAM_HEARTBEAT_MS, env);
        b.streamBuffer = wholeNumber(STREAM_BUFFER, env);
        b.streamWriteTimeoutMs = wholeNumber(STREAM_WRITE_TIMEOUT_MS, env);
        b.streamSenderThreads = wholeNumber(STREAM_SENDER_THREADS, env);
        b.streamMaxPerUser = wholeNumber(STREAM_MAX_PER_USER, env);
        b.streamMaxTotal = wholeNumber(STREAM_MAX_TOTAL, env);
        b.userWritesPerSecond = wholeNumber(USER_WRITES_PER_SECOND, env);
        b.userStreamOpensPerMinute = wholeNumber(USER_STREAM_OPENS_PER_MINUTE, env);
        b.addressRequestsPerSecond = wholeNumber(ADDRESS_REQUESTS_PER_SECOND, env);
        b.batchMaxAnswerBytes = wholeNumber(BATCH_MAX_ANSWER_BYTES, env);
        b.limiterMaxKeys = wholeNumber(LIMITER_MAX_KEYS, env);
        b.redisUrl = Settings.REDIS_URL.from(NO_FLAGS, env);
        b.redisClusterNodes = Settings.REDIS_CLUSTER_NODES.from(NO_FLAGS, env);
        b.redisCaFile = Settings.REDIS_CA_FILE.from(NO_FLAGS, env);
        b.redisKeyPrefix = Settings.REDIS_KEY_PREFIX.from(NO_FLAGS, env);
        b.jdbcUrl = Settings.JDBC_URL.from(NO_FLAGS, env);
        b.jdbcUser = Settings.JDBC_USER.from(NO_FLAGS, env);
        b.jdbcPassword = env.getOrDefault(JDBC_PASSWORD_ENV, "");
        b.kafkaBootstrap = Settings.KAFKA_BOOTSTRAP.from(NO_FLAGS, env);
        b.readsTopic = Settings.READS_TOPIC.from(NO_FLAGS, env);
        b.kafkaProperties =
                KafkaClientProperties.load(Settings.KAFKA_PROPERTIES.from(NO_FLAGS, env));
        return b.build();
    }

    /**
     * The environment of an API beside a job: every setting the two share — Redis with its cluster
     * nodes and CA file, the key prefix, MySQL, Kafka — is the job's ({@code jobValue} gives it,
     * null for a setting the job does not read), so the API reads exactly what the job writes; the
     * API's own settings and secrets come from {@code env}. A setting added to both later is
     * carried by this loop, not by a list someone has to remember.
     */
    public static Map<String, String> besideJob(
            Function<Setting, String> jobValue, String jdbcPassword, Map<String, String> env) {
        Map<String, String> api = new HashMap<>();
        for (Setting setting : SETTINGS) {
            String shared = jobValue.apply(setting);
            String value = shared != null ? shared : env.get(setting.env());
            if (value != null) {
                api.put(setting.env(), value);
            }
        }
        for (String secret : SECRETS) {
            if (env.containsKey(secret)) {
                api.put(secret, env.get(secret));
            }
        }
        api.put(JDBC_PASSWORD_ENV, jdbcPassword);
        return api;
    }

    /** A builder holding these settings, to change a few. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.host = host;
        b.port = port;
        b.token = token;
        b.jwtSecret = jwtSecret;
        b.jwtPublicKey = jwtPublicKey;
        b.openWithoutAuth = openWithoutAuth;
        b.allowedOrigins = String.join(",", allowedOrigins);
        b.jwtIssuer = jwtIssuer;
        b.jwtAudience = jwtAudience;
        b.jwtMaxLifetimeSeconds = jwtMaxLifetimeSeconds;
        b.timeoutMs = timeoutMs;
        b.streamHeartbeatMs = streamHeartbeatMs;
        b.streamBuffer = streamBuffer;
        b.streamWriteTimeoutMs = streamWriteTimeoutMs;
        b.streamSenderThreads = streamSenderThreads;
        b.streamMaxPerUser = streamMaxPerUser;
        b.streamMaxTotal = streamMaxTotal;
        b.userWritesPerSecond = userWritesPerSecond;
        b.userStreamOpensPerMinute = userStreamOpensPerMinute;
        b.addressRequestsPerSecond = addressRequestsPerSecond;
        b.batchMaxAnswerBytes = batchMaxAnswerBytes;
        b.limiterMaxKeys = limiterMaxKeys;
        b.redisUrl = redisUrl;
        b.redisClusterNodes = redisClusterNodes;
        b.redisCaFile = redisCaFile;
        b.redisKeyPrefix = redisKeyPrefix;
        b.jdbcUrl = jdbcUrl;
        b.jdbcUser = jdbcUser;
        b.jdbcPassword = jdbcPassword;
        b.kafkaBootstrap = kafkaBootstrap;
        b.readsTopic = readsTopic;
        b.kafkaProperties = kafkaProperties;
        return b;
    }

    /** The Redis of these settings (checked when they are built). */
    RedisEndpoint redisEndpoint() {
        return RedisEndpoint.of(redisUrl, redisClusterNodes, redisCaFile);
    }

    @Override
    public String toString() {
        // No secrets: the Redis URL may hold a password, the token is one, the Kafka settings
        // may hold several.
        return "ApiConfig{listen="
                + host
                + ":"
                + port
                + ", auth="
                + auth()
                + ", timeout="
                + timeoutMs
                + "ms"
                + ", streams: heartbeat="
                + streamHeartbeatMs
                + "ms buffer="
                + streamBuffer
                + " writeTimeout="
                + streamWriteTimeoutMs
                + "ms senders="
                + streamSenderThreads
                + " max="
                + streamMaxPerUser
                + "/user "
                + streamMaxTotal
                + "/all"
                + ", limits: writes="
                + userWritesPerSecond
                + "/s/user opens="
                + userStreamOpensPerMinute
                + "/min/user address="
                + addressRequestsPerSecond
                + "/s batchAnswer="
                + batchMaxAnswerBytes
                + "B keys="
                + limiterMaxKeys
                + ", redis="
                + redisEndpoint()
                + ", redisKeyPrefix='"
                + redisKeyPrefix
                + "'"
                + ", jdbc="
                + Settings.masked(jdbcUrl)
                + " as "
                + jdbcUser
                + ", kafka="
                + kafkaBootstrap
                + ", kafkaProperties="
                + KafkaClientProperties.masked(kafkaProperties)
                + ", readsTopic="
                + readsTopic
                + "}";
    }

    /** How requests authenticate, for the log: which kinds, never a key or token. */
    private String auth() {
        String jwt = jwtSecret != null ? "JWT HS256" : jwtPublicKey != null ? "JWT RS256" : null;
        if (token == null) {
            return jwt == null ? "off" : jwt;
        }
        return jwt == null ? "bearer token" : "bearer token + " + jwt;
    }

    /** {@code setting} from {@code env} as an int, the error naming its variable. */
    private static int wholeNumber(Setting setting, Map<String, String> env) {
        return (int)
                Settings.wholeNumber(
                        setting.env(),
                        setting.from(NO_FLAGS, env),
                        Integer.MIN_VALUE,
                        Integer.MAX_VALUE);
    }

    private static String require(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        return value;
    }

    /** Settings to change before {@link #build()}; starts from the defaults. */
    public static final class Builder {
        private String host = HOST.defaultValue();
        private int port = Integer.parseInt(PORT.defaultValue());
        private String token;
        private String jwtSecret;
        private String jwtPublicKey;
        private boolean openWithoutAuth = Boolean.parseBoolean(OPEN_WITHOUT_AUTH.defaultValue());
        private String allowedOrigins = ALLOWED_ORIGINS.defaultValue();
        private String jwtIssuer = JWT_ISSUER.defaultValue();
        private String jwtAudience = JWT_AUDIENCE.defaultValue();
        private int jwtMaxLifetimeSeconds =
                Integer.parseInt(JWT_MAX_LIFETIME_SECONDS.defaultValue());
        private int timeoutMs = Integer.parseInt(TIMEOUT_MS.defaultValue());
        private int streamHeartbeatMs = Integer.parseInt(STREAM_HEARTBEAT_MS.defaultValue());
        private int streamBuffer = Integer.parseInt(STREAM_BUFFER.defaultValue());
        private int streamWriteTimeoutMs = Integer.parseInt(STREAM_WRITE_TIMEOUT_MS.defaultValue());
        private int streamSenderThreads = Integer.parseInt(STREAM_SENDER_THREADS.defaultValue());
        private int streamMaxPerUser = Integer.parseInt(STREAM_MAX_PER_USER.defaultValue());
        private int streamMaxTotal = Integer.parseInt(STREAM_MAX_TOTAL.defaultValue());
        private int userWritesPerSecond = Integer.parseInt(USER_WRITES_PER_SECOND.defaultValue());
        private int userStreamOpensPerMinute =
                Integer.parseInt(USER_STREAM_OPENS_PER_MINUTE.defaultValue());
        private int addressRequestsPerSecond =
                Integer.parseInt(ADDRESS_REQUESTS_PER_SECOND.defaultValue());
        private int batchMaxAnswerBytes = Integer.parseInt(BATCH_MAX_ANSWER_BYTES.defaultValue());
        private int limiterMaxKeys = Integer.parseInt(LIMITER_MAX_KEYS.defaultValue());
        private String redisUrl = Settings.REDIS_URL.defaultValue();
        private String redisClusterNodes = Settings.REDIS_CLUSTER_NODES.defaultValue();
        private String redisCaFile = Settings.REDIS_CA_FILE.defaultValue();
        private String redisKeyPrefix = Settings.REDIS_KEY_PREFIX.defaultValue();
        private String jdbcUrl = Settings.JDBC_URL.defaultValue();
        private String jdbcUser = Settings.JDBC_USER.defaultValue();
        private String jdbcPassword = "";
        private String kafkaBootstrap = Settings.KAFKA_BOOTSTRAP.defaultValue();
        private String readsTopic = Settings.READS_TOPIC.defaultValue();
        private Map<String, String> kafkaProperties = Map.of();

        private Builder() {}

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Null or empty turns authentication off. */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** HS256 key of per-user JWTs; null or empty: none. */
        public Builder jwtSecret(String jwtSecret) {
            this.jwtSecret = jwtSecret;
            return this;
        }

        /** RS256 public key (PEM) of per-user JWTs; null or empty: none. */
        public Builder jwtPublicKey(String jwtPublicKey) {
            this.jwtPublicKey = jwtPublicKey;
            return this;
        }

        /** True: serve without a token on any address and to any Host name. */
        public Builder openWithoutAuth(boolean openWithoutAuth) {
            this.openWithoutAuth = openWithoutAuth;
            return this;
        }

        /** Comma-separated origins allowed to open a WebSocket besides the API's own. */
        public Builder allowedOrigins(String allowedOrigins) {
            this.allowedOrigins = allowedOrigins;
            return this;
        }

        /** Empty: no issuer checked. */
        public Builder jwtIssuer(String jwtIssuer) {
            this.jwtIssuer = jwtIssuer;
            return this;
        }

        /** Empty: a token carrying an audience is refused. */
        public Builder jwtAudience(String jwtAudience) {
            this.jwtAudience = jwtAudience;
            return this;
        }

        public Builder jwtMaxLifetimeSeconds(int jwtMaxLifetimeSeconds) {
            this.jwtMaxLifetimeSeconds = jwtMaxLifetimeSeconds;
            return this;
        }

        public Builder timeoutMs(int timeoutMs) {
            this.timeoutMs = timeoutMs;
            return this;
        }

        public Builder streamHeartbeatMs(int streamHeartbeatMs) {
            this.streamHeartbeatMs = streamHeartbeatMs;
            return this;
        }

        public Builder streamBuffer(int streamBuffer) {
            this.streamBuffer = streamBuffer;
            return this;
        }

        public Builder streamWriteTimeoutMs(int streamWriteTimeoutMs) {
            this.streamWriteTimeoutMs = streamWriteTimeoutMs;
            return this;
        }

        public Builder streamSenderThreads(int streamSenderThreads) {
            this.streamSenderThreads = streamSenderThreads;
            return this;
        }

        public Builder streamMaxPerUser(int streamMaxPerUser) {
            this.streamMaxPerUser = streamMaxPerUser;
            return this;
        }

        public Builder streamMaxTotal(int streamMaxTotal) {
            this.streamMaxTotal = streamMaxTotal;
            return this;
        }

        public Builder userWritesPerSecond(int userWritesPerSecond) {
            this.userWritesPerSecond = userWritesPerSecond;
            return this;
        }

        public Builder userStreamOpensPerMinute(int userStreamOpensPerMinute) {
            this.userStreamOpensPerMinute = userStreamOpensPerMinute;
            return this;
        }

        public Builder addressRequestsPerSecond(int addressRequestsPerSecond) {
            this.addressRequestsPerSecond = addressRequestsPerSecond;
            return this;
        }

        public Builder batchMaxAnswerBytes(int batchMaxAnswerBytes) {
            this.batchMaxAnswerBytes = batchMaxAnswerBytes;
            return this;
        }

        public Builder limiterMaxKeys(int limiterMaxKeys) {
            this.limiterMaxKeys = limiterMaxKeys;
            return this;
        }

        public Builder redisUrl(String redisUrl) {
            this.redisUrl = redisUrl;
            return this;
        }

        /** Seed nodes {@code host:port,...}; empty: no cluster. */
        public Builder redisClusterNodes(String redisClusterNodes) {
            this.redisClusterNodes = redisClusterNodes;
            return this;
        }

        public Builder redisCaFile(String redisCaFile) {
            this.redisCaFile = redisCaFile;
            return this;
        }

        public Builder redisKeyPrefix(String redisKeyPrefix) {
            this.redisKeyPrefix = redisKeyPrefix;
            return this;
        }

        public Builder jdbcUrl(String jdbcUrl) {
            this.jdbcUrl = jdbcUrl;
            return this;
        }

        public Builder jdbcUser(String jdbcUser) {
            this.jdbcUser = jdbcUser;
            return this;
        }

        public Builder jdbcPassword(String jdbcPassword) {
            this.jdbcPassword = jdbcPassword;
            return this;
        }

        public Builder kafkaBootstrap(String kafkaBootstrap) {
            this.kafkaBootstrap = kafkaBootstrap;
            return this;
        }

        public Builder readsTopic(String readsTopic) {
            this.readsTopic = readsTopic;
            return this;
        }

        /** Kafka client settings, as {@link KafkaClientProperties#load} reads them from a file. */
        public Builder kafkaProperties(Map<String, String> kafkaProperties) {
            this.kafkaProperties = kafkaProperties;
            return this;
        }

        /** Checks every setting; throws IllegalArgumentException naming the first bad one. */
        public ApiConfig build() {
            return new ApiConfig(this);
        }
    }
}
