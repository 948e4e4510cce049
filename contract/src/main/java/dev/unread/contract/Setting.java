package dev.unread.contract;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * One setting, declared once: a flag {@code --name}, an environment variable {@code UNREAD_NAME}, a
 * default, the values it takes and what it is for. A flag wins over the environment, the
 * environment over the default; the job, the API and the tools all read settings this way, and
 * their help, the settings tables of docs/contract.md and their logged form all come from the
 * declarations.
 *
 * <p>A secret has no flag (a process list or a shell history would show it): it is read from the
 * environment only, and shown as {@code ***}.
 *
 * @param <T> the type of its value
 */
public final class Setting<T> {

    /** How a setting's text becomes its value, and which values it takes. */
    private interface Type<T> {

        /** {@code text} as a value, the error naming the setting {@code what}. */
        T read(String what, String text);

        /** {@code value} if it is within bounds, the error naming the setting {@code what}. */
        default T check(String what, String unit, T value) {
            return value;
        }

        /** The bounds for a reader, e.g. {@code ≥ 1}; empty: any value of the type. */
        default String bounds() {
            return "";
        }
    }

    /** Whole numbers from {@code min} to {@code max}, as {@code T}. */
    private static final class WholeNumber<T extends Number> implements Type<T> {
        private final long min;
        private final long max;
        private final long typeMax;
        private final Function<Long, T> as;

        WholeNumber(long min, long max, long typeMax, Function<Long, T> as) {
            this.min = min;
            this.max = max;
            this.typeMax = typeMax;
            this.as = as;
        }

        @Override
        public T read(String what, String text) {
            return as.apply(Settings.wholeNumber(what, text, Long.MIN_VALUE, typeMax));
        }

        @Override
        public T check(String what, String unit, T value) {
            long n = value.longValue();
            if (n < min) {
                throw new IllegalArgumentException(
                        what + " must be >= " + min + unit + ", was " + n);
            }
            if (n > max) {
                throw new IllegalArgumentException(
                        what + " must be at most " + max + unit + ", was " + n);
            }
            return value;
        }

        @Override
        public String bounds() {
            return max == typeMax ? "≥ " + min : min + ".." + max;
        }
    }

    private final String name;
    private final String defaultValue;
    private final Type<T> type;
    private final String description;
    private final boolean secret;
    private final Function<? super T, String> shown;

    private Setting(
            String name,
            String defaultValue,
            Type<T> type,
            String description,
            boolean secret,
            Function<? super T, String> shown) {
        this.name = name;
        this.defaultValue = defaultValue;
        this.type = type;
        this.description = description;
        this.secret = secret;
        this.shown = shown;
    }

    /** Any text. */
    public static Setting<String> text(String name, String defaultValue) {
        return of(name, defaultValue, text -> text);
    }

    /** Text made into a value by {@code parse}, which throws IllegalArgumentException. */
    public static <T> Setting<T> of(String name, String defaultValue, Function<String, T> parse) {
        return new Setting<>(
                name, defaultValue, (what, text) -> parse.apply(text), "", false, String::valueOf);
    }

    /** A secret text, from the environment only; {@code defaultValue} null: unset. */
    public static Setting<String> secret(String name, String defaultValue) {
        return new Setting<>(name, defaultValue, (what, text) -> text, "", true, text -> "***");
    }

    /** {@code true} or anything else, which is false. */
    public static Setting<Boolean> bool(String name, boolean defaultValue) {
        return of(name, String.valueOf(defaultValue), Boolean::parseBoolean);
    }

    /** A whole number of at least {@code min}. */
    public static Setting<Long> wholeNumber(String name, long defaultValue, long min) {
        return wholeNumber(name, defaultValue, min, Long.MAX_VALUE);
    }

    /** A whole number from {@code min} to {@code max}. */
    public static Setting<Long> wholeNumber(String name, long defaultValue, long min, long max) {
        return number(name, defaultValue, new WholeNumber<>(min, max, Long.MAX_VALUE, n -> n));
    }

    /** A whole number of at least {@code min} that an int holds. */
    public static Setting<Integer> integer(String name, int defaultValue, int min) {
        return integer(name, defaultValue, min, Integer.MAX_VALUE);
    }

    /** A whole number from {@code min} to {@code max} that an int holds. */
    public static Setting<Integer> integer(String name, int defaultValue, int min, int max) {
        return number(
                name, defaultValue, new WholeNumber<>(min, max, Integer.MAX_VALUE, Long::intValue));
    }

