package dev.unread.config;

import dev.unread.contract.KafkaClientProperties;
import dev.unread.contract.RedisEndpoint;
import dev.unread.contract.Setting;
import dev.unread.contract.Settings;
import dev.unread.state.ConversationReaders;
import dev.unread.state.UnreadCounter;
import java.io.Serializable;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Every setting of the job in one place. Each has a flag ({@code --redis-url}), an environment
 * variable ({@code UNREAD_REDIS_URL}) and a default pointing at 127.0.0.1; a flag wins over the
 * environment. Passwords come only from the environment so that they never show in a process list
 * or a shell history.
 */
public final class UnreadConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    /** One day: far more than any clock skew between chat servers and the Kafka brokers. */
    public static final long DEFAULT_MAX_FUTURE_SKEW_MS = 24 * 60 * 60 * 1000L;

    /** Settings by flag name, with their defaults, in the order {@code --help} lists them. */
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        for (Setting shared :
                new Setting[] {
                    Settings.KAFKA_BOOTSTRAP,
                    Settings.MESSAGES_TOPIC,
                    Settings.READS_TOPIC,
                    Settings.CONVERSATIONS_TOPIC,
                    Settings.DEAD_LETTER_TOPIC,
                    Settings.KAFKA_PROPERTIES,
                }) {
            DEFAULTS.put(shared.name(), shared.defaultValue());
        }
        DEFAULTS.put("group-id", "unread");
        for (Setting shared :
                new Setting[] {
                    Settings.REDIS_URL,
                    Settings.REDIS_CLUSTER_NODES,
                    Settings.REDIS_CA_FILE,
                    Settings.REDIS_KEY_PREFIX,
                    Settings.JDBC_URL,
                    Settings.JDBC_USER,
                }) {
            DEFAULTS.put(shared.name(), shared.defaultValue());
        }
        DEFAULTS.put("flush-interval-ms", "100");
        DEFAULTS.put("parallelism", "0");
        DEFAULTS.put("max-parallelism", "128");
        DEFAULTS.put("checkpoint-interval-ms", "10000");
        DEFAULTS.put("idle-state-days", "0");
        DEFAULTS.put("max-future-skew-ms", String.valueOf(DEFAULT_MAX_FUTURE_SKEW_MS));
        DEFAULTS.put(
                "receipt-participants-max",
                String.valueOf(ConversationReaders.DEFAULT_MAX_RECEIPT_PARTICIPANTS));
    }

    /** Read from the environment only. */
    public static final String JDBC_PASSWORD_ENV = Settings.JDBC_PASSWORD_ENV;

    public final String kafkaBootstrap;
    public final String messagesTopic;
    public final String readsTopic;
    public final String conversationsTopic;
    public final String deadLetterTopic;
    public final String groupId;

    /**
     * Kafka client settings (SASL, TLS, timeouts) from the {@code --kafka-properties} file, read
     * when the config is made (on the client that builds the job) and kept as written, so a config
     * provider's {@code ${env:NAME}} is resolved by each Kafka client where it runs. May hold
     * secrets: never log it but through {@link KafkaClientProperties#masked}.
     */
    public final Map<String, String> kafkaProperties;

    /** {@code redis[s]://[[user]:password@]host:port/db}. */
    public final String redisUrl;

    /** Seed nodes {@code host:port,...} of a Redis Cluster; empty: the one node of the URL. */
    public final String redisClusterNodes;

    /** PEM file of the CAs a TLS Redis is checked against; empty: the JVM's. */
    public final String redisCaFile;

    /** Put before every Redis key and channel; empty by default. */
    public final String redisKeyPrefix;

    public final String jdbcUrl;
    public final String jdbcUser;
    public final String jdbcPassword;

    /** Changes to one Redis key within this interval go out as one command. */
    public final long flushIntervalMs;

    /** 0: the cluster's default. */
    public final int parallelism;

    /** Fixed once state exists: it is the number of key groups state is split into. */
    public final int maxParallelism;

    public final long checkpointIntervalMs;

    /** A user with no event for this many days is forgotten (counts to 0); 0: never. */
    public final long idleStateDays;

    /** A sentAt or readAt more than this after its Kafka record's timestamp is refused. */
    public final long maxFutureSkewMs;

    /**
     * Read receipts go to the channel of each participant they concern in conversations of at most
     * this many participants; 0: to none.
     */
    public final int receiptParticipantsMax;

    private UnreadConfig(Map<String, String> s, String jdbcPassword) {
        kafkaBootstrap = s.get("kafka-bootstrap");
        messagesTopic = s.get("messages-topic");
        readsTopic = s.get("reads-topic");
        conversationsTopic = s.get("conversations-topic");
        deadLetterTopic = s.get("dead-letter-topic");
        groupId = s.get("group-id");
        kafkaProperties = KafkaClientProperties.load(s.get(Settings.KAFKA_PROPERTIES.name()));
        redisUrl = s.get("redis-url");
        redisClusterNodes = s.get(Settings.REDIS_CLUSTER_NODES.name());
        redisCaFile = s.get(Settings.REDIS_CA_FILE.name());
        redisKeyPrefix = s.get("redis-key-prefix");
        jdbcUrl = s.get("jdbc-url");
        jdbcUser = s.get("jdbc-user");
        this.jdbcPassword = jdbcPassword;
        flushIntervalMs = positive(s, "flush-interval-ms");
        parallelism = (int) atLeast(s, "parallelism", 0);
        maxParallelism = (int) positive(s, "max-parallelism");
        checkpointIntervalMs = positive(s, "checkpoint-interval-ms");
        idleStateDays = atLeast(s, "idle-state-days", 0);
        if (idleStateDays > UnreadCounter.MAX_IDLE_STATE_DAYS) {
            // Larger values meant as "forever" would put the expiry timer past what a timer holds.
            throw new IllegalArgumentException(
                    "--idle-state-days must be at most "
                            + UnreadCounter.MAX_IDLE_STATE_DAYS
                            + " (100 years), was "
                            + idleStateDays
                            + "; 0 keeps state forever");
        }
        maxFutureSkewMs = atLeast(s, "max-future-skew-ms", 0);
        // A limit past what an int holds is no limit: no conversation has that many participants.
        receiptParticipantsMax =
                (int) Math.min(atLeast(s, "receipt-participants-max", 0), Integer.MAX_VALUE);
    }

    /** The defaults, overridden by the environment, overridden by {@code settings}. */
    public static UnreadConfig from(Map<String, String> settings, Map<String, String> env) {
        Map<String, String> merged = new HashMap<>(DEFAULTS);
        for (String name : DEFAULTS.keySet()) {
            String value = env.get(envName(name));
            if (value != null) {
                merged.put(name, value);
            }
        }
        for (Map.Entry<String, String> e : settings.entrySet()) {
            if (!DEFAULTS.containsKey(e.getKey())) {
                throw new IllegalArgumentException("unknown setting --" + e.getKey());
            }
            merged.put(e.getKey(), e.getValue());
        }
        return new UnreadConfig(merged, env.getOrDefault(JDBC_PASSWORD_ENV, ""));
    }

    /** Flags of the form {@code --name value} or {@code --name=value}, plus the environment. */
    public static UnreadConfig fromArgs(String[] args, Map<String, String> env) {
        return from(parseFlags(args), env);
    }

    /** For tests and the local stack: the defaults with a few settings changed. */
    public static UnreadConfig with(Map<String, String> settings) {
        return from(settings, Map.of());
    }

    public static Map<String, String> parseFlags(String[] args) {
        return Settings.parseFlags(args);
    }

    /** {@code redis-key-prefix} → {@code UNREAD_REDIS_KEY_PREFIX}. */
    public static String envName(String setting) {
        return Setting.envName(setting);
    }

    /**
     * {@link #kafkaProperties} as the {@link Properties} Kafka's clients and Flink's Kafka builders
     * take: a new object each time, for the caller to add its own settings to.
     */
    public Properties kafkaClientProperties() {
        Properties properties = new Properties();
        properties.putAll(kafkaProperties);
        return properties;
    }

    /**
     * The Redis the sinks write to, checked.
     *
     * @throws IllegalArgumentException when a Redis setting is wrong
     */
    public RedisEndpoint redisEndpoint() {
        return RedisEndpoint.of(redisUrl, redisClusterNodes, redisCaFile);
    }

    /** The settings by flag name with their defaults, in the order help lists them. */
    public static Map<String, String> defaults() {
        return java.util.Collections.unmodifiableMap(DEFAULTS);
    }

    private static long positive(Map<String, String> s, String name) {
        return atLeast(s, name, 1);
    }

    private static long atLeast(Map<String, String> s, String name, long min) {
        return Settings.wholeNumber("--" + name, s.get(name), min);
    }

    @Override
    public String toString() {
        // No passwords: the Redis and the JDBC URL may hold one, the Kafka settings several.
        return "UnreadConfig{kafka="
                + kafkaBootstrap
                + ", kafkaProperties="
                + KafkaClientProperties.masked(kafkaProperties)
                + ", topics="
                + messagesTopic
                + ","
                + readsTopic
                + ","
                + conversationsTopic
                + ","
                + deadLetterTopic
                + ", redis="
                + Settings.masked(redisUrl)
                + (redisClusterNodes.isEmpty() ? "" : " on cluster " + redisClusterNodes)
                + ", jdbc="
                + Settings.masked(jdbcUrl)
                + ", flush="
                + flushIntervalMs
                + "ms"
                + ", parallelism="
                + parallelism
                + ", maxParallelism="
                + maxParallelism
                + ", checkpoint="
                + checkpointIntervalMs
                + "ms}";
    }
}
