package dev.unread.api;

import dev.unread.contract.KafkaClientProperties;
import dev.unread.contract.RedisEndpoint;
import dev.unread.contract.Setting;
import dev.unread.contract.Settings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The values of the API's settings ({@link ApiSettings}: each field is the setting of its name, as
 * help and docs/contract.md describe it). Built from the environment ({@link #fromEnv}) or in code
 * ({@link #builder()}), as the CLI and the tests do; either way every value is checked against its
 * setting's bounds, and the settings against each other, when it is built.
 */
public final class ApiConfig implements ApiSettings {

    /** The API reads its settings from the environment alone. */
    private static final Map<String, String> NO_FLAGS = Map.of();

    /** Loopback by default so that nothing is exposed by accident. */
    public final String host;

    /** 0 binds any free port; {@link StateQueryApi#port()} tells which. */
    public final int port;

    /** Null: no service token. */
    public final String token;

    /** Null: no HS256 JWTs. At most one of this and {@link #jwtPublicKey}. */
    public final String jwtSecret;

    /** Null: no RS256 JWTs. */
    public final String jwtPublicKey;

    public final boolean openWithoutAuth;
    public final List<String> allowedOrigins;
    public final String jwtIssuer;
    public final String jwtAudience;
    public final int jwtMaxLifetimeSeconds;
    public final int timeoutMs;
    public final int streamHeartbeatMs;
    public final int streamBuffer;
    public final int streamWriteTimeoutMs;
    public final int streamSenderThreads;
    public final int streamMaxPerUser;
    public final int streamMaxTotal;
    public final int userWritesPerSecond;
    public final int userStreamOpensPerMinute;
    public final int addressRequestsPerSecond;
    public final List<String> trustedProxies;
    public final int batchMaxAnswerBytes;
    public final int limiterMaxKeys;
    public final String redisUrl;
    public final String redisClusterNodes;
    public final String redisCaFile;
    public final String redisKeyPrefix;
    public final String jdbcUrl;
    public final String jdbcUser;
    public final String jdbcPassword;
    public final String kafkaBootstrap;

    /** May hold secrets: never log it but through {@link KafkaClientProperties#masked}. */
    public final Map<String, String> kafkaProperties;

    public final String readsTopic;

    /** Every setting's value as given, by setting, for {@link #toBuilder} and the log. */
    private final Map<Setting<?>, Object> values;

    private ApiConfig(Map<Setting<?>, Object> given) {
        values = new HashMap<>(given);
        host = required(HOST);
        port = get(PORT);
        token = emptyToNull(get(TOKEN));
        jwtSecret = emptyToNull(get(JWT_SECRET));
        String publicKey = get(JWT_PUBLIC_KEY);
        jwtPublicKey = publicKey == null || publicKey.isBlank() ? null : publicKey;
        openWithoutAuth = get(OPEN_WITHOUT_AUTH);
        allowedOrigins = get(ALLOWED_ORIGINS);
        jwtIssuer = get(JWT_ISSUER);
        jwtAudience = get(JWT_AUDIENCE);
        jwtMaxLifetimeSeconds = get(JWT_MAX_LIFETIME_SECONDS);
        timeoutMs = get(TIMEOUT_MS);
        streamHeartbeatMs = get(STREAM_HEARTBEAT_MS);
        streamBuffer = get(STREAM_BUFFER);
        streamWriteTimeoutMs = get(STREAM_WRITE_TIMEOUT_MS);
        streamSenderThreads = get(STREAM_SENDER_THREADS);
        streamMaxPerUser = get(STREAM_MAX_PER_USER);
        streamMaxTotal = get(STREAM_MAX_TOTAL);
        userWritesPerSecond = get(USER_WRITES_PER_SECOND);
        userStreamOpensPerMinute = get(USER_STREAM_OPENS_PER_MINUTE);
        addressRequestsPerSecond = get(ADDRESS_REQUESTS_PER_SECOND);
        trustedProxies = get(TRUSTED_PROXIES);
        batchMaxAnswerBytes = get(BATCH_MAX_ANSWER_BYTES);
        limiterMaxKeys = get(LIMITER_MAX_KEYS);
        redisUrl = required(Settings.REDIS_URL);
        redisClusterNodes = get(Settings.REDIS_CLUSTER_NODES);
        redisCaFile = get(Settings.REDIS_CA_FILE);
        redisKeyPrefix = get(Settings.REDIS_KEY_PREFIX);
        jdbcUrl = required(Settings.JDBC_URL);
        jdbcUser = required(Settings.JDBC_USER);
        String password = get(Settings.JDBC_PASSWORD);
        jdbcPassword = password == null ? "" : password;
        kafkaBootstrap = required(Settings.KAFKA_BOOTSTRAP);
        kafkaProperties = Map.copyOf(get(Settings.KAFKA_PROPERTIES));
        readsTopic = required(Settings.READS_TOPIC);
        ApiConfigRules.check(this);
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
        return new Builder(Map.of());
    }

    /**
     * The defaults overridden by those of {@code env} (usually {@code System.getenv()}) set, each
     * read by {@link Setting#from} as the job reads its settings; the API takes no flags.
     */
    public static ApiConfig fromEnv(Map<String, String> env) {
        Builder b = builder();
        for (Setting<?> setting : ALL) {
            b.text(setting, setting.from(NO_FLAGS, env));
        }
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
            Function<Setting<?>, String> jobValue, String jdbcPassword, Map<String, String> env) {
        Map<String, String> api = new HashMap<>();
        for (Setting<?> setting : SETTINGS) {
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
        return new Builder(values);
    }

    /** The Redis of these settings (checked when they are built). */
    RedisEndpoint redisEndpoint() {
        return RedisEndpoint.of(redisUrl, redisClusterNodes, redisCaFile);
    }

    @Override
    public String toString() {
        // Each setting as declared: secrets and passwords as ***.
        return "ApiConfig{auth=" + auth() + ", " + Settings.shown(ALL, values::get) + "}";
    }

    /** How requests authenticate, for the log: which kinds, never a key or token. */
    private String auth() {
        String jwt = jwtSecret != null ? "JWT HS256" : jwtPublicKey != null ? "JWT RS256" : null;
        if (token == null) {
            return jwt == null ? "off" : jwt;
        }
        return jwt == null ? "bearer token" : "bearer token + " + jwt;
    }

    /** {@code setting}'s value, within its bounds. */
    @SuppressWarnings("unchecked")
    private <T> T get(Setting<T> setting) {
        return setting.check(name(setting), (T) values.get(setting));
    }

    private String required(Setting<String> setting) {
        String value = get(setting);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name(setting) + " must not be empty");
        }
        return value;
    }

    /**
     * How an error names a setting: its variable and its name in words, as in {@code
     * UNREAD_API_TIMEOUT_MS: timeout must be >= 250 ms}.
     */
    private static String name(Setting<?> setting) {
        return setting.env() + ": " + setting.words().replaceFirst("^api ", "");
    }

    private static String emptyToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    /** Settings to change before {@link #build()}; starts from the defaults. */
    public static final class Builder {
        private final Map<Setting<?>, Object> values = new HashMap<>();

        private Builder(Map<Setting<?>, Object> values) {
            ALL.forEach(setting -> this.values.put(setting, setting.initial()));
            this.values.putAll(values);
        }

        public Builder host(String host) {
            return text(HOST, host);
        }

        public Builder port(int port) {
            return set(PORT, port);
        }

        /** Null or empty turns authentication off. */
        public Builder token(String token) {
            return text(TOKEN, token);
        }

        /** HS256 key of per-user JWTs; null or empty: none. */
        public Builder jwtSecret(String jwtSecret) {
            return text(JWT_SECRET, jwtSecret);
        }

        /** RS256 public key (PEM) of per-user JWTs; null or empty: none. */
        public Builder jwtPublicKey(String jwtPublicKey) {
            return text(JWT_PUBLIC_KEY, jwtPublicKey);
        }

        public Builder openWithoutAuth(boolean openWithoutAuth) {
            return set(OPEN_WITHOUT_AUTH, openWithoutAuth);
        }

        /** Comma-separated origins allowed to open a WebSocket besides the API's own. */
        public Builder allowedOrigins(String allowedOrigins) {
            return text(ALLOWED_ORIGINS, allowedOrigins);
        }

        public Builder jwtIssuer(String jwtIssuer) {
            return text(JWT_ISSUER, jwtIssuer);
        }

        public Builder jwtAudience(String jwtAudience) {
            return text(JWT_AUDIENCE, jwtAudience);
        }

        public Builder jwtMaxLifetimeSeconds(int jwtMaxLifetimeSeconds) {
            return set(JWT_MAX_LIFETIME_SECONDS, jwtMaxLifetimeSeconds);
        }

        public Builder timeoutMs(int timeoutMs) {
            return set(TIMEOUT_MS, timeoutMs);
        }

        public Builder streamHeartbeatMs(int streamHeartbeatMs) {
            return set(STREAM_HEARTBEAT_MS, streamHeartbeatMs);
        }

        public Builder streamBuffer(int streamBuffer) {
            return set(STREAM_BUFFER, streamBuffer);
        }

        public Builder streamWriteTimeoutMs(int streamWriteTimeoutMs) {
            return set(STREAM_WRITE_TIMEOUT_MS, streamWriteTimeoutMs);
        }

        public Builder streamSenderThreads(int streamSenderThreads) {
            return set(STREAM_SENDER_THREADS, streamSenderThreads);
        }

        public Builder streamMaxPerUser(int streamMaxPerUser) {
            return set(STREAM_MAX_PER_USER, streamMaxPerUser);
        }

        public Builder streamMaxTotal(int streamMaxTotal) {
            return set(STREAM_MAX_TOTAL, streamMaxTotal);
        }

        public Builder userWritesPerSecond(int userWritesPerSecond) {
            return set(USER_WRITES_PER_SECOND, userWritesPerSecond);
        }

        public Builder userStreamOpensPerMinute(int userStreamOpensPerMinute) {
            return set(USER_STREAM_OPENS_PER_MINUTE, userStreamOpensPerMinute);
        }

        public Builder addressRequestsPerSecond(int addressRequestsPerSecond) {
            return set(ADDRESS_REQUESTS_PER_SECOND, addressRequestsPerSecond);
        }

        /** Comma-separated addresses and CIDR blocks of the proxies in front of the API. */
        public Builder trustedProxies(String trustedProxies) {
            return text(TRUSTED_PROXIES, trustedProxies);
        }

        public Builder batchMaxAnswerBytes(int batchMaxAnswerBytes) {
            return set(BATCH_MAX_ANSWER_BYTES, batchMaxAnswerBytes);
        }

        public Builder limiterMaxKeys(int limiterMaxKeys) {
            return set(LIMITER_MAX_KEYS, limiterMaxKeys);
        }

        public Builder redisUrl(String redisUrl) {
            return text(Settings.REDIS_URL, redisUrl);
        }

        /** Seed nodes {@code host:port,...}; empty: no cluster. */
        public Builder redisClusterNodes(String redisClusterNodes) {
            return text(Settings.REDIS_CLUSTER_NODES, redisClusterNodes);
        }

        public Builder redisCaFile(String redisCaFile) {
            return text(Settings.REDIS_CA_FILE, redisCaFile);
        }

        public Builder redisKeyPrefix(String redisKeyPrefix) {
            return text(Settings.REDIS_KEY_PREFIX, redisKeyPrefix);
        }

        public Builder jdbcUrl(String jdbcUrl) {
            return text(Settings.JDBC_URL, jdbcUrl);
        }

        public Builder jdbcUser(String jdbcUser) {
            return text(Settings.JDBC_USER, jdbcUser);
        }

        public Builder jdbcPassword(String jdbcPassword) {
            return text(Settings.JDBC_PASSWORD, jdbcPassword);
        }

        public Builder kafkaBootstrap(String kafkaBootstrap) {
            return text(Settings.KAFKA_BOOTSTRAP, kafkaBootstrap);
        }

        public Builder readsTopic(String readsTopic) {
            return text(Settings.READS_TOPIC, readsTopic);
        }

        /** Kafka client settings, as {@link KafkaClientProperties#load} reads them from a file. */
        public Builder kafkaProperties(Map<String, String> kafkaProperties) {
            return set(Settings.KAFKA_PROPERTIES, kafkaProperties);
        }

        /** Checks every setting; throws IllegalArgumentException naming the first bad one. */
        public ApiConfig build() {
            return new ApiConfig(values);
        }

        private <T> Builder set(Setting<T> setting, T value) {
            values.put(setting, value);
            return this;
        }

        /** {@code text} as the environment would give it; null: empty, or unset for a secret. */
        private Builder text(Setting<?> setting, String text) {
            values.put(
                    setting,
                    setting.read(setting.env(), text == null && !setting.secret() ? "" : text));
            return this;
        }
    }
}
