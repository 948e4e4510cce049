package dev.unread.contract;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The settings the job, the API and the tools share, with their defaults (docs/contract.md,
 * "Settings"), and the one parser of flags and whole numbers. Passwords never have a flag: they
 * come from the environment only, so they never show in a process list or a shell history.
 */
public final class Settings {

    public static final Setting KAFKA_BOOTSTRAP = new Setting("kafka-bootstrap", "127.0.0.1:9092");
    public static final Setting MESSAGES_TOPIC = new Setting("messages-topic", Topics.MESSAGES);
    public static final Setting READS_TOPIC = new Setting("reads-topic", Topics.READS);
    public static final Setting CONVERSATIONS_TOPIC =
            new Setting("conversations-topic", Topics.CONVERSATIONS);
    public static final Setting DEAD_LETTER_TOPIC =
            new Setting("dead-letter-topic", Topics.DEAD_LETTERS);

    /** {@code redis://[[user]:password@]host:port/db}, or {@code rediss://} for TLS. */
    public static final Setting REDIS_URL = new Setting("redis-url", "redis://127.0.0.1:6379/0");

    /**
     * Seed nodes {@code host:port,host:port} of a Redis Cluster; when set, the cluster is used and
     * {@link #REDIS_URL} gives only the user, the password and TLS.
     */
    public static final Setting REDIS_CLUSTER_NODES = new Setting("redis-cluster-nodes", "");

    /** A PEM file of the CA certificates a {@code rediss://} server is checked against. */
    public static final Setting REDIS_CA_FILE = new Setting("redis-ca-file", "");

    /** Put before every Redis key and channel. */
    public static final Setting REDIS_KEY_PREFIX = new Setting("redis-key-prefix", "");

    public static final Setting JDBC_URL =
            new Setting("jdbc-url", "jdbc:mysql://127.0.0.1:3306/test");
    public static final Setting JDBC_USER = new Setting("jdbc-user", "root");

    /**
     * A Kafka {@code client.properties} file applied to every Kafka client of the job and the API
     * ({@link KafkaClientProperties}); empty: none.
     */
    public static final Setting KAFKA_PROPERTIES = new Setting("kafka-properties", "");

    /** The MySQL password: from the environment only. */
    public static final String JDBC_PASSWORD_ENV = "UNREAD_JDBC_PASSWORD";

    private Settings() {}

    /**
     * Flags of the form {@code --name value} or {@code --name=value}, by name.
     *
     * @throws IllegalArgumentException on anything else, naming it
     */
    public static Map<String, String> parseFlags(String[] args) {
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw new IllegalArgumentException("expected --name value, got " + arg);
            }
            int eq = arg.indexOf('=');
            if (eq > 0) {
                flags.put(arg.substring(2, eq), arg.substring(eq + 1));
            } else if (i + 1 < args.length) {
                flags.put(arg.substring(2), args[++i]);
            } else {
                throw new IllegalArgumentException(arg + " needs a value");
            }
        }
        return flags;
    }

    /**
     * {@code value} as a whole number of at least {@code min}.
     *
     * @param what how the error names the setting, e.g. {@code --flush-interval-ms}
     * @throws IllegalArgumentException naming {@code what} and the value
     */
    public static long wholeNumber(String what, String value, long min) {
        long parsed;
        try {
            parsed = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " must be a whole number, was " + value);
        }
        if (parsed < min) {
            throw new IllegalArgumentException(what + " must be >= " + min + ", was " + parsed);
        }
        return parsed;
    }

    /**
     * {@code value} as a whole number from {@code min} to {@code max}.
     *
     * @param what how the error names the setting, e.g. {@code --max-parallelism}
     * @throws IllegalArgumentException naming {@code what} and the value
     */
    public static long wholeNumber(String what, String value, long min, long max) {
        long parsed = wholeNumber(what, value, min);
        if (parsed > max) {
            throw new IllegalArgumentException(
                    what + " must be at most " + max + ", was " + parsed);
        }
        return parsed;
    }

    /**
     * {@code url} fit for a log line: the password of a {@code scheme://user:password@host} URL and
     * any {@code password=} parameter replaced by {@code ***}.
     */
    public static String masked(String url) {
        return url.replaceAll("//([^:@/]*):[^@/]*@", "//$1:***@")
                .replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
