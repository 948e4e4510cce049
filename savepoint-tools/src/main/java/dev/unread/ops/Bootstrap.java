package dev.unread.ops;

import dev.unread.config.UnreadConfig;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import dev.unread.state.UnreadChunks;
import dev.unread.state.UnreadCounter;
import java.io.PrintStream;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.jdbc.core.datastream.source.JdbcSource;
import org.apache.flink.connector.jdbc.core.datastream.source.reader.extractor.ResultExtractor;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code unread bootstrap --output DIR}: builds a savepoint of UnreadCounter's state from the
 * history in MySQL — a messages table plus {@code user_activity} and {@code conversation_member} —
 * so that the job started from it ({@code flink run -s DIR}) counts exactly what SQL counts over
 * that history, and every event after it adds to that.
 *
 * <p>The state is what the counter itself would hold after those events: per user the inbox
 * watermark ({@code user_activity.last_read_at}) and each sender whose newest message is newer than
 * it, with that message's time; per conversation the cursor ({@code
 * conversation_member.last_read_seq}) and the seqs past it of messages from others. SQL does the
 * filtering and the keyed function only stores, through the counter's own descriptors, at the job's
 * max parallelism.
 *
 * <p>The messages table has the columns {@code sender_id, receiver_id, conversation_id, seq,
 * sent_at} (DATETIME(3), UTC); {@code conversation_id} and {@code seq} are both NULL for a message
 * outside a conversation. Rows the job's parser would refuse (ids or times out of range, only one
 * of conversation and seq) count toward nothing, as they would in Kafka.
 *
 * <p>Group state is not bootstrapped (no members table is read): the savepoint holds no members of
 * chat-conversations groups, no leavers and no readers; docs/operations.md says what to publish
 * before group messages.
 */
public final class Bootstrap {

    public static final String DEFAULT_MESSAGES_TABLE = "messages";

    static final String DRIVER = "com.mysql.cj.jdbc.Driver";