    private static <T extends Number> Setting<T> number(
            String name, long defaultValue, WholeNumber<T> type) {
        return new Setting<>(name, String.valueOf(defaultValue), type, "", false, String::valueOf);
    }

    /** This setting, with what it is for, as help and the docs say it. */
    public Setting<T> described(String description) {
        return new Setting<>(name, defaultValue, type, description, secret, shown);
    }

    /** This setting, shown in logs by {@code shown}: one that hides the passwords a value holds. */
    public Setting<T> shownAs(Function<? super T, String> shown) {
        return new Setting<>(name, defaultValue, type, description, secret, shown);
    }

    /** {@code redis-key-prefix}. */
    public String name() {
        return name;
    }

    /** {@code --redis-key-prefix}. */
    public String flag() {
        return "--" + name;
    }

    /** {@code UNREAD_REDIS_KEY_PREFIX}. */
    public String env() {
        return envName(name);
    }

    /** The default as a flag would give it; null: unset. */
    public String defaultValue() {
        return defaultValue;
    }

    /** What it is for; may be empty. */
    public String description() {
        return description;
    }

    public boolean secret() {
        return secret;
    }

    /**
     * The text of this setting in {@code flags} (by name), else {@code env}, else the default; a
     * secret is never taken from a flag.
     */
    public String from(Map<String, String> flags, Map<String, String> env) {
        String flag = secret ? null : flags.get(name);
        if (flag != null) {
            return flag;
        }
        return env.getOrDefault(env(), defaultValue);
    }

    /**
     * {@code text} as this setting's value, in bounds; errors name it by {@code what} (its flag,
     * which spells the unit), e.g. {@code --flush-interval-ms must be >= 1, was 0}.
     */
    public T parse(String what, String text) {
        return type.check(what, "", read(what, text));
    }

    /** {@code text} as a value, not yet checked against the bounds; null stays null. */
    public T read(String what, String text) {
        return text == null ? null : type.read(what, text);
    }

    /**
     * {@code value} if it is within bounds, else an error naming it by {@code what} and showing the
     * unit its name ends with, e.g. {@code timeout must be >= 250 ms, was 10}.
     */
    public T check(String what, T value) {
        return value == null ? null : type.check(what, unit(), value);
    }

    /** The default as a value. */
    public T initial() {
        return parse(flag(), defaultValue);
    }

    /** The name in words, without a unit it ends with: {@code api timeout} for api-timeout-ms. */
    public String words() {
        String unit = unit();
        String stem = unit.isEmpty() ? name : name.substring(0, name.lastIndexOf('-'));
        return stem.replace('-', ' ');
    }

    /** As a Java field: {@code redisKeyPrefix}. */
    public String field() {
        StringBuilder field = new StringBuilder();
        for (String word : name.split("-")) {
            field.append(
                    field.isEmpty()
                            ? word
                            : Character.toUpperCase(word.charAt(0)) + word.substring(1));
        }
        return field.toString();
    }

    /** The bounds and the description, for a reader: {@code ≥ 1; Kafka consumer group}. */
    public String rule() {
        String bounds = type.bounds();
        if (bounds.isEmpty() || description.isEmpty()) {
            return bounds + description;
        }
        return bounds + "; " + description;
    }

    /** The default for a reader: {@code `100`}, {@code (empty)} or {@code (unset)}. */
    public String shownDefault() {
        if (defaultValue == null) {
            return "(unset)";
        }
        return defaultValue.isEmpty() ? "(empty)" : "`" + defaultValue + "`";
    }

    /**
     * {@code value} (of this setting's type) fit for a log line: a secret as {@code ***}, anything
     * else as declared, its passwords hidden.
     */
    public String shown(Object value) {
        if (value == null || value.equals("")) {
            return "";
        }
        @SuppressWarnings("unchecked")
        T typed = (T) value;
        return shown.apply(typed);
    }

    /** {@code redis-key-prefix} → {@code UNREAD_REDIS_KEY_PREFIX}. */
    public static String envName(String name) {
        return "UNREAD_" + name.replace('-', '_').toUpperCase(Locale.ROOT);
    }

    /** The unit the name ends with ({@code ms} for {@code -ms}, {@code s} for seconds), or none. */
    private String unit() {
        if (name.endsWith("-ms")) {
            return " ms";
        }
        return name.endsWith("-seconds") ? " s" : "";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Setting<?> other && name.equals(other.name);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name);
    }

    @Override
    public String toString() {
        return flag();
    }
}
