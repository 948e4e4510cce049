package dev.unread.config;

import dev.unread.channels.ChannelStage;
import dev.unread.contract.KafkaClientProperties;
import dev.unread.contract.RedisEndpoint;
import dev.unread.contract.Setting;
import dev.unread.contract.Settings;
import dev.unread.counter.ThreadSets;
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

    public static final Setting<String> GROUP_ID =
            Setting.text("group-id", "unread").described("Kafka consumer group");
    public static final Setting<Long> FLUSH_INTERVAL_MS =
            Setting.wholeNumber("flush-interval-ms", 100, 1);
    public static final Setting<Long> BACKGROUND_FLUSH_INTERVAL_MS =
            Setting.wholeNumber("background-flush-interval-ms", 1000, 1)
                    .described(
                            "counts of users without a live stream are written this often;"
                                    + " at most `--flush-interval-ms`: every flush writes them");
    public static final Setting<Long> PARALLELISM =
            Setting.wholeNumber("parallelism", 0, 0)
                    .described("at most `--max-parallelism`; 0: the cluster's default");

    /** Flink refuses more key groups than its bound when the job starts; refused before. */
    public static final Setting<Long> MAX_PARALLELISM =
            Setting.wholeNumber(
                            "max-parallelism",
                            128,
                            1,
                            KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM)
                    .described("Flink's bound; fixed once state exists");

    public static final Setting<Long> CHECKPOINT_INTERVAL_MS =
            Setting.wholeNumber("checkpoint-interval-ms", 10000, 1);
    public static final Setting<Long> IDLE_STATE_DAYS =
            Setting.wholeNumber("idle-state-days", 0, 0)
                    .described(
                            "at most "
                                    + UnreadCounter.MAX_IDLE_STATE_DAYS
                                    + " (100 years); 0: keep state forever");
    public static final Setting<Long> MAX_FUTURE_SKEW_MS =
            Setting.wholeNumber("max-future-skew-ms", DEFAULT_MAX_FUTURE_SKEW_MS, 0)
                    .described("how far past its Kafka record's timestamp an event time may lie");
    public static final Setting<Long> RECEIPT_PARTICIPANTS_MAX =
            Setting.wholeNumber(
                            "receipt-participants-max",
                            ConversationReaders.DEFAULT_MAX_RECEIPT_PARTICIPANTS,
                            0)
                    .described(
                            "a `READ_RECEIPT` also goes to `READ_RECEIPTS:{userId}` of each"
                                    + " participant it concerns in conversations of at most this"
                                    + " many participants");

    public static final Setting<Boolean> TRACK_ROOT_SENDERS =
            Setting.bool("track-root-senders", false)
                    .described(
                            "`true`: a root's sender follows its thread by default though its"
                                    + " replies carry no `rootSenderId` (producers of version 3),"
                                    + " at the cost of every conversation message reaching its"
                                    + " sender's state");

    public static final Setting<Long> MAX_BARE_THREADS =
            Setting.wholeNumber(
                            "max-bare-threads",
                            ThreadSets.DEFAULT_MAX_BARE_THREADS,
                            1,
                            Integer.MAX_VALUE)
                    .described(
                            "per user and conversation, the most threads kept only for a cursor or"
                                    + " an explicit follow; past it the least recently touched is"
                                    + " forgotten");

    public static final Setting<Long> MAX_CHANNEL_SEQ =
            Setting.wholeNumber(
                            "max-channel-seq",
                            ChannelStage.DEFAULT_MAX_CHANNEL_SEQ,
                            1,
                            // A Redis string holds 512 MB: bits 0 to 2^32 - 1 of a bitmap.
                            (1L << 32) - 1)
                    .described(
                            "the largest seq a channel's message may have; a message past it counts"
                                    + " for nobody and raises a metric");

    /** Every setting of the job, in the order help and docs/contract.md list them. */
    private static final List<Setting<?>> SETTINGS =
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
                    Settings.JDBC_PASSWORD,
                    FLUSH_INTERVAL_MS,
                    BACKGROUND_FLUSH_INTERVAL_MS,
                    PARALLELISM,
                    MAX_PARALLELISM,
                    CHECKPOINT_INTERVAL_MS,
                    IDLE_STATE_DAYS,
                    MAX_FUTURE_SKEW_MS,
                    RECEIPT_PARTICIPANTS_MAX,
                    TRACK_ROOT_SENDERS,
                    MAX_BARE_THREADS,
                    MAX_CHANNEL_SEQ);

    /** The settings a flag may give (no secret), by flag name, with their defaults. */
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        for (Setting<?> setting : SETTINGS) {
            if (!setting.secret()) {
                DEFAULTS.put(setting.name(), setting.defaultValue());
            }
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

    /**
     * Counts of users nobody watches (no live stream) are written this often, and at every
     * checkpoint; live users' every {@link #flushIntervalMs}.
     */
    public final long backgroundFlushIntervalMs;

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

    /** A root's sender follows its thread though the replies do not name them; see the setting. */
    public final boolean trackRootSenders;

    /** See {@link #MAX_BARE_THREADS}. */
    public final int maxBareThreads;

    /** See {@link #MAX_CHANNEL_SEQ}. */
    public final long maxChannelSeq;

    /** Every setting's text as read, for the tools that must configure another part alike. */
    private final HashMap<String, String> texts = new HashMap<>();

    /** Every setting's value, by name. */
    private final HashMap<String, Object> values = new HashMap<>();

    private UnreadConfig(Map<String, String> flags, Map<String, String> env) {
        for (Setting<?> setting : SETTINGS) {
            String text = setting.from(flags, env);
            texts.put(setting.name(), text);
            values.put(setting.name(), setting.parse(setting.flag(), text));
        }
        kafkaBootstrap = get(Settings.KAFKA_BOOTSTRAP);
        messagesTopic = get(Settings.MESSAGES_TOPIC);
        readsTopic = get(Settings.READS_TOPIC);
        conversationsTopic = get(Settings.CONVERSATIONS_TOPIC);
        deadLetterTopic = get(Settings.DEAD_LETTER_TOPIC);
        groupId = get(GROUP_ID);
        kafkaProperties = get(Settings.KAFKA_PROPERTIES);
        redisUrl = get(Settings.REDIS_URL);
        redisClusterNodes = get(Settings.REDIS_CLUSTER_NODES);
        redisCaFile = get(Settings.REDIS_CA_FILE);
        redisKeyPrefix = get(Settings.REDIS_KEY_PREFIX);
        jdbcUrl = get(Settings.JDBC_URL);
        jdbcUser = get(Settings.JDBC_USER);
        jdbcPassword = get(Settings.JDBC_PASSWORD);
        flushIntervalMs = get(FLUSH_INTERVAL_MS);
        backgroundFlushIntervalMs = get(BACKGROUND_FLUSH_INTERVAL_MS);
        maxParallelism = Math.toIntExact(get(MAX_PARALLELISM));
        long asked = get(PARALLELISM);
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
        checkpointIntervalMs = get(CHECKPOINT_INTERVAL_MS);
        idleStateDays = get(IDLE_STATE_DAYS);
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
        maxFutureSkewMs = get(MAX_FUTURE_SKEW_MS);
        // A limit past what an int holds is no limit: no conversation has that many participants.
        receiptParticipantsMax = (int) Math.min(get(RECEIPT_PARTICIPANTS_MAX), Integer.MAX_VALUE);
        trackRootSenders = get(TRACK_ROOT_SENDERS);
        maxBareThreads = Math.toIntExact(get(MAX_BARE_THREADS));
        maxChannelSeq = get(MAX_CHANNEL_SEQ);
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
        return new UnreadConfig(flags, env);
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
    public String value(Setting<?> setting) {
        return texts.get(setting.name());
    }

    /** The settings by flag name with their defaults, in the order help lists them. */
    public static Map<String, String> defaults() {
        return Collections.unmodifiableMap(DEFAULTS);
    }

    /** The settings in the order help and docs/contract.md list them, the password included. */
    public static List<Setting<?>> settings() {
        return SETTINGS;
    }

    @SuppressWarnings("unchecked")
    private <T> T get(Setting<T> setting) {
        return (T) values.get(setting.name());
    }

    @Override
    public String toString() {
        // Each setting as declared: passwords and Kafka secrets as ***.
        return "UnreadConfig{" + Settings.shown(SETTINGS, s -> values.get(s.name())) + "}";
    }
}
