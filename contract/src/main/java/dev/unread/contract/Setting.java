package dev.unread.contract;

import java.util.Locale;
import java.util.Map;

/**
 * One setting: a flag {@code --name}, an environment variable {@code UNREAD_NAME} and a default. A
 * flag wins over the environment, the environment over the default; the job, the API and the tools
 * all read settings this way.
 */
public record Setting(String name, String defaultValue) {

    /** {@code --redis-key-prefix}. */
    public String flag() {
        return "--" + name;
    }

    /** {@code UNREAD_REDIS_KEY_PREFIX}. */
    public String env() {
        return envName(name);
    }

    /** The value of this setting in {@code flags} (by name), else {@code env}, else the default. */
    public String from(Map<String, String> flags, Map<String, String> env) {
        String flag = flags.get(name);
        if (flag != null) {
            return flag;
        }
        return env.getOrDefault(env(), defaultValue);
    }

    /** {@code redis-key-prefix} → {@code UNREAD_REDIS_KEY_PREFIX}. */
    public static String envName(String name) {
        return "UNREAD_" + name.replace('-', '_').toUpperCase(Locale.ROOT);
    }
}
