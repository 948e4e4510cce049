package dev.unread.ops;

import dev.unread.config.UnreadConfig;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import dev.unread.state.UnreadCounter;
import dev.unread.state.UnreadSeqs;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.jdbc.core.datastream.source.JdbcSource;
import org.apache.flink.connector.jdbc.core.datastream.source.reader.extractor.ResultExtractor;
import org.apache.flink.connector.jdbc.split.JdbcNumericBetweenParametersProvider;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code unread bootstrap --output DIR}: builds a savepoint of UnreadCounter's state from the
 * history in MySQL — a messages table plus {@code user_activity} and {@code conversation_member}
 * — so that the job started from it ({@code flink run -s DIR}) counts exactly what SQL counts over
 * that history, and every event after it adds to that.
 *
 * <p>The state is what the counter itself would hold after those events: per user the inbox
 * watermark ({@code user_activity.last_read_at}) and each sender whose newest message is newer
 * than it, with that message's time; per conversation the cursor ({@code
 * conversation_member.last_read_seq}) and the seqs past it of messages from others. SQL does the
 * filtering and the keyed function only stores, through the counter's own descriptors, at the
 * job's max parallelism.
 *
 * <p>The messages table has the columns {@code sender_id, receiver_id, conversation_id, seq,
 * sent_at} (DATETIME(3), UTC); {@code conversation_id} and {@code seq} are both NULL for a message
 * outside a conversation. Rows the job's parser would refuse (ids or times out of range, only one
 * of conversation and seq) count toward nothing, as they would in Kafka.
 */
public final class Bootstrap {

    public static final String DEFAULT_MESSAGES_TABLE = "messages";

    static final String DRIVER = "com.mysql.cj.jdbc.Driver";

    /** Accumulators: rows of each kind written to state. */
    static final String INBOX_CURSORS = "inbox-cursors";
    static final String SENDERS = "senders";
    static final String CONVERSATION_CURSORS = "conversation-cursors";
    static final String UNREAD_SEQS = "unread-seqs";

