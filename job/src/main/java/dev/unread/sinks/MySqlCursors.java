package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.MySqlSchema;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.Locale;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.JdbcExecutionOptions;
import org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink;
import org.apache.flink.connector.jdbc.datasource.statements.JdbcQueryStatement;

/**
 * Read cursors to MySQL: {@code user_activity} and {@code conversation_member} (docs/contract.md,
 * "MySQL"), each through the JDBC connector's at-least-once sink.
 *
 * <p>At least once is enough because every write is an upsert that keeps the larger cursor: a
 * record written twice, or an older record written after a newer one (a replay after a restore),
 * leaves the row as it was. The connector batches records, flushes every {@link
 * #BATCH_INTERVAL_MS}, at every checkpoint and at the end of the input, and when a batch fails it
 * reconnects if the connection is gone and retries the batch, up to {@link #MAX_RETRIES} times. If
 * reconnecting fails or the retries run out, the task fails (a checkpoint cannot complete with a
 * batch unwritten) and Flink restores from the last checkpoint and replays what came after it, so a
 * lost connection or a database outage costs no write. {@link JdbcCursorSink} keeps such a failure
 * to the task.
 *
 * <p>The SQL runs unchanged on MySQL 8 and MariaDB: {@code VALUES(column)} rather than MySQL's row
 * alias ({@code AS new}), which MariaDB lacks.
 */
public final class MySqlCursors {

    static final int BATCH_SIZE = 500;
    static final long BATCH_INTERVAL_MS = 200;
    static final int MAX_RETRIES = 5;

    /**
     * The assignments of ON DUPLICATE KEY UPDATE run left to right and each sees the columns as the
     * previous ones left them, so {@code updated_at} compares against {@code last_read_at} before
     * that column is advanced. {@code updated_at} moves only with {@code last_read_at}: it says
     * when the cursor last advanced, not when a replay last touched the row.
     */
    static final String UPSERT_USER_ACTIVITY =
            "INSERT INTO user_activity (user_id, last_read_at, updated_at)"
                    + " VALUES (?, ?, UTC_TIMESTAMP(3))"
                    + " ON DUPLICATE KEY UPDATE"
                    + " updated_at = IF(VALUES(last_read_at) > last_read_at,"
                    + " VALUES(updated_at), updated_at),"
                    + " last_read_at = GREATEST(last_read_at, VALUES(last_read_at))";

    /**
     * {@code unread_count} belongs to the read that set {@code last_read_seq}: it is replaced only
     * by a read that advances the cursor, and is assigned before the cursor for the reason given at
     * {@link #UPSERT_USER_ACTIVITY}. A read with an equal seq is a duplicate and leaves both
     * columns alone.
     */
    static final String UPSERT_CONVERSATION_MEMBER =
            "INSERT INTO conversation_member"
                    + " (conversation_id, user_id, last_read_seq, unread_count)"
                    + " VALUES (?, ?, ?, ?)"
                    + " ON DUPLICATE KEY UPDATE"
                    + " unread_count = IF(VALUES(last_read_seq) > last_read_seq,"
                    + " VALUES(unread_count), unread_count),"
                    + " last_read_seq = GREATEST(last_read_seq, VALUES(last_read_seq))";

    /** '9999-12-31 23:59:59.999' UTC, the last instant a DATETIME(3) holds. */
    static final long MAX_DATETIME_MILLIS = 253_402_300_799_999L;

    private static final String DRIVER = "com.mysql.cj.jdbc.Driver";

    private static final DateTimeFormatter DATETIME_3 =
            DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSS", Locale.ROOT);

    private MySqlCursors() {}

    static final String DELETE_USER_ACTIVITY = "DELETE FROM user_activity WHERE user_id = ?";

    /** By the table's user index. */
    static final String DELETE_CONVERSATION_MEMBER =
            "DELETE FROM conversation_member WHERE user_id = ?";

