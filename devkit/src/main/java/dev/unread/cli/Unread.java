package dev.unread.cli;

import dev.unread.config.UnreadConfig;
import dev.unread.ops.Bootstrap;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.appender.ConsoleAppender;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;
import org.apache.logging.log4j.core.selector.BasicContextSelector;

/**
 * The {@code unread} command line ({@code bin/unread}): {@code unread <command> [flags]}.
 *
 * <p>Exit status: 0 done, 1 failed, 2 the command line was wrong (message and usage on stderr). A
 * command is one entry in {@link #COMMANDS}: a name, a summary, its usage and the code to run.
 */
public final class Unread {

    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;

    /** Where a command reads its environment and writes its output; tests pass their own. */
    public record Session(Map<String, String> env, PrintStream out, PrintStream err) {
        public static Session system() {
            return new Session(System.getenv(), System.out, System.err);
        }
    }

    /** What a command runs: the arguments after its name, returning the exit status. */
    @FunctionalInterface
    public interface Command {
        int run(List<String> args, Session session) throws Exception;
    }

    /** A command as listed by {@code unread help}. */
    public record Subcommand(
            String name, String summary, Supplier<String> usage, Command command) {}

    private static final List<Subcommand> COMMANDS =
            List.of(
                    new Subcommand(
                            LocalStack.NAME,
                            "Kafka, Flink (web UI), the job, the API and generated traffic,"
                                    + " in one process",
                            LocalStack::usage,
                            LocalStack::run),
                    new Subcommand(
                            ApiCommand.NAME,
                            "the HTTP API alone, configured by the UNREAD_* environment",
                            ApiCommand::usage,
                            ApiCommand::run),
                    new Subcommand(
                            BenchCommand.NAME,
                            "the job against a naive SADD worker and SQL, on the same records",
                            BenchCommand::usage,
                            BenchCommand::run),
                    new Subcommand(
                            SavepointCommand.NAME,
                            "inspect a savepoint, or republish its counts to Redis",
                            SavepointCommand::usage,
                            SavepointCommand::run),
                    new Subcommand(
                            "bootstrap",
                            "build a savepoint from MySQL history (messages and cursors)",
                            Bootstrap::usage,
                            (args, session) -> Bootstrap.run(
                                    args.toArray(new String[0]),
                                    session.env(),
                                    session.out(),
                                    session.err())),
                    new Subcommand(
                            "help",
                            "this help, or one command's flags: unread help local",
                            Unread::usage,
                            Unread::help));

    private Unread() {}

    public static void main(String[] args) {
        configureLogging();
        System.exit(run(args, Session.system()));
    }

    /** Runs the command {@code args} name and returns its exit status. */
    public static int run(String[] args, Session session) {
        if (args.length == 0) {
            session.err().print(usage());
            return USAGE;
        }
        String name = args[0].equals("--help") || args[0].equals("-h") ? "help" : args[0];
        Subcommand command = find(name);
        if (command == null) {
            session.err().println("unread: unknown command '" + name + "'");
            session.err().println();
            session.err().print(usage());
            return USAGE;
        }
        List<String> rest = List.of(args).subList(1, args.length);
        try {
            if (rest.contains("--help") || rest.contains("-h")) {
                session.out().print(command.usage().get());
                return OK;
            }
            return command.command().run(rest, session);
        } catch (UsageException e) {
            session.err().println("unread " + name + ": " + e.getMessage());
            session.err().println("Run 'unread help " + name + "' for its flags.");
            return USAGE;
        } catch (Exception e) {
            session.err().println("unread " + name + ": " + causes(e));
            return FAILED;
        }
    }

    /** The commands, their summaries and the settings every command that runs the job takes. */
    public static String usage() {
        StringBuilder sb = new StringBuilder();
        sb.append("Usage: unread <command> [flags]\n\nCommands:\n");
        for (Subcommand command : COMMANDS) {
            sb.append(String.format("  %-12s %s%n", command.name(), command.summary()));
        }
        sb.append("\nJob settings (flag, environment variable, default); a flag wins over the")
                .append(" environment:\n")
                .append(UnreadConfig.usage());
        return sb.toString();
    }

    private static int help(List<String> args, Session session) {
        if (args.isEmpty()) {
            session.out().print(usage());
            return OK;
        }
        Subcommand command = find(args.get(0));
        if (command == null || args.size() > 1) {
            throw new UsageException("help takes one command name, got " + String.join(" ", args));
        }
        session.out().print(command.usage().get());
        return OK;
    }

    private static Subcommand find(String name) {
        return COMMANDS.stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
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
