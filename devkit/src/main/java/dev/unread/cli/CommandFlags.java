package dev.unread.cli;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.Setting;
import dev.unread.contract.Settings;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The job's settings ({@link UnreadConfig#settings()}) as flags of a command: a command that runs
 * the job names this class as its {@code modelTransformer} and reads the flags given with {@link
 * #given}. The values are read by {@link UnreadConfig#from}, which alone decides that a flag wins
 * over the environment and the environment over the default, and checks them; the defaults shown in
 * help are the declared ones (or the command's own, from its default provider), with the rule each
 * setting declares. A command that declares an option of a setting's name itself (to refuse it,
 * say) keeps its own.
 */
final class CommandFlags implements CommandLine.IModelTransformer {

    @Override
    public CommandSpec transform(CommandSpec command) {
        ArgGroupSpec.Builder group =
                ArgGroupSpec.builder()
                        .heading(heading())
                        .exclusive(false)
                        .multiplicity("0..1")
                        // A section of the help, not a group of flags that go together.
                        .validate(false);
        for (Setting<?> setting : UnreadConfig.settings()) {
            if (setting.secret() || command.findOption(setting.flag()) != null) {
                continue;
            }
            OptionSpec option =
                    OptionSpec.builder(setting.flag())
                            .paramLabel("VALUE")
                            .type(String.class)
                            .defaultValue(setting.defaultValue())
                            .build();
            String rule = setting.rule().isEmpty() ? "" : "; " + setting.rule().replace("`", "");
            group.addArg(
                    option.toBuilder()
                            .description(
                                    (defaultOf(command, option).isEmpty()
                                                    ? setting.env() + " (default: empty)"
                                                    : setting.env()
                                                            + " (default: ${DEFAULT-VALUE})")
                                            + rule)
                            .build());
        }
        command.addArgGroup(group.build());
        return command;
    }

    /**
     * The default {@code option} gets on {@code command}: its provider's, else the declared one.
     */
    private static String defaultOf(CommandSpec command, OptionSpec option) {
        try {
            String provided =
                    command.defaultValueProvider() == null
                            ? null
                            : command.defaultValueProvider().defaultValue(option);
            return provided != null ? provided : option.defaultValue();
        } catch (Exception e) {
            throw new IllegalStateException("the default of " + option.longestName(), e);
        }
    }

    /**
     * The settings given as flags on the command line {@code command} parsed, by name: only those,
     * so that the environment still counts for the rest.
     */
    static Map<String, String> given(CommandSpec command) {
        ParseResult parsed = command.commandLine().getParseResult();
        Map<String, String> flags = new LinkedHashMap<>();
        for (String name : UnreadConfig.defaults().keySet()) {
            if (parsed.hasMatchedOption("--" + name)) {
                flags.put(name, parsed.matchedOptionValue("--" + name, ""));
            }
        }
        return flags;
    }

    /**
     * The job's settings: the flags {@code command} was given over the environment over the
     * defaults; a value out of range is a wrong command line.
     */
    static UnreadConfig config(CommandSpec command, Map<String, String> env) {
        try {
            return UnreadConfig.from(given(command), env);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
    }

    /** The settings with their variables and defaults, for the help of {@code unread}. */
    static String helpSection(Help help) {
        CommandSpec settings = CommandSpec.create();
        settings.usageMessage().sortOptions(false);
        new CommandFlags().transform(settings);
        Help list = new Help(settings, help.colorScheme());
        return list.optionListHeading() + list.optionList();
    }

    private static String heading() {
        return "%nJob settings: a flag wins over its variable, the variable over the default."
                + "%nThe MySQL password comes only from "
                + Settings.JDBC_PASSWORD_ENV
                + ".%n";
    }
}