    /** By the primary key. */
    static final String DELETE_CONVERSATION_MEMBER_ROW =
            "DELETE FROM conversation_member WHERE user_id = ? AND conversation_id = ?";

    /**
     * By the table's user index, which holds the primary key's {@code conversation_id} after {@code
     * user_id}.
     */
    static final String DELETE_CONVERSATION_MEMBER_BETWEEN_BUT =
            "DELETE FROM conversation_member WHERE user_id = ? AND conversation_id BETWEEN ? AND ?"
                    + " AND conversation_id NOT IN ("
                    + String.join(", ", Collections.nCopies(JdbcCursorSink.KEPT_PER_DELETE, "?"))
                    + ")";

    /** Upserts {@code user_activity}, creating it if absent; deletes an erased user's row. */
    public static Sink<InboxCursor> userActivity(UnreadConfig config) {
        return sink(
                config,
                new UserActivityUpsert(),
                MySqlSchema.USER_ACTIVITY,
                new UserActivityErasures());
    }

    /**
     * Upserts {@code conversation_member}, creating it if absent; deletes an erased user's rows.
     */
    public static Sink<ConversationCursor> conversationMember(UnreadConfig config) {
        return sink(
                config,
                new ConversationMemberUpsert(),
                MySqlSchema.CONVERSATION_MEMBER,
                new ConversationMemberErasures());
    }

    private static <T> Sink<T> sink(
            UnreadConfig config,
            JdbcQueryStatement<T> upsert,
            String table,
            JdbcCursorSink.Erasures<T> erasures) {
        RetryCountingConnectionProvider connection =
                new RetryCountingConnectionProvider(connectionOptions(config));
        JdbcSink<T> jdbc =
                JdbcSink.<T>builder()
                        .withQueryStatement(upsert)
                        .withExecutionOptions(executionOptions())
                        .buildAtLeastOnce(connection);
        return new JdbcCursorSink<>(jdbc, connection, table, erasures);
    }

    static JdbcExecutionOptions executionOptions() {
        return JdbcExecutionOptions.builder()
                .withBatchSize(BATCH_SIZE)
                .withBatchIntervalMs(BATCH_INTERVAL_MS)
                .withMaxRetries(MAX_RETRIES)
                .build();
    }

    static JdbcConnectionOptions connectionOptions(UnreadConfig config) {
        JdbcConnectionOptions.JdbcConnectionOptionsBuilder options =
                new JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
                        .withUrl(config.jdbcUrl)
                        // Named so the driver loads from the job jar's class loader; Java's
                        // DriverManager may have scanned for drivers before the job arrived.
                        .withDriverName(DRIVER)
                        .withUsername(config.jdbcUser)
                        .withPassword(config.jdbcPassword)
                        // Bounds the validity check before a retry; the default is 60 s.
                        .withConnectionCheckTimeoutSeconds(5)
                        // Sends a batch of upserts as one multi-row INSERT.
                        .withProperty("rewriteBatchedStatements", "true");
        // Connector/J lets these properties override the URL, so they are defaults only: without
        // them a half-open connection would block a flush, and the task with it, indefinitely.
        defaultUnlessInUrl(options, config.jdbcUrl, "connectTimeout", "10000");
        defaultUnlessInUrl(options, config.jdbcUrl, "socketTimeout", "60000");
        return options.build();
    }

    private static void defaultUnlessInUrl(
            JdbcConnectionOptions.JdbcConnectionOptionsBuilder options,
            String url,
            String property,
            String value) {
        if (!url.contains(property + "=")) {
            options.withProperty(property, value);
        }
    }

