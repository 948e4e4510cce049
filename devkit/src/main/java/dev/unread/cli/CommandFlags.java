package dev.unread.cli;

import dev.unread.config.UnreadConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The flags of a command that runs its own broker ({@code local}, {@code bench}): the command's
 * own, with their defaults filled in, and the rest, which are job settings.
 *
 * @param own the command's own flags, each given or defaulted
 * @param settings every other flag, for {@link UnreadConfig}
 */
record CommandFlags(Map<String, String> own, Map<String, String> settings) {

    /**
     * Splits {@code args}; a {@code --kafka-bootstrap} is refused with {@code whyNoBootstrap},
     * since the command brings its own broker.
     */
    static CommandFlags parse(
            List<String> args, Map<String, String> ownDefaults, String whyNoBootstrap) {
        Map<String, String> settings;
        try {
            settings = new HashMap<>(UnreadConfig.parseFlags(args.toArray(String[]::new)));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
        Map<String, String> own = new HashMap<>(ownDefaults);
        for (String name : ownDefaults.keySet()) {
            String value = settings.remove(name);
            if (value != null) {
                own.put(name, value);
            }
        }
        if (settings.containsKey("kafka-bootstrap")) {
            throw new UsageException("--kafka-bootstrap: " + whyNoBootstrap);
        }
        return new CommandFlags(own, settings);
    }
}
