package dev.unread.cli;

import dev.unread.config.UnreadConfig;
import dev.unread.ops.Bootstrap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code unread bootstrap --output DIR}: {@link Bootstrap}, a savepoint from MySQL history. */
@Command(
        name = "bootstrap",
        description = {
            "Build a savepoint from MySQL history (messages, groups and cursors).",
            "",
            "Builds a savepoint of the job's state from MySQL history: the messages table, the"
                    + " group messages and membership tables, the channels among the groups,"
                    + " user_activity and conversation_member, at --jdbc-url as --jdbc-user (the"
                    + " password from UNREAD_JDBC_PASSWORD), for --max-parallelism. Start the job"
                    + " from it with flink run -s DIR."
        },
        descriptionHeading = "%n",
        optionListHeading = "%nFlags:%n",
        abbreviateSynopsis = true,
        sortOptions = false,
        modelTransformer = CommandFlags.class)
final class BootstrapCommand implements Callable<Integer> {

    @Spec private CommandSpec spec;

    @Option(
            names = "--output",
            paramLabel = "DIR",
            required = true,
            description = "where the savepoint goes")
    String output;

    @Option(
            names = "--messages-table",
            paramLabel = "NAME",
            defaultValue = Bootstrap.DEFAULT_MESSAGES_TABLE,
            description = "the messages table, optionally schema.table (default ${DEFAULT-VALUE})")
    String messagesTable;

    @Option(
            names = "--group-messages-table",
            paramLabel = "NAME",
            defaultValue = Bootstrap.DEFAULT_GROUP_MESSAGES_TABLE,
            description = "group messages, each stored once (default ${DEFAULT-VALUE})")
    String groupMessagesTable;

    @Option(
            names = "--membership-table",
            paramLabel = "NAME",
            defaultValue = Bootstrap.DEFAULT_MEMBERSHIP_TABLE,
            description = "the groups' membership events (default ${DEFAULT-VALUE})")
    String membershipTable;

    @Option(
            names = "--channels-table",
            paramLabel = "NAME",
            defaultValue = Bootstrap.DEFAULT_CHANNELS_TABLE,
            description =
                    "the conversations of the group tables that are channels (default"
                            + " ${DEFAULT-VALUE}; when it does not exist, none is)")
    String channelsTable;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "this help")
    boolean help;

    @Override
    public Integer call() throws Exception {
        Unread.Session session = Unread.session(spec);
        UnreadConfig config = CommandFlags.config(spec, session.env());
        tableName("--messages-table", messagesTable);
        tableName("--group-messages-table", groupMessagesTable);
        tableName("--membership-table", membershipTable);
        tableName("--channels-table", channelsTable);
        Bootstrap.bootstrap(
                config,
                new Bootstrap.Tables(
                        messagesTable, groupMessagesTable, membershipTable, channelsTable),
                output);
        Bootstrap.report(output, session.out());
        return Unread.OK;
    }

    private static void tableName(String flag, String name) {
        try {
            Bootstrap.tableName(name);
        } catch (IllegalArgumentException e) {
            throw new UsageException(flag + ": " + e.getMessage(), e);
        }
    }
}
