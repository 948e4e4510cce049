package dev.unread.ops;

import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.testing.MySqlTestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A {@link MySqlTestDatabase} with the stack's init SQL run in it (so that SQL is tested on every
 * run): the history `unread bootstrap` reads, and the SQL answer to compare the job with.
 */
final class HistoryDatabase implements AutoCloseable {

    /** A message the contract accepts, as in {@link Bootstrap}, for the SQL answer. */
    private static final String VALID =
            "m.sender_id > 0 AND m.receiver_id > 0"
                    + " AND m.sent_at > '1970-01-01 00:00:00'"
                    + " AND ((m.conversation_id IS NULL AND m.seq IS NULL)"
                    + " OR (m.conversation_id > 0 AND m.seq > 0))";

    private final MySqlTestDatabase database;
    private final Connection connection;
    private long nextMessageId = 1;

    private HistoryDatabase(MySqlTestDatabase database) throws SQLException {
        this.database = database;
        this.connection = database.connect();
    }

    static HistoryDatabase create() throws Exception {
        HistoryDatabase db = new HistoryDatabase(MySqlTestDatabase.create());
        Path initSql = FlinkConf.findDir().resolveSibling("docker/mysql/init");
        try (Stream<Path> files = Files.list(initSql)) {
            for (Path file : files.sorted().toList()) {
                db.runScript(Files.readString(file));
            }
        }
        return db;
    }

    String jdbcUrl() {
        return database.jdbcUrl();
    }

    /**
     * The job's settings pointed at this database as its own user (the password from the
     * environment, as in production) and, under {@code redisPrefix}, at Redis.
     */
    UnreadConfig config(String redisPrefix) {
        Map<String, String> settings =
                new HashMap<>(
                        Map.of(
                                "jdbc-url",
                                jdbcUrl(),
                                "jdbc-user",
                                database.name,
                                "redis-key-prefix",
                                redisPrefix,
                                "flush-interval-ms",
                                "50"));
        return UnreadConfig.from(
                settings, Map.of(UnreadConfig.JDBC_PASSWORD_ENV, database.password));
    }

    private void runScript(String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (String part : sql.split(";\\s*(\\n|$)")) {
                if (!part.isBlank()) {
                    statement.execute(part);
                }
            }
        }
    }

    /**
     * Records {@code events} as a chat platform's database holds them: messages as rows, reads as
     * cursors that only move forward.
     */
    void record(Collection<ChatEvent> events) throws SQLException {
        try (PreparedStatement message =
                        connection.prepareStatement(
                                "INSERT INTO messages (id, sender_id, receiver_id, conversation_id, seq,"
                                        + " sent_at) VALUES (?, ?, ?, ?, ?, ?)");
                PreparedStatement inbox =
                        connection.prepareStatement(
                                "INSERT INTO user_activity (user_id, last_read_at, updated_at)"
                                        + " VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE"
                                        + " last_read_at = GREATEST(last_read_at, VALUES(last_read_at))");
                PreparedStatement conversation =
                        connection.prepareStatement(
                                "INSERT INTO conversation_member (conversation_id, user_id, last_read_seq)"
                                        + " VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE"
                                        + " last_read_seq ="
                                        + " GREATEST(last_read_seq, VALUES(last_read_seq))")) {
            for (ChatEvent e : events) {
                switch (e.kind) {
                    case MESSAGE:
                        message.setLong(1, nextMessageId++);
                        message.setLong(2, e.senderId);
                        message.setLong(3, e.userId);
                        setNullable(message, 4, e.conversationId);
                        setNullable(message, 5, e.hasConversation() ? e.seq : 0);
                        message.setObject(6, utc(e.time));
                        message.executeUpdate();
                        break;
                    case INBOX_OPENED:
                        inbox.setLong(1, e.userId);
                        inbox.setObject(2, utc(e.time));
                        inbox.setObject(3, utc(e.time));
                        inbox.executeUpdate();
                        break;
                    case CONVERSATION_READ:
                        conversation.setLong(1, e.conversationId);
                        conversation.setLong(2, e.userId);
                        conversation.setLong(3, e.seq);
                        conversation.executeUpdate();
                        break;
                    default:
                        // A chat server's tables hold no preferences, marks or memberships.
                        break;
                }
            }
        }
    }

    /** Rows the job's parser would refuse: they must count toward nothing. */
    void recordInvalidMessages(long receiverId, long time) throws SQLException {
        List<String> rows =
                List.of(
                        // a conversation without a seq
                        "(%d, 777, %d, 90001, NULL, '%s')",
                        // a seq without a conversation
                        "(%d, 778, %d, NULL, 5, '%s')",
                        // a sender id out of range
                        "(%d, 0, %d, NULL, NULL, '%s')");
        try (Statement statement = connection.createStatement()) {
            for (String row : rows) {
                statement.executeUpdate(
                        "INSERT INTO messages VALUES "
                                + String.format(
                                        row,
                                        nextMessageId++,
                                        receiverId,
                                        utc(time).toString().replace('T', ' ')));
            }
        }
    }

    /** SQL's answer: receiver → distinct senders after the receiver's last_read_at. */
    Map<Long, Long> badges() throws SQLException {
        return pairs(
                "SELECT m.receiver_id, COUNT(DISTINCT m.sender_id) FROM messages m"
                        + " LEFT JOIN user_activity a ON a.user_id = m.receiver_id"
                        + " WHERE "
                        + VALID
                        + " AND m.sender_id <> m.receiver_id"
                        + " AND m.sent_at > COALESCE(a.last_read_at, '1970-01-01 00:00:00')"
                        + " GROUP BY m.receiver_id");
    }

    /** SQL's answer: receiver → conversation → distinct seqs from others past the cursor. */
    Map<Long, Map<Long, Long>> conversationUnread() throws SQLException {
        Map<Long, Map<Long, Long>> unread = new TreeMap<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows =
                        statement.executeQuery(
                                "SELECT m.receiver_id, m.conversation_id, COUNT(DISTINCT m.seq)"
                                        + " FROM messages m LEFT JOIN conversation_member c"
                                        + " ON c.conversation_id = m.conversation_id"
                                        + " AND c.user_id = m.receiver_id"
                                        + " WHERE "
                                        + VALID
                                        + " AND m.conversation_id IS NOT NULL"
                                        + " AND m.sender_id <> m.receiver_id"
                                        + " AND m.seq > COALESCE(c.last_read_seq, 0)"
                                        + " GROUP BY m.receiver_id, m.conversation_id")) {
            while (rows.next()) {
                unread.computeIfAbsent(rows.getLong(1), u -> new TreeMap<>())
                        .put(rows.getLong(2), rows.getLong(3));
            }
        }
        return unread;
    }

    private Map<Long, Long> pairs(String sql) throws SQLException {
        Map<Long, Long> pairs = new TreeMap<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                pairs.put(rows.getLong(1), rows.getLong(2));
            }
        }
        return pairs;
    }

    private static void setNullable(PreparedStatement statement, int index, long value)
            throws SQLException {
        if (value > 0) {
            statement.setLong(index, value);
        } else {
            statement.setNull(index, Types.BIGINT);
        }
    }

    private static LocalDateTime utc(long epochMs) {
        return LocalDateTime.ofInstant(Instant.ofEpochMilli(epochMs), ZoneOffset.UTC);
    }

    @Override
    public void close() throws SQLException {
        try {
            connection.close();
        } finally {
            database.close();
        }
    }
}