    /** A table name goes into SQL text, so only plain (optionally schema-qualified) names. */
    private static final Pattern TABLE_NAME =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]*" + "(\\.[A-Za-z_][A-Za-z0-9_]*)?");

    /** A message the job's parser accepts; {@code m} is the messages table. */
    private static final String VALID_MESSAGE =
            "m.sender_id > 0 AND m.receiver_id > 0"
                    + " AND m.sent_at > '1970-01-01 00:00:00'"
                    + " AND ((m.conversation_id IS NULL AND m.seq IS NULL)"
                    + " OR (m.conversation_id > 0 AND m.seq > 0))";

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

    /** Writes the savepoint of the history in {@code config}'s database to {@code output}. */
    public static void bootstrap(UnreadConfig config, String messagesTable, String output)
            throws Exception {
        tableName(messagesTable);
        StreamExecutionEnvironment env = CounterSavepoints.batchEnvironment();

        String inboxCursors =
                "SELECT user_id, last_read_at FROM user_activity"
                        + " WHERE last_read_at > '1970-01-01 00:00:00'";
        String senders =
                "SELECT m.receiver_id, m.sender_id, MAX(m.sent_at)"
                        + " FROM "
                        + messagesTable
                        + " m"
                        + " LEFT JOIN user_activity a ON a.user_id = m.receiver_id"
                        + " WHERE "
                        + VALID_MESSAGE
                        + " AND m.sender_id <> m.receiver_id"
                        + " AND (a.last_read_at IS NULL OR m.sent_at > a.last_read_at)"
                        + " GROUP BY m.receiver_id, m.sender_id";
        String conversationCursors =
                "SELECT user_id, conversation_id, last_read_seq"
                        + " FROM conversation_member WHERE last_read_seq > 0";
        String unreadSeqs =
                "SELECT DISTINCT m.receiver_id, m.conversation_id, m.seq"
                        + " FROM "
                        + messagesTable
                        + " m"
                        + " LEFT JOIN conversation_member c"
                        + " ON c.conversation_id = m.conversation_id AND c.user_id = m.receiver_id"
                        + " WHERE "
                        + VALID_MESSAGE
                        + " AND m.sender_id <> m.receiver_id"
                        + " AND m.conversation_id IS NOT NULL AND m.seq > COALESCE(c.last_read_seq, 0)";

        DataStream<HistoryRow> history =
                rows(env, config, inboxCursors, HistoryRow.Kind.INBOX_CURSOR, true)
                        .union(
                                rows(env, config, senders, HistoryRow.Kind.SENDER, true),
                                rows(
                                        env,
                                        config,
                                        conversationCursors,
                                        HistoryRow.Kind.CONVERSATION_CURSOR,
                                        false),
                                rows(env, config, unreadSeqs, HistoryRow.Kind.UNREAD_SEQ, false));

        SavepointWriter.newSavepoint(env, CounterSavepoints.stateBackend(), config.maxParallelism)
                .withOperator(
                        CounterSavepoints.COUNTER,
                        OperatorTransformation.bootstrapWith(history)
                                .keyBy(HistoryRow::userId, Types.LONG)
                                .transform(new HistoryToState()))
                .write(output);
        env.execute("unread bootstrap");
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

    /**
     * One query's rows. Each query is one split, read by one reader: JDBC connector 4.0.0-2.0
     * shares one connection among the splits of a reader, and a finished split closes it under the
     * next one (FLINK-39206). The four queries still run in parallel, and their rows are streamed
     * from MySQL rather than held in memory whole.
     */
    private static DataStream<HistoryRow> rows(
            StreamExecutionEnvironment env,
            UnreadConfig config,
            String sql,
            HistoryRow.Kind kind,
            boolean valueIsTime) {
        JdbcSource<HistoryRow> source =
                JdbcSource.<HistoryRow>builder()
                        .setDBUrl(config.jdbcUrl)
                        .setDriverName(DRIVER)
                        .setUsername(config.jdbcUser)
                        .setPassword(config.jdbcPassword)
                        .setSql(sql)
                        // MySQL Connector/J streams a result set row by row only with this fetch
                        // size.
                        .setResultSetFetchSize(Integer.MIN_VALUE)
                        .setResultExtractor(new RowExtractor(kind, valueIsTime))
                        .setTypeInformation(TypeInformation.of(HistoryRow.class))
                        .build();
        String name = "MySQL " + kind.name().toLowerCase(Locale.ROOT).replace('_', ' ');
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), name);
    }

    /**
     * One fact of the history, already filtered by SQL, for the keyed function to store.
     *
     * <ul>
     *   <li>INBOX_CURSOR: {@code value} = {@code last_read_at}, epoch ms.
     *   <li>SENDER: {@code id} = the sender, {@code value} = their newest {@code sent_at} past the
     *       watermark, epoch ms.
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
            long value =
                    valueIsTime
                            ? row.getObject(valueColumn, LocalDateTime.class)
                                    .toInstant(ZoneOffset.UTC)
                                    .toEpochMilli()
                            : row.getLong(valueColumn);
            return new HistoryRow(kind, row.getLong(1), hasId ? row.getLong(2) : 0, value);
        }
    }

    /** Stores each fact in UnreadCounter's state, through the counter's own descriptors. */
    static final class HistoryToState extends KeyedStateBootstrapFunction<Long, HistoryRow> {

        private transient ValueState<InboxState> inbox;
        private transient MapState<Long, Long> senders;
        private transient MapState<Long, ConversationState> conversations;
        private transient UnreadChunks unreadSeqs;

        @Override
        public void open(OpenContext openContext) {
            inbox = getRuntimeContext().getState(UnreadCounter.INBOX);
            senders = getRuntimeContext().getMapState(UnreadCounter.SENDERS);
            conversations = getRuntimeContext().getMapState(UnreadCounter.CONVERSATIONS);
            unreadSeqs =
                    new UnreadChunks(
                            getRuntimeContext().getMapState(UnreadCounter.UNREAD_CHUNKS),
                            getRuntimeContext().getMapState(UnreadCounter.UNREAD_CHUNK_INDEX));
        }

        @Override
        public void processElement(HistoryRow row, Context context) throws Exception {
            switch (row.kind()) {
                case INBOX_CURSOR:
                    {
                        InboxState state = inboxState();
                        state.lastReadAt = row.value();
                        inbox.update(state);
                        break;
                    }
                case SENDER:
                    {
                        // SQL grouped by sender, so each sender comes once: it is new to the set.
                        senders.put(row.id(), row.value());
                        InboxState state = inboxState();
                        state.unreadSenders++;
                        inbox.update(state);
                        break;
                    }
                case CONVERSATION_CURSOR:
                    {
                        ConversationState state = conversationState(row.id());
                        state.lastReadSeq = row.value();
                        conversations.put(row.id(), state);
                        break;
                    }
                case UNREAD_SEQ:
                    {
                        ConversationState state = conversationState(row.id());
                        unreadSeqs.add(row.id(), state, row.value());
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
