package dev.unread.ops;

import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
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

    /**
     * Every message each user received, as docs/operations.md defines it: the messages table's
     * rows, and each group message of a conversation that is no channel for each user whose newest
     * membership event below its seq is a join (a leave at that seq winning).
     */
    private static final String RECEIVED =
            "WITH received AS ("
                    + "SELECT m.sender_id, m.receiver_id, m.conversation_id, m.seq, m.sent_at"
                    + " FROM messages m WHERE "
                    + VALID
                    + " UNION ALL SELECT g.sender_id, e.user_id, g.conversation_id, g.seq, g.sent_at"
                    + " FROM group_messages g JOIN group_membership_events e"
                    + " ON e.conversation_id = g.conversation_id AND e.joined AND e.seq < g.seq"
                    + " WHERE g.sender_id > 0 AND g.seq > 0 AND e.user_id > 0"
                    + " AND g.conversation_id NOT IN (SELECT conversation_id FROM group_channels)"
                    + " AND NOT EXISTS (SELECT 1 FROM group_membership_events x"
                    + " WHERE x.conversation_id = e.conversation_id AND x.user_id = e.user_id"
                    + " AND x.seq < g.seq AND (x.seq > e.seq OR (x.seq = e.seq AND NOT x.joined)))) ";

    /** Whether the newest membership event of m's receiver in m's conversation is a leave. */
    private static final String HIDDEN =
            "EXISTS (SELECT 1 FROM group_membership_events l"
                    + " WHERE l.conversation_id = m.conversation_id AND l.user_id = m.receiver_id"
                    + " AND NOT l.joined AND NOT EXISTS (SELECT 1 FROM group_membership_events j"
                    + " WHERE j.conversation_id = l.conversation_id AND j.user_id = l.user_id"
                    + " AND j.seq > l.seq))";

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

    /** Runs {@code sql}, a statement that returns no rows. */
    void execute(String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
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

    /**
     * Records {@code chat-conversations} records as a chat platform's database holds them: each
     * group message once, each membership event once, each channel declared once.
     */
    void recordGroups(Collection<ConversationEvent> records) throws SQLException {
        try (PreparedStatement message =
                        connection.prepareStatement(
                                "INSERT INTO group_messages (id, conversation_id, seq, sender_id,"
                                        + " sent_at) VALUES (?, ?, ?, ?, ?)");
                PreparedStatement membership =
                        connection.prepareStatement(
                                "INSERT IGNORE INTO group_membership_events (conversation_id,"
                                        + " user_id, seq, joined) VALUES (?, ?, ?, ?)");
                PreparedStatement channel =
                        connection.prepareStatement(
                                "INSERT IGNORE INTO group_channels (conversation_id) VALUES (?)")) {
            for (ConversationEvent e : records) {
                if (e.kind == ConversationEvent.Kind.CHANNEL) {
                    channel.setLong(1, e.conversationId);
                    channel.executeUpdate();
                } else if (e.isMessage()) {
                    message.setLong(1, nextMessageId++);
                    message.setLong(2, e.conversationId);
                    message.setLong(3, e.seq);
                    message.setLong(4, e.senderId);
                    message.setObject(5, utc(e.sentAt));
                    message.executeUpdate();
                } else {
                    membership.setLong(1, e.conversationId);
                    membership.setLong(2, e.userId);
                    membership.setLong(3, e.seq);
                    membership.setBoolean(4, e.kind == ConversationEvent.Kind.MEMBER_JOINED);
                    membership.executeUpdate();
                }
            }
        }
    }

    /**
     * Group rows the parser would refuse, in {@code conversationId}: a message without a seq, which
     * would reach its members, and a join of user 0 before every seq, which would make user 0 a
     * member and a participant. They must count toward nothing.
     */
    void recordInvalidGroupRows(long conversationId, long senderId, long time) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate(
                    String.format(
                            "INSERT INTO group_messages VALUES (%d, %d, 0, %d, '%s')",
                            nextMessageId++,
                            conversationId,
                            senderId,
                            utc(time).toString().replace('T', ' ')));
            statement.executeUpdate(
                    "INSERT INTO group_membership_events VALUES ("
                            + conversationId
                            + ", 0, 1, TRUE)");
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
                RECEIVED
                        + "SELECT m.receiver_id, COUNT(DISTINCT m.sender_id) FROM received m"
                        + " LEFT JOIN user_activity a ON a.user_id = m.receiver_id"
                        + " WHERE m.sender_id <> m.receiver_id"
                        + " AND m.sent_at > COALESCE(a.last_read_at, '1970-01-01 00:00:00')"
                        + " GROUP BY m.receiver_id");
    }

    /**
     * SQL's answer: receiver → conversation → distinct seqs from others past the cursor, without
     * the conversations the receiver left.
     */
    Map<Long, Map<Long, Long>> conversationUnread() throws SQLException {
        Map<Long, Map<Long, Long>> unread = new TreeMap<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows =
                        statement.executeQuery(
                                RECEIVED
                                        + "SELECT m.receiver_id, m.conversation_id,"
                                        + " COUNT(DISTINCT m.seq)"
                                        + " FROM received m LEFT JOIN conversation_member c"
                                        + " ON c.conversation_id = m.conversation_id"
                                        + " AND c.user_id = m.receiver_id"
                                        + " WHERE m.conversation_id IS NOT NULL"
                                        + " AND m.sender_id <> m.receiver_id"
                                        + " AND m.seq > COALESCE(c.last_read_seq, 0)"
                                        + " AND NOT "
                                        + HIDDEN
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
