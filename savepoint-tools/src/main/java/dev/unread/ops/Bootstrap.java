package dev.unread.ops;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.MySqlSchema;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.jdbc.core.datastream.source.JdbcSource;
import org.apache.flink.connector.jdbc.core.datastream.source.reader.extractor.ResultExtractor;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code unread bootstrap --output DIR}: builds a savepoint of the job's state from the history in
 * MySQL — a messages table, the group tables (group messages stored once, membership events) and
 * {@code user_activity} and {@code conversation_member} — so that the job started from it ({@code
 * flink run -s DIR}) counts exactly what SQL counts over that history, and every event after it
 * adds to that.
 *
 * <p>The state is what the counter itself would hold after those events: per user the inbox
 * watermark ({@code user_activity.last_read_at}) and each sender whose newest message is newer than
 * it, with that message's time; per conversation the cursor ({@code
 * conversation_member.last_read_seq}) and the seqs past it of messages from others. SQL does the
 * filtering and the keyed function only stores, through the counter's own descriptors, at the job's
 * max parallelism. A group message counts as the messages table's row to each user who was a member
 * at its seq would (see {@link Tables#received}), and each user's newest membership event in a
 * conversation is kept with that conversation, so a leaver's counts stay hidden.
 *
 * <p>The messages table has the columns {@code sender_id, receiver_id, conversation_id, seq,
 * sent_at} (DATETIME(3), UTC); {@code conversation_id} and {@code seq} are both NULL for a message
 * outside a conversation. Rows the job's parser would refuse (ids or times out of range, only one
 * of conversation and seq) count toward nothing, as they would in Kafka.
 *
 * <p>The other two keyed operators group traffic touches get their state too, through their own
 * descriptors: GroupFanOut every membership event of each conversation, so a later message (or a
 * replayed one) reaches exactly the members at its seq; ConversationReaders the participants of
 * each conversation (the users with a membership event, and the senders and receivers of messages
 * table rows in it, but those whose newest membership event is a leave), their cursors and each
 * member's newest membership event.
 *
 * <p>The group messages table has the columns {@code conversation_id, seq, sender_id, sent_at}; the
 * membership table {@code conversation_id, user_id, seq, joined} (true: MEMBER_JOINED, false:
 * MEMBER_LEFT), as docker/mysql/init/03-groups.sql creates them. Rows chat-conversations' parser
 * would refuse count toward nothing.
 *
 * <p>The channels table ({@code conversation_id}) declares which conversations of the group tables
 * are channels, each as a {@code CHANNEL} before its other records would: {@link ChannelBootstrap}
 * builds their state, and the queries here leave their messages and their members' reads out. When
 * the table of the default name does not exist, no conversation is a channel, as before there was
 * one; every other conversation is a group, and a {@code CHANNEL} published later for it comes
 * after its other records, and changes nothing.
 */
public final class Bootstrap {

    public static final String DEFAULT_MESSAGES_TABLE = "messages";

    public static final String DEFAULT_GROUP_MESSAGES_TABLE = "group_messages";

    public static final String DEFAULT_MEMBERSHIP_TABLE = "group_membership_events";

    public static final String DEFAULT_CHANNELS_TABLE = "group_channels";

    static final String DRIVER = "com.mysql.cj.jdbc.Driver";

    /**
     * The time of a read from {@code conversation_member}, which keeps none: the earliest there is,
     * so that every later event of the reader (a mark, an erasure) comes after it, as the history
     * does.
     */
    static final long READ_TIME = 1;

    /** The SQLSTATE of a table that does not exist (MySQL and MariaDB error 1146). */
    private static final String NO_SUCH_TABLE = "42S02";

    /** A table name goes into SQL text, so only plain (optionally schema-qualified) names. */
    private static final Pattern TABLE_NAME =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]*" + "(\\.[A-Za-z_][A-Za-z0-9_]*)?");

    /** A message the job's parser accepts; {@code m} is the messages table. */
    static final String VALID_MESSAGE =
            "m.sender_id > 0 AND m.receiver_id > 0"
                    + " AND m.sent_at > '1970-01-01 00:00:00'"
                    + " AND ((m.conversation_id IS NULL AND m.seq IS NULL)"
                    + " OR (m.conversation_id > 0 AND m.seq > 0))";

    /**
     * A group message chat-conversations' parser accepts; {@code g} is the group messages table.
     */
    static final String VALID_GROUP_MESSAGE =
            "g.conversation_id > 0 AND g.seq > 0 AND g.sender_id > 0"
                    + " AND g.sent_at > '1970-01-01 00:00:00'";

    /** A membership event the parser accepts; {@code e} is the membership table. */
    static final String VALID_MEMBERSHIP = "e.conversation_id > 0 AND e.user_id > 0 AND e.seq > 0";

    /**
     * The tables the bootstrap reads, each a plain, optionally schema-qualified name.
     *
     * @param messages messages to one receiver each
     * @param groupMessages group messages, each stored once
     * @param membership the membership events of the groups
     * @param channels the conversations of the group tables that are channels; null for none
     */
    public record Tables(
            String messages, String groupMessages, String membership, String channels) {

        public static final Tables DEFAULT =
                new Tables(
                        DEFAULT_MESSAGES_TABLE,
                        DEFAULT_GROUP_MESSAGES_TABLE,
                        DEFAULT_MEMBERSHIP_TABLE,
                        DEFAULT_CHANNELS_TABLE);

        /**
         * @throws IllegalArgumentException if a name is not a table name
         */
        public Tables {
            tableName(messages);
            tableName(groupMessages);
            tableName(membership);
            if (channels != null) {
                tableName(channels);
            }
        }

        /** These tables but the channels': every conversation of the group tables a group. */
        Tables withoutChannels() {
            return new Tables(messages, groupMessages, membership, null);
        }

        /** SQL that is true when {@code conversation} (a column) is declared a channel. */
        String isChannel(String conversation) {
            return channels == null
                    ? "FALSE"
                    : "EXISTS (SELECT 1 FROM "
                            + channels
                            + " ch WHERE ch.conversation_id = "
                            + conversation
                            + ")";
        }

        /**
         * SQL that is true when {@code user} has a membership event in {@code conversation}, a
         * channel: the job's user state then knows the channel, and hands the user's reads of it to
         * the channel stage.
         */
        String isChannelMember(String user, String conversation) {
            return isChannel(conversation)
                    + " AND EXISTS (SELECT 1 FROM "
                    + membership
                    + " e WHERE "
                    + VALID_MEMBERSHIP
                    + " AND e.user_id = "
                    + user
                    + " AND e.conversation_id = "
                    + conversation
                    + ")";
        }

        /**
         * Every message each user received, as a derived table {@code m} of valid rows with the
         * messages table's columns: its rows, and each group message once for each user whose
         * newest membership event below the message's seq is a join (a leave at the same seq wins).
         * The sender is among them when a member: the queries drop messages to oneself. A channel's
         * messages reach no one here: the channel stage counts them once, not per member.
         */
        String received() {
            return "(SELECT m.sender_id, m.receiver_id, m.conversation_id, m.seq, m.sent_at FROM "
                    + messages
                    + " m WHERE "
                    + VALID_MESSAGE
                    + " UNION ALL"
                    + " SELECT g.sender_id, e.user_id, g.conversation_id, g.seq, g.sent_at FROM "
                    + groupMessages
                    + " g JOIN "
                    + membership
                    + " e ON e.conversation_id = g.conversation_id AND e.seq < g.seq AND e.joined"
                    + " WHERE "
                    + VALID_GROUP_MESSAGE
                    + " AND "
                    + VALID_MEMBERSHIP
                    + " AND NOT "
                    + isChannel("g.conversation_id")
                    + " AND NOT EXISTS (SELECT 1 FROM "
                    + membership
                    + " x WHERE x.conversation_id = e.conversation_id AND x.user_id = e.user_id"
                    + " AND x.seq < g.seq AND (x.seq > e.seq OR (x.seq = e.seq AND NOT x.joined))))"
                    + " m";
        }
    }

    private Bootstrap() {}

    /**
     * What {@link #bootstrap} wrote to {@code output}, read back the way the job will read it, and
     * how to start the job from it.
     */
    public static void report(String output, PrintStream out) throws Exception {
        SavepointInspect.print(output, SavepointInspect.inspect(output, 0), out);
        out.println();
        out.println("Start the job from it: flink run -s " + output + " ...");
    }

    /**
     * Writes the savepoint of the history in {@code config}'s database to {@code output}.
     *
     * @throws IllegalArgumentException naming the table, when one of the tables cannot be read
     */
    public static void bootstrap(UnreadConfig config, Tables tables, String output)
            throws Exception {
        Tables readable = checkReadable(config, tables);
        try (BatchJobs jobs = BatchJobs.start()) {
            bootstrap(jobs.environment(), config, readable, output);
        }
    }

    private static void bootstrap(
            StreamExecutionEnvironment env, UnreadConfig config, Tables tables, String output)
            throws Exception {

        String inboxCursors =
                "SELECT user_id, last_read_at FROM user_activity"
                        + " WHERE last_read_at > '1970-01-01 00:00:00'";
        String senders =
                "SELECT m.receiver_id, m.sender_id, MAX(m.sent_at)"
                        + " FROM "
                        + tables.received()
                        + " LEFT JOIN user_activity a ON a.user_id = m.receiver_id"
                        + " WHERE m.sender_id <> m.receiver_id"
                        + " AND (a.last_read_at IS NULL OR m.sent_at > a.last_read_at)"
                        + " GROUP BY m.receiver_id, m.sender_id";
        // A channel member's reads are the channel stage's: ChannelBootstrap has them.
        String conversationCursors =
                "SELECT c.user_id, c.conversation_id, c.last_read_seq"
                        + " FROM conversation_member c WHERE c.last_read_seq > 0 AND NOT ("
                        + tables.isChannelMember("c.user_id", "c.conversation_id")
                        + ")";
        String unreadSeqs =
                "SELECT DISTINCT m.receiver_id, m.conversation_id, m.seq"
                        + " FROM "
                        + tables.received()
                        + " LEFT JOIN conversation_member c"
                        + " ON c.conversation_id = m.conversation_id AND c.user_id = m.receiver_id"
                        + " WHERE m.sender_id <> m.receiver_id"
                        + " AND m.conversation_id IS NOT NULL AND m.seq > COALESCE(c.last_read_seq, 0)";
        String membershipEvents =
                "SELECT e.user_id, e.conversation_id,"
                        + " CASE WHEN e.joined THEN e.seq ELSE -e.seq END FROM "
                        + tables.membership()
                        + " e WHERE "
                        + VALID_MEMBERSHIP;
        // A channel's member keeps no record of it in the user's state but the channel's id.
        String groupMembershipEvents =
                membershipEvents + " AND NOT " + tables.isChannel("e.conversation_id");
        // Everyone a membership event or a message names, but a member whose newest membership
        // event is a leave (a join at the same seq does not beat it), as ConversationReaders.
        String participants =
                "SELECT p.user_id, p.conversation_id, 0 FROM (SELECT e.user_id AS user_id,"
                        + " e.conversation_id AS conversation_id FROM "
                        + tables.membership()
                        + " e WHERE "
                        + VALID_MEMBERSHIP
                        + " UNION SELECT m.sender_id, m.conversation_id FROM "
                        + tables.messages()
                        + " m WHERE "
                        + VALID_MESSAGE
                        + " AND m.conversation_id IS NOT NULL"
                        + " UNION SELECT m.receiver_id, m.conversation_id FROM "
                        + tables.messages()
                        + " m WHERE "
                        + VALID_MESSAGE
                        + " AND m.conversation_id IS NOT NULL) p WHERE NOT EXISTS (SELECT 1 FROM "
                        + tables.membership()
                        + " e WHERE "
                        + VALID_MEMBERSHIP
                        + " AND e.user_id = p.user_id AND e.conversation_id = p.conversation_id"
                        + " AND NOT e.joined AND NOT EXISTS (SELECT 1 FROM "
                        + tables.membership()
                        + " j WHERE j.user_id = e.user_id AND j.conversation_id = e.conversation_id"
                        + " AND j.joined AND j.seq > e.seq))";

        DataStream<HistoryRow> cursors =
                rows(env, config, conversationCursors, HistoryRow.Kind.CONVERSATION_CURSOR, false);
        DataStream<HistoryRow> memberships =
                rows(env, config, membershipEvents, HistoryRow.Kind.MEMBERSHIP, false);
        DataStream<HistoryRow> history =
                rows(env, config, inboxCursors, HistoryRow.Kind.INBOX_CURSOR, true)
                        .union(
                                rows(env, config, senders, HistoryRow.Kind.SENDER, true),
                                cursors,
                                rows(env, config, unreadSeqs, HistoryRow.Kind.UNREAD_SEQ, false),
                                rows(
                                        env,
                                        config,
                                        groupMembershipEvents,
                                        HistoryRow.Kind.MEMBERSHIP,
                                        false));
        DataStream<HistoryRow> readers =
                rows(env, config, participants, HistoryRow.Kind.PARTICIPANT, false)
                        .union(cursors, memberships);
        DataStream<HistoryRow> members = memberships;

        SavepointWriter savepoint =
                SavepointWriter.newSavepoint(
                        env, CounterSavepoints.stateBackend(), config.maxParallelism);
        if (tables.channels() != null) {
            ChannelBootstrap channels = ChannelBootstrap.read(env, config, tables);
            history = history.union(channels.members());
            members = members.union(channels.declared());
            readers = readers.union(channels.cursors());
            savepoint.withOperator(ChannelSavepoints.CHANNELS, channels.state());
        }
        savepoint
                .withOperator(
                        CounterSavepoints.COUNTER,
                        OperatorTransformation.bootstrapWith(history)
                                .keyBy(HistoryRow::userId, Types.LONG)
                                .transform(new HistoryStates.HistoryToState()))
                .withOperator(
                        CounterSavepoints.FAN_OUT,
                        OperatorTransformation.bootstrapWith(members)
                                .keyBy(HistoryRow::id, Types.LONG)
                                .transform(new HistoryStates.MembersToState()))
                .withOperator(
                        CounterSavepoints.READERS,
                        OperatorTransformation.bootstrapWith(readers)
                                .keyBy(HistoryRow::id, Types.LONG)
                                .transform(new HistoryStates.ReadersToState()))
                .write(output);
        env.execute("unread bootstrap");
    }

    /**
     * Reads none of each table's rows, before any Flink work: a database created before the group
     * tables lacks them (docker/mysql/init runs only on an empty volume), and a failed job would
     * bury the table's name deep in its causes. The tables to read: {@code tables}, but without
     * channels when the channels table has the default name and does not exist, as in a database
     * made before it: there every conversation is a group, as before channels.
     */
    private static Tables checkReadable(UnreadConfig config, Tables tables) throws SQLException {
        try (Connection connection =
                        DriverManager.getConnection(
                                config.jdbcUrl, config.jdbcUser, config.jdbcPassword);
                Statement statement = connection.createStatement()) {
            for (String table :
                    List.of(
                            tables.messages(),
                            tables.groupMessages(),
                            tables.membership(),
                            MySqlSchema.USER_ACTIVITY,
                            MySqlSchema.CONVERSATION_MEMBER)) {
                checkReadable(statement, table);
            }
            if (tables.channels() == null) {
                return tables;
            }
            try {
                statement.executeQuery("SELECT 1 FROM " + tables.channels() + " LIMIT 0").close();
                return tables;
            } catch (SQLException e) {
                if (tables.channels().equals(DEFAULT_CHANNELS_TABLE)
                        && NO_SUCH_TABLE.equals(e.getSQLState())) {
                    return tables.withoutChannels();
                }
                throw unreadable(tables.channels(), e);
            }
        }
    }

    private static void checkReadable(Statement statement, String table) {
        try {
            statement.executeQuery("SELECT 1 FROM " + table + " LIMIT 0").close();
        } catch (SQLException e) {
            throw unreadable(table, e);
        }
    }

    private static IllegalArgumentException unreadable(String table, SQLException e) {
        return new IllegalArgumentException(
                "cannot read table "
                        + table
                        + " ("
                        + e.getMessage()
                        + "); docs/operations.md, \"Bootstrap from MySQL history\","
                        + " lists the tables the bootstrap reads",
                e);
    }

    /**
     * {@code name} if it is a plain, optionally schema-qualified, table name.
     *
     * @throws IllegalArgumentException if it is not
     */
    public static String tableName(String name) {
        if (!TABLE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("not a table name: " + name);
        }
        return name;
    }

    /** One query's rows, each a fact of {@code kind}. */
    private static DataStream<HistoryRow> rows(
            StreamExecutionEnvironment env,
            UnreadConfig config,
            String sql,
            HistoryRow.Kind kind,
            boolean valueIsTime) {
        return query(
                env,
                config,
                sql,
                new HistoryRow.Extractor(kind, valueIsTime),
                HistoryRow.class,
                WatermarkStrategy.noWatermarks(),
                "MySQL " + kind.name().toLowerCase(Locale.ROOT).replace('_', ' '));
    }

    /**
     * One query's rows as {@code extractor} reads them, stamped by {@code timestamps}. Each query
     * is one split, read by one reader: JDBC connector 4.0.0-2.0 shares one connection among the
     * splits of a reader, and a finished split closes it under the next one (FLINK-39206). The
     * queries still run in parallel, and their rows are streamed from MySQL rather than held in
     * memory whole.
     */
    static <T> DataStream<T> query(
            StreamExecutionEnvironment env,
            UnreadConfig config,
            String sql,
            ResultExtractor<T> extractor,
            Class<T> type,
            WatermarkStrategy<T> timestamps,
            String name) {
        JdbcSource<T> source =
                JdbcSource.<T>builder()
                        .setDBUrl(config.jdbcUrl)
                        .setDriverName(DRIVER)
                        .setUsername(config.jdbcUser)
                        .setPassword(config.jdbcPassword)
                        .setSql(sql)
                        // MySQL Connector/J streams a result set row by row only with this fetch
                        // size.
                        .setResultSetFetchSize(Integer.MIN_VALUE)
                        .setResultExtractor(extractor)
                        .setTypeInformation(TypeInformation.of(type))
                        .build();
        return env.fromSource(source, timestamps, name);
    }
}
