package dev.unread.contract;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The settings the job, the API and the tools share, declared once (docs/contract.md, "Settings"),
 * and the one parser of flags and whole numbers. Passwords never have a flag: they come from the
 * environment only, so they never show in a process list or a shell history.
 */
public final class Settings {

    public static final Setting<String> KAFKA_BOOTSTRAP =
            Setting.text("kafka-bootstrap", "127.0.0.1:9092");
    public static final Setting<String> MESSAGES_TOPIC =
            Setting.text("messages-topic", Topics.MESSAGES);
    public static final Setting<String> READS_TOPIC =
            Setting.text("reads-topic", Topics.READS)
                    .described("where the job reads read events and the API's POST routes publish");
    public static final Setting<String> CONVERSATIONS_TOPIC =
            Setting.text("conversations-topic", Topics.CONVERSATIONS);
    public static final Setting<String> DEAD_LETTER_TOPIC =
            Setting.text("dead-letter-topic", Topics.DEAD_LETTERS);

    public static final Setting<String> REDIS_URL =
            Setting.text("redis-url", "redis://127.0.0.1:6379/0")
                    .described(
                            "`redis://` or `rediss://` (TLS); `user:password@` for an ACL user;"
                                    + " a password belongs in the variable, not the flag")
                    .shownAs(Settings::masked);

    /** When set, the cluster is used and {@link #REDIS_URL} gives only the user, password, TLS. */
    public static final Setting<String> REDIS_CLUSTER_NODES =
            Setting.text("redis-cluster-nodes", "")
                    .described(
                            "`host:port,...`: seed nodes of a Redis Cluster; empty: the URL's one"
                                    + " node");

    public static final Setting<String> REDIS_CA_FILE =
            Setting.text("redis-ca-file", "")
                    .described(
                            "PEM file of the CAs a `rediss://` server is checked against; empty:"
                                    + " the JVM's");

    public static final Setting<String> REDIS_KEY_PREFIX =
            Setting.text("redis-key-prefix", "").described("before every key and channel");

    public static final Setting<String> JDBC_URL =
            Setting.text("jdbc-url", "jdbc:mysql://127.0.0.1:3306/test")
                    .described("MySQL's; the API refuses one not starting with `jdbc:mysql:`")
                    .shownAs(Settings::masked);
    public static final Setting<String> JDBC_USER = Setting.text("jdbc-user", "root");

    /** The MySQL password: a secret. */
    public static final Setting<String> JDBC_PASSWORD =
            Setting.secret("jdbc-password", "").described("MySQL's password; environment only");

    /** Read when the settings are read, kept as written ({@link KafkaClientProperties}). */
    public static final Setting<Map<String, String>> KAFKA_PROPERTIES =
            Setting.of("kafka-properties", "", KafkaClientProperties::load)
                    .described(
                            "a Kafka `client.properties` file for every Kafka client, as"
                                    + " \"Secured connections\" says")
                    .shownAs(KafkaClientProperties::masked);

    public static final String JDBC_PASSWORD_ENV = JDBC_PASSWORD.env();

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
     * The markdown table of {@code settings}, one row each in their order, as docs/contract.md has
     * it: with a column of flags for the job's, without for the API's, which takes none.
     */
    public static String table(List<Setting<?>> settings, boolean flags) {
        StringBuilder table =
                new StringBuilder(
                        flags
                                ? "| flag | environment | default | rule |\n| --- | --- | --- | --- |\n"
                                : "| environment | default | rule |\n| --- | --- | --- |\n");
        for (Setting<?> setting : settings) {
            if (flags) {
                table.append(setting.secret() ? "| " : "| `" + setting.flag() + "` ");
            }
            table.append("| `")
                    .append(setting.env())
                    .append("` | ")
                    .append(setting.shownDefault())
                    .append(" | ")
                    .append(setting.rule())
                    .append(setting.rule().isEmpty() ? "|\n" : " |\n");
        }
        return table.toString();
    }

    /**
     * {@code values} of {@code settings} fit for a log line: {@code redisUrl=redis://:***@h:1/0}.
     */
    public static String shown(List<Setting<?>> settings, Function<Setting<?>, Object> values) {
        StringBuilder text = new StringBuilder();
        for (Setting<?> setting : settings) {
            text.append(text.isEmpty() ? "" : ", ")
                    .append(setting.field())
                    .append('=')
                    .append(setting.shown(values.apply(setting)));
        }
        return text.toString();
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