    /**
     * The UTC wall-clock time of {@code epochMillis} as DATETIME(3) text, {@code 2026-01-01
     * 00:00:00.123}. Text is converted by neither the JVM's nor the session's time zone. It is
     * bound as text rather than as a LocalDateTime because Connector/J drops the milliseconds of a
     * LocalDateTime on MariaDB: it takes the version MariaDB announces for compatibility, {@code
     * 5.5.5-10.11...}, for a MySQL older than fractional seconds.
     *
     * <p>Clamped to what DATETIME holds: {@code readAt} is any positive long, and a value the
     * column refuses would fail the batch on every retry and every restore.
     */
    static String utcDatetime(long epochMillis) {
        long clamped = Math.min(epochMillis, MAX_DATETIME_MILLIS);
        return DATETIME_3.format(
                LocalDateTime.ofInstant(Instant.ofEpochMilli(clamped), ZoneOffset.UTC));
    }

    static final class UserActivityErasures implements JdbcCursorSink.Erasures<InboxCursor> {
        private static final long serialVersionUID = 1L;

        @Override
        public long erasedUser(InboxCursor cursor) {
            return cursor.erased ? cursor.userId : 0;
        }

        /** The table has one row per user. */
        @Override
        public long erasedConversation(InboxCursor cursor) {
            return 0;
        }

        @Override
        public String delete(boolean oneConversation) {
            return DELETE_USER_ACTIVITY;
        }
    }

    /**
     * The erasure of a conversation deletes the user's row there alone: a channel's can reach the
     * sink long after the user's erasure (when the user joins the channel later), through another
     * subtask, when the user has read other conversations afresh. The user's state sends the
     * erasure of no conversation, first, in order with the user's cursors, for every row of the
     * user, those of conversations it no longer holds included (idle expiry), but those of the
     * user's channels, which the channel stage deletes and writes again through its own subtasks.
     */
    static final class ConversationMemberErasures
            implements JdbcCursorSink.Erasures<ConversationCursor> {
        private static final long serialVersionUID = 1L;

        @Override
        public long erasedUser(ConversationCursor cursor) {
            return cursor.erased ? cursor.userId : 0;
        }

        @Override
        public long erasedConversation(ConversationCursor cursor) {
            return cursor.conversationId;
        }

        @Override
        public String delete(boolean oneConversation) {
            return oneConversation ? DELETE_CONVERSATION_MEMBER_ROW : DELETE_CONVERSATION_MEMBER;
        }

        @Override
        public long[] keptConversations(ConversationCursor cursor) {
            return cursor.channels == null
                    ? JdbcCursorSink.Erasures.super.keptConversations(cursor)
                    : cursor.channels;
        }

        @Override
        public String deleteBetweenBut() {
            return DELETE_CONVERSATION_MEMBER_BETWEEN_BUT;
        }
    }

    /** Binds an {@link InboxCursor} to {@link #UPSERT_USER_ACTIVITY}. */
    static final class UserActivityUpsert implements JdbcQueryStatement<InboxCursor> {
        private static final long serialVersionUID = 1L;

        @Override
        public String query() {
            return UPSERT_USER_ACTIVITY;
        }

        @Override
        public void statement(PreparedStatement ps, InboxCursor cursor) throws SQLException {
            ps.setLong(1, cursor.userId);
            ps.setString(2, utcDatetime(cursor.lastReadAt));
        }
    }

    /** Binds a {@link ConversationCursor} to {@link #UPSERT_CONVERSATION_MEMBER}. */
    static final class ConversationMemberUpsert implements JdbcQueryStatement<ConversationCursor> {
        private static final long serialVersionUID = 1L;

        @Override
        public String query() {
            return UPSERT_CONVERSATION_MEMBER;
        }

        @Override
        public void statement(PreparedStatement ps, ConversationCursor cursor) throws SQLException {
            ps.setLong(1, cursor.conversationId);
            ps.setLong(2, cursor.userId);
            ps.setLong(3, cursor.lastReadSeq);
            // The contract's column is an INT; a count beyond it is stored as the largest INT
            // rather than refused, which would fail the batch on every retry and every restore.
            ps.setInt(4, (int) Math.min(cursor.unreadCount, Integer.MAX_VALUE));
        }
    }
}
