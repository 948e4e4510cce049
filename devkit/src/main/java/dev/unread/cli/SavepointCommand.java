package dev.unread.cli;

import dev.unread.config.UnreadConfig;
import dev.unread.ops.SavepointInspect;
import dev.unread.ops.SavepointRepublish;
import dev.unread.ops.SavepointUser;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code unread savepoint inspect|republish PATH}: the savepoint tools of dev.unread.ops. */
@Command(
        name = SavepointCommand.NAME,
        description = "Inspect a savepoint, or republish its counts to Redis.",
        synopsisSubcommandLabel = "<tool>",
        commandListHeading = "%nTools:%n",
        subcommands = {SavepointCommand.Inspect.class, SavepointCommand.Republish.class})
final class SavepointCommand implements Callable<Integer> {

    static final String NAME = "savepoint";

    @Spec private CommandSpec spec;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "this help")
    boolean help;

    /** Without a tool: which ones there are, as an error. */
    @Override
    public Integer call() {
        throw new UsageException("needs a tool: inspect or republish");
    }

    @Command(
            name = "inspect",
            description = {
                "What UnreadCounter's state in a savepoint or retained checkpoint holds: users,"
                        + " senders, conversations, unread seqs, and the largest users. With"
                        + " --user U: whether it holds anything of user U, operator by operator"
                        + " (after an erasure, which savepoints still keep the user)."
            },
            descriptionHeading = "%n",
            optionListHeading = "%nFlags:%n")
    static final class Inspect implements Callable<Integer> {

        @Spec private CommandSpec spec;

        @Parameters(paramLabel = "PATH", description = "the savepoint's or checkpoint's directory")
        String path;

        @Option(
                names = "--top",
                paramLabel = "N",
                defaultValue = "" + SavepointInspect.DEFAULT_TOP,
                description = "how many of the largest users to list (default ${DEFAULT-VALUE})")
        int top;

        @Option(
                names = "--user",
                paramLabel = "U",
                description = "what the savepoint holds of user U, state by state, instead")
        Long user;

        @Option(
                names = {"-h", "--help"},
                usageHelp = true,
                description = "this help")
        boolean help;

        @Override
        public Integer call() throws Exception {
            if (top < 0) {
                throw new UsageException("--top must be >= 0, was " + top);
            }
            if (user != null) {
                if (user <= 0) {
                    throw new UsageException("--user must be > 0, was " + user);
                }
                SavepointUser.print(
                        path, SavepointUser.inspect(path, user), Unread.session(spec).out());
                return Unread.OK;
            }
            SavepointInspect.print(
                    path, SavepointInspect.inspect(path, top), Unread.session(spec).out());
            return Unread.OK;
        }
    }

    @Command(
            name = "republish",
            description = {
                "Writes every count, reader score, channel index and channel track the savepoint"
                        + " holds to Redis (absolute values, as the job writes them): the"
                        + " recovery after Redis lost its data. Run it while the job is stopped,"
                        + " on the savepoint the job is then started from. It uses --redis-url and"
                        + " --redis-key-prefix of the job settings."
            },
            descriptionHeading = "%n",
            optionListHeading = "%nFlags:%n",
            abbreviateSynopsis = true,
            modelTransformer = CommandFlags.class)
    static final class Republish implements Callable<Integer> {

        @Spec private CommandSpec spec;

        @Parameters(paramLabel = "PATH", description = "the savepoint's directory")
        String path;

        @Option(
                names = {"-h", "--help"},
                usageHelp = true,
                description = "this help")
        boolean help;

        @Override
        public Integer call() throws Exception {
            Unread.Session session = Unread.session(spec);
            UnreadConfig config = CommandFlags.config(spec, session.env());
            SavepointRepublish.Written written = SavepointRepublish.republish(path, config);
            session.out()
                    .printf(
                            "Wrote %d counts, %d reader scores, %d channel indexes and %d channel"
                                    + " tracks from %s to %s%n",
                            written.counts(),
                            written.readerScores(),
                            written.channelIndexes(),
                            written.tracks(),
                            path,
                            config.redisEndpoint());
            return Unread.OK;
        }
    }
}
