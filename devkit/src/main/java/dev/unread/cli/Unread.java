package dev.unread.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.appender.ConsoleAppender;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;
import org.apache.logging.log4j.core.selector.BasicContextSelector;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code unread} command line ({@code bin/unread}): {@code unread <command> [flags]}, on
 * picocli. Each command is one {@code @Command} class, registered in {@link #COMMANDS}; its flags,
 * defaults and help come from that class, the job's settings from {@link CommandFlags}.
 *
 * <p>Exit status: {@link #OK} done, {@link #FAILED} failed (the causes on stderr), {@link #USAGE}
 * the command line was wrong (the reason on stderr, no stack trace).
 */
@Command(
        name = "unread",
        description =
                "The unread developer kit: the job's whole stack in one process, its API,"
                        + " its benchmark and its savepoint tools.",
        synopsisSubcommandLabel = "<command>",
        commandListHeading = "%nCommands:%n",
        subcommands = {
            LocalCommand.class,
            ApiCommand.class,
            BenchCommand.class,
            SavepointCommand.class,
            BootstrapCommand.class,
            HelpCommand.class
        })
public final class Unread implements Callable<Integer> {

    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;

    /** The key of the root help's section listing the job settings. */
    private static final String SETTINGS_SECTION = "jobSettings";

    /** Where a command reads its environment and writes its output; tests pass their own. */
    public record Session(Map<String, String> env, PrintStream out, PrintStream err) {
        public static Session system() {
            return new Session(System.getenv(), System.out, System.err);
        }
    }

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "this help; a command's: unread help <command>")
    private boolean help;

    @Spec private CommandSpec spec;

    private final Session session;

    private Unread(Session session) {
        this.session = session;
    }

    public static void main(String[] args) {
        configureLogging();
        System.exit(run(args, Session.system()));
    }

    /** Runs the command {@code args} name and returns its exit status. */
    public static int run(String[] args, Session session) {
        return commandLine(session).execute(args);
    }

    /** Without a command: the usage, as an error. */
    @Override
    public Integer call() {
        CommandLine cli = spec.commandLine();
        cli.usage(cli.getErr(), cli.getColorScheme());
        return USAGE;
    }

    /** The command line of {@code unread}, writing to {@code session}'s streams. */
    public static CommandLine commandLine(Session session) {
        CommandLine cli = new CommandLine(new Unread(session));
        cli.setOut(new PrintWriter(session.out(), true));
        cli.setErr(new PrintWriter(session.err(), true));
        cli.setParameterExceptionHandler(Unread::usageError);
        cli.setExecutionExceptionHandler(Unread::failed);
        // An argument such as a key prefix may start with @: it is a value, not a file to read.
        cli.setExpandAtFiles(false);
        // The settings are the job's, listed once at the root; local and bench list them too.
        cli.getHelpSectionMap().put(SETTINGS_SECTION, CommandFlags::helpSection);
        List<String> sections = new ArrayList<>(cli.getHelpSectionKeys());
        sections.add(
                sections.indexOf(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER_HEADING),
                SETTINGS_SECTION);
        cli.setHelpSectionKeys(sections);
        return cli;
    }

    /** The session of the command line {@code spec} belongs to. */
    static Session session(CommandSpec spec) {
        return ((Unread) spec.root().userObject()).session;
    }

    /** The help of {@code unread}, or of the command {@code names} name, without colours. */
    static String usage(String... names) {
        CommandLine command = commandLine(Session.system());
        for (String name : names) {
            command = command.getSubcommands().get(name);
        }
        return command.getUsageMessage(Help.Ansi.OFF);
    }

    /** A wrong command line: the reason, and where to read the flags; no stack trace. */
    private static int usageError(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        String name = command.getCommandSpec().qualifiedName(" ");
        boolean root = command.getParent() == null;
        if (root
                && e instanceof UnmatchedArgumentException unmatched
                && !unmatched.getUnmatched().isEmpty()
                && !unmatched.getUnmatched().get(0).startsWith("-")) {
            err.println(name + ": unknown command '" + unmatched.getUnmatched().get(0) + "'");
        } else {
            err.println(name + ": " + e.getMessage());
        }
        UnmatchedArgumentException.printSuggestions(e, err);
        if (root) {
            err.println();
            err.print(command.getUsageMessage(command.getColorScheme()));
        } else {
            err.println("Run '" + name + " --help' for its flags.");
        }
        err.flush();
        return USAGE;
    }

    /**
     * A command that failed: its {@link UsageException} (a value out of range, found after parsing)
     * is a wrong command line, anything else a failure, told by its causes.
     */
    private static int failed(Exception e, CommandLine command, ParseResult parsed) {
        if (e instanceof UsageException) {
            return usageError(new ParameterException(command, e.getMessage(), e), new String[0]);
        }
        PrintWriter err = command.getErr();
        err.println(command.getCommandSpec().qualifiedName(" ") + ": " + causes(e));
        err.flush();
        return FAILED;
    }

    /** The messages of {@code e} and its causes, which say more to a user than a stack trace. */
    static String causes(Throwable e) {
        // Our own failures say what failed in their message; anything else needs its type too.
        boolean ours = e instanceof IllegalStateException || e instanceof IllegalArgumentException;
        StringBuilder sb = new StringBuilder(ours ? String.valueOf(e.getMessage()) : e.toString());
        Throwable cause = e.getCause();
        // A cause chain can loop; ten levels say all a user needs.
        for (int depth = 0; cause != null && depth < 10; depth++, cause = cause.getCause()) {
            sb.append("\n  caused by: ").append(cause);
        }
        return sb.toString();
    }

    /**
     * Warnings of the libraries and our own progress on stderr, so that stdout carries only what
     * the commands print. {@code -Dlog4j2.configurationFile} replaces this.
     */
    private static void configureLogging() {
        if (System.getProperty("log4j2.configurationFile") != null) {
            return;
        }
        // Flink loads its RPC system in a class loader of its own, which by default gets a
        // logging context of its own, configured by whatever log4j2 file it finds (Kafka's).
        System.setProperty("log4j2.contextSelector", BasicContextSelector.class.getName());
        ConfigurationBuilder<BuiltConfiguration> b =
                ConfigurationBuilderFactory.newConfigurationBuilder();
        b.setStatusLevel(Level.ERROR);
        b.add(
                b.newAppender("stderr", "Console")
                        .addAttribute("target", ConsoleAppender.Target.SYSTEM_ERR)
                        .add(
                                b.newLayout("PatternLayout")
                                        .addAttribute(
                                                "pattern", "%d{HH:mm:ss} %-5level %c{1}: %msg%n")));
        b.add(b.newRootLogger(Level.WARN).add(b.newAppenderRef("stderr")));
        b.add(b.newLogger("dev.unread", Level.INFO));
        // Warnings that are expected in one process without a log file or Kerberos.
        b.add(b.newLogger("org.apache.flink.runtime.webmonitor.WebMonitorUtils", Level.ERROR));
        b.add(b.newLogger("org.apache.flink.runtime.security.token", Level.ERROR));
        b.add(b.newLogger("org.apache.kafka.controller.QuorumController", Level.ERROR));
        // Flink warns at every checkpoint that two sink committers share a metric name.
        b.add(b.newLogger("org.apache.flink.metrics.MetricGroup", Level.ERROR));
        // Jedis warns on every connection that it speaks RESP2, which is what the sinks and the
        // API ask for.
        b.add(b.newLogger("redis.clients.jedis.Jedis", Level.ERROR));
        Configurator.reconfigure(b.build());
    }
}