    /** A table name goes into SQL text, so only plain (optionally schema-qualified) names. */
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*"
            + "(\\.[A-Za-z_][A-Za-z0-9_]*)?");

    /** A message the job's parser accepts; {@code m} is the messages table. */
    private static final String VALID_MESSAGE = "m.sender_id > 0 AND m.receiver_id > 0"
            + " AND m.sent_at > '1970-01-01 00:00:00'"
            + " AND ((m.conversation_id IS NULL AND m.seq IS NULL)"
            + " OR (m.conversation_id > 0 AND m.seq > 0))";

    private Bootstrap() {}

    /** What a bootstrap wrote: the state entries of each kind. */
    public record Result(long inboxCursors, long senders, long conversationCursors,
            long unreadSeqs) {}

    /** Entry point of {@code unread bootstrap}; returns the process's exit code. */
    public static int run(String[] args, PrintStream out) throws Exception {
        String output;
        String table;
        UnreadConfig config;
        try {
            CounterSavepoints.Args parsed =
                    CounterSavepoints.Args.parse(args, Set.of("output", "messages-table"));
            if (!parsed.positional().isEmpty()) {
                throw new IllegalArgumentException("unexpected " + parsed.positional());
            }
            output = parsed.toolFlags().get("output");
            if (output == null) {
                throw new IllegalArgumentException("--output DIR is required");
            }
            table = parsed.toolFlags().getOrDefault("messages-table", DEFAULT_MESSAGES_TABLE);
            config = UnreadConfig.from(parsed.settings(), System.getenv());
        } catch (IllegalArgumentException e) {
            out.println(e.getMessage());
            out.println("usage: unread bootstrap --output DIR [--messages-table NAME]"
                    + " [--jdbc-url URL] [--jdbc-user USER] [--max-parallelism N]"
                    + " (password from " + UnreadConfig.JDBC_PASSWORD_ENV + ")");
            return 2;
        }
        Result result = bootstrap(config, table, output);
        out.printf("Wrote savepoint %s (max parallelism %d): %d inbox cursors, %d senders,"
                        + " %d conversation cursors, %d unread seqs%n",
                output, config.maxParallelism, result.inboxCursors(), result.senders(),
                result.conversationCursors(), result.unreadSeqs());
        out.println("Start the job from it with: flink run -s " + output + " ...");
        return 0;
    }

    /** Writes the savepoint of the history in {@code config}'s database to {@code output}. */
    public static Result bootstrap(UnreadConfig config, String messagesTable, String output)
            throws Exception {
        if (!TABLE_NAME.matcher(messagesTable).matches()) {
            throw new IllegalArgumentException("not a table name: " + messagesTable);
        }
        StreamExecutionEnvironment env = CounterSavepoints.batchEnvironment();
        JdbcNumericBetweenParametersProvider userRanges =
                userRanges(config, messagesTable, 4 * Math.max(1, env.getParallelism()));

        String inboxCursors = "SELECT user_id, last_read_at FROM user_activity"
                + " WHERE last_read_at > '1970-01-01 00:00:00' AND user_id BETWEEN ? AND ?";
        String senders = "SELECT m.receiver_id, m.sender_id, MAX(m.sent_at)"
                + " FROM " + messagesTable + " m"
                + " LEFT JOIN user_activity a ON a.user_id = m.receiver_id"
                + " WHERE " + VALID_MESSAGE + " AND m.sender_id <> m.receiver_id"
                + " AND (a.last_read_at IS NULL OR m.sent_at > a.last_read_at)"
                + " AND m.receiver_id BETWEEN ? AND ?"
                + " GROUP BY m.receiver_id, m.sender_id";
        String conversationCursors = "SELECT user_id, conversation_id, last_read_seq"
                + " FROM conversation_member WHERE last_read_seq > 0 AND user_id BETWEEN ? AND ?";
        String unreadSeqs = "SELECT DISTINCT m.receiver_id, m.conversation_id, m.seq"
                + " FROM " + messagesTable + " m"
                + " LEFT JOIN conversation_member c"
                + " ON c.conversation_id = m.conversation_id AND c.user_id = m.receiver_id"
                + " WHERE " + VALID_MESSAGE + " AND m.sender_id <> m.receiver_id"
                + " AND m.conversation_id IS NOT NULL AND m.seq > COALESCE(c.last_read_seq, 0)"
                + " AND m.receiver_id BETWEEN ? AND ?";

        DataStream<HistoryRow> history =
                rows(env, config, userRanges, inboxCursors, HistoryRow.Kind.INBOX_CURSOR, true)
                        .union(
                                rows(env, config, userRanges, senders,
                                        HistoryRow.Kind.SENDER, true),
                                rows(env, config, userRanges, conversationCursors,
                                        HistoryRow.Kind.CONVERSATION_CURSOR, false),
                                rows(env, config, userRanges, unreadSeqs,
                                        HistoryRow.Kind.UNREAD_SEQ, false));

        SavepointWriter.newSavepoint(env, CounterSavepoints.stateBackend(), config.maxParallelism)
                .withOperator(
                        CounterSavepoints.COUNTER,
                        OperatorTransformation.bootstrapWith(history)
                                .keyBy(HistoryRow::userId, Types.LONG)
                                .transform(new HistoryToState()))
                .write(output);
        JobExecutionResult result = env.execute("unread bootstrap");
        return new Result(
                counter(result, INBOX_CURSORS),
                counter(result, SENDERS),
                counter(result, CONVERSATION_CURSORS),
                counter(result, UNREAD_SEQS));
    }

    /**
     * Splits the user ids in the history into ranges, each read by one split of each query, so
     * the history is read in parallel and no query's result has to fit in memory at once.
     */
    private static JdbcNumericBetweenParametersProvider userRanges(
            UnreadConfig config, String messagesTable, int splits) throws SQLException {
        String bounds = "SELECT MIN(id), MAX(id) FROM ("
                + "SELECT MIN(receiver_id) id FROM " + messagesTable
                + " UNION ALL SELECT MAX(receiver_id) FROM " + messagesTable
                + " UNION ALL SELECT MIN(user_id) FROM user_activity"
                + " UNION ALL SELECT MAX(user_id) FROM user_activity"
                + " UNION ALL SELECT MIN(user_id) FROM conversation_member"
                + " UNION ALL SELECT MAX(user_id) FROM conversation_member) ids";
        try (Connection connection = DriverManager.getConnection(
                        config.jdbcUrl, config.jdbcUser, config.jdbcPassword);
                Statement statement = connection.createStatement();
                ResultSet range = statement.executeQuery(bounds)) {
            range.next();
            long min = range.getLong(1);
            long max = range.getLong(2);
            // An empty history still gets one (empty) range: the savepoint is then empty.
            long ids = max - min + 1;
            return new JdbcNumericBetweenParametersProvider(min, max)
                    .ofBatchNum((int) Math.min(splits, ids));
        }
    }

    private static DataStream<HistoryRow> rows(
            StreamExecutionEnvironment env,
            UnreadConfig config,
            JdbcNumericBetweenParametersProvider userRanges,
            String sql,
            HistoryRow.Kind kind,
            boolean valueIsTime) {
        JdbcSource<HistoryRow> source = JdbcSource.<HistoryRow>builder()
                .setDBUrl(config.jdbcUrl)
                .setDriverName(DRIVER)
                .setUsername(config.jdbcUser)
                .setPassword(config.jdbcPassword)
                .setSql(sql)
                .setJdbcParameterValuesProvider(userRanges)
                .setResultExtractor(new RowExtractor(kind, valueIsTime))
                .setTypeInformation(TypeInformation.of(HistoryRow.class))
                .build();
        String name = "MySQL " + kind.name().toLowerCase(Locale.ROOT).replace('_', ' ');
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), name);
    }

    private static long counter(JobExecutionResult result, String name) {
        Long value = result.getAccumulatorResult(name);
        return value == null ? 0 : value;
    }

    /**
     * One fact of the history, already filtered by SQL, for the keyed function to store.
     *
     * <ul>
     *   <li>INBOX_CURSOR: {@code value} = {@code last_read_at}, epoch ms.
     *   <li>SENDER: {@code id} = the sender, {@code value} = their newest {@code sent_at} past
     *       the watermark, epoch ms.
     *   <li>CONVERSATION_CURSOR: {@code id} = the conversation, {@code value} = {@code
     *       last_read_seq}.
     *   <li>UNREAD_SEQ: {@code id} = the conversation, {@code value} = a seq past the cursor.
     * </ul>
     */
    public record HistoryRow(Kind kind, long userId, long id, long value) {

        /** The four queries' facts. */
        public enum Kind {
            INBOX_CURSOR,
            SENDER,
            CONVERSATION_CURSOR,
            UNREAD_SEQ
        }
    }

    /**
     * Reads a row of one of the queries: the user, then an id where the kind has one, then the
     * value, a DATETIME(3) in UTC for times.
     */
    static final class RowExtractor implements ResultExtractor<HistoryRow> {
        private static final long serialVersionUID = 1L;

        private final HistoryRow.Kind kind;
        private final boolean valueIsTime;

        RowExtractor(HistoryRow.Kind kind, boolean valueIsTime) {
            this.kind = kind;
            this.valueIsTime = valueIsTime;
        }

        @Override
        public HistoryRow extract(ResultSet row) throws SQLException {
            boolean hasId = kind != HistoryRow.Kind.INBOX_CURSOR;
            int valueColumn = hasId ? 3 : 2;
            long value = valueIsTime
                    ? row.getObject(valueColumn, LocalDateTime.class)
                            .toInstant(ZoneOffset.UTC).toEpochMilli()
                    : row.getLong(valueColumn);
            return new HistoryRow(kind, row.getLong(1), hasId ? row.getLong(2) : 0, value);
        }
    }

    /** Stores each fact in UnreadCounter's state, through the counter's own descriptors. */
    static final class HistoryToState extends KeyedStateBootstrapFunction<Long, HistoryRow> {

        private transient ValueState<InboxState> inbox;
        private transient MapState<Long, Long> senders;
        private transient MapState<Long, ConversationState> conversations;
        private transient Map<HistoryRow.Kind, LongCounter> written;

        @Override
        public void open(OpenContext openContext) {
            inbox = getRuntimeContext().getState(UnreadCounter.INBOX);
            senders = getRuntimeContext().getMapState(UnreadCounter.SENDERS);
            conversations = getRuntimeContext().getMapState(UnreadCounter.CONVERSATIONS);
            written = new EnumMap<>(HistoryRow.Kind.class);
            written.put(HistoryRow.Kind.INBOX_CURSOR,
                    getRuntimeContext().getLongCounter(INBOX_CURSORS));
            written.put(HistoryRow.Kind.SENDER, getRuntimeContext().getLongCounter(SENDERS));
            written.put(HistoryRow.Kind.CONVERSATION_CURSOR,
                    getRuntimeContext().getLongCounter(CONVERSATION_CURSORS));
            written.put(HistoryRow.Kind.UNREAD_SEQ,
                    getRuntimeContext().getLongCounter(UNREAD_SEQS));
        }

        @Override
        public void processElement(HistoryRow row, Context context) throws Exception {
            written.get(row.kind()).add(1);
            switch (row.kind()) {
                case INBOX_CURSOR: {
                    InboxState state = inboxState();
                    state.lastReadAt = row.value();
                    inbox.update(state);
                    break;
                }
                case SENDER: {
                    // SQL grouped by sender, so each sender comes once: it is new to the set.
                    senders.put(row.id(), row.value());
                    InboxState state = inboxState();
                    state.unreadSenders++;
                    inbox.update(state);
                    break;
                }
                case CONVERSATION_CURSOR: {
                    ConversationState state = conversationState(row.id());
                    state.lastReadSeq = row.value();
                    conversations.put(row.id(), state);
                    break;
                }
                case UNREAD_SEQ: {
                    ConversationState state = conversationState(row.id());
                    UnreadSeqs seqs = UnreadSeqs.of(state.unreadSeqs);
                    seqs.add(row.value());
                    state.unreadSeqs = seqs.toBytes();
                    conversations.put(row.id(), state);
                    break;
                }
                default:
                    throw new IllegalArgumentException("unknown kind " + row.kind());
            }
        }

        private InboxState inboxState() throws Exception {
            InboxState state = inbox.value();
            return state == null ? new InboxState() : state;
        }

        private ConversationState conversationState(long conversationId) throws Exception {
            ConversationState state = conversations.get(conversationId);
            return state == null ? new ConversationState() : state;
        }
    }
}
