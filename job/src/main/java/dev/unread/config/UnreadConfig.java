package dev.unread.config;

import dev.unread.contract.KafkaClientProperties;
import dev.unread.contract.RedisEndpoint;
import dev.unread.contract.Setting;
import dev.unread.contract.Settings;
import dev.unread.counter.UnreadCounter;
import dev.unread.groups.ConversationReaders;
import java.io.Serializable;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

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

    public static final Setting GROUP_ID = new Setting("group-id", "unread");
    public static final Setting FLUSH_INTERVAL_MS = new Setting("flush-interval-ms", "100");
    public static final Setting PARALLELISM = new Setting("parallelism", "0");
    public static final Setting MAX_PARALLELISM = new Setting("max-parallelism", "128");
    public static final Setting CHECKPOINT_INTERVAL_MS =
            new Setting("checkpoint-interval-ms", "10000");
    public static final Setting IDLE_STATE_DAYS = new Setting("idle-state-days", "0");
    public static final Setting MAX_FUTURE_SKEW_MS =
            new Setting("max-future-skew-ms", String.valueOf(DEFAULT_MAX_FUTURE_SKEW_MS));
    public static final Setting RECEIPT_PARTICIPANTS_MAX =
            new Setting(
                    "receipt-participants-max",
                    String.valueOf(ConversationReaders.DEFAULT_MAX_RECEIPT_PARTICIPANTS));

    /** Every setting of the job, in the order {@code --help} lists them. */
    private static final List<Setting> SETTINGS =
            List.of(
                    Settings.KAFKA_BOOTSTRAP,
                    Settings.MESSAGES_TOPIC,
                    Settings.READS_TOPIC,
                    Settings.CONVERSATIONS_TOPIC,
                    Settings.DEAD_LETTER_TOPIC,
                    Settings.KAFKA_PROPERTIES,
                    GROUP_ID,
                    Settings.REDIS_URL,
                    Settings.REDIS_CLUSTER_NODES,
                    Settings.REDIS_CA_FILE,
                    Settings.REDIS_KEY_PREFIX,
                    Settings.JDBC_URL,
                    Settings.JDBC_USER,
                    FLUSH_INTERVAL_MS,
                    PARALLELISM,
                    MAX_PARALLELISM,
                    CHECKPOINT_INTERVAL_MS,
                    IDLE_STATE_DAYS,
                    MAX_FUTURE_SKEW_MS,
                    RECEIPT_PARTICIPANTS_MAX);

    /** {@link #SETTINGS} by flag name, with their defaults, in the same order. */
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        for (Setting setting : SETTINGS) {
            DEFAULTS.put(setting.name(), setting.defaultValue());
        }
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

    /** Every setting's value as read, for the tools that must configure another part alike. */
    private final HashMap<String, String> values = new HashMap<>();

    private UnreadConfig(Map<Setting, String> s, String jdbcPassword) {
        s.forEach((setting, value) -> values.put(setting.name(), value));
        kafkaBootstrap = s.get(Settings.KAFKA_BOOTSTRAP);
        messagesTopic = s.get(Settings.MESSAGES_TOPIC);
        readsTopic = s.get(Settings.READS_TOPIC);
        conversationsTopic = s.get(Settings.CONVERSATIONS_TOPIC);
        deadLetterTopic = s.get(Settings.DEAD_LETTER_TOPIC);
        groupId = s.get(GROUP_ID);
        kafkaProperties = KafkaClientProperties.load(s.get(Settings.KAFKA_PROPERTIES));
        redisUrl = s.get(Settings.REDIS_URL);
        redisClusterNodes = s.get(Settings.REDIS_CLUSTER_NODES);
        redisCaFile = s.get(Settings.REDIS_CA_FILE);
        redisKeyPrefix = s.get(Settings.REDIS_KEY_PREFIX);
        jdbcUrl = s.get(Settings.JDBC_URL);
        jdbcUser = s.get(Settings.JDBC_USER);
        this.jdbcPassword = jdbcPassword;
        flushIntervalMs = atLeast(s, FLUSH_INTERVAL_MS, 1);
        // Flink refuses more key groups than this when the job starts; say so before.
        maxParallelism =
                (int)
                        Settings.wholeNumber(
                                MAX_PARALLELISM.flag(),
                                s.get(MAX_PARALLELISM),
                                1,
                                KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM);
        long asked = atLeast(s, PARALLELISM, 0);
        if (asked > maxParallelism) {
            // Some subtasks would own no key group: Flink refuses the job when it starts.
            throw new IllegalArgumentException(
                    PARALLELISM.flag()
                            + " must be at most "
                            + MAX_PARALLELISM.flag()
                            + " ("
                            + maxParallelism
                            + "), was "
                            + asked);
        }
        parallelism = (int) asked;
        checkpointIntervalMs = atLeast(s, CHECKPOINT_INTERVAL_MS, 1);
        idleStateDays = atLeast(s, IDLE_STATE_DAYS, 0);
        if (idleStateDays > UnreadCounter.MAX_IDLE_STATE_DAYS) {
            // Larger values meant as "forever" would put the expiry timer past what a timer holds.
            throw new IllegalArgumentException(
                    IDLE_STATE_DAYS.flag()
                            + " must be at most "
                            + UnreadCounter.MAX_IDLE_STATE_DAYS
                            + " (100 years), was "
                            + idleStateDays
                            + "; 0 keeps state forever");
        }
        maxFutureSkewMs = atLeast(s, MAX_FUTURE_SKEW_MS, 0);
        // A limit past what an int holds is no limit: no conversation has that many participants.
        receiptParticipantsMax =
                (int) Math.min(atLeast(s, RECEIPT_PARTICIPANTS_MAX, 0), Integer.MAX_VALUE);
    }

    /**
     * Each setting from {@code flags} (by name), else {@code env}, else its default, as {@link
     * Setting#from} reads every setting of the job and the API.
     *
     * @throws IllegalArgumentException on a flag of no setting, or a value out of range
     */
    public static UnreadConfig from(Map<String, String> flags, Map<String, String> env) {
        for (String name : flags.keySet()) {
            if (!DEFAULTS.containsKey(name)) {
                throw new IllegalArgumentException("unknown setting --" + name);
            }
        }
        Map<Setting, String> values = new HashMap<>();
        for (Setting setting : SETTINGS) {
            values.put(setting, setting.from(flags, env));
        }
        return new UnreadConfig(values, env.getOrDefault(JDBC_PASSWORD_ENV, ""));
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

    /**
     * The value this configuration has for {@code setting}, as text, as a flag or variable would
     * give it; null for a setting the job does not read.
     */
    public String value(Setting setting) {
        return values.get(setting.name());
    }

    /** The settings by flag name with their defaults, in the order help lists them. */
    public static Map<String, String> defaults() {
        return Collections.unmodifiableMap(DEFAULTS);
    }

    private static long atLeast(Map<Setting, String> s, Setting setting, long min) {
        return Settings.wholeNumber(setting.flag(), s.get(setting), min);
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
