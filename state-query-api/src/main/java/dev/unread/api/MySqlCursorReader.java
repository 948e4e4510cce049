package dev.unread.api;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;

/** Reads the read cursors the job keeps in MySQL (docs/contract.md, "MySQL"). */
final class MySqlCursorReader implements AutoCloseable {

    private static final String LAST_READ_AT =
            "SELECT last_read_at FROM user_activity WHERE user_id = ?";
    private static final String CONVERSATIONS =
            "SELECT conversation_id, last_read_seq, unread_count FROM conversation_member"
                    + " WHERE user_id = ? ORDER BY conversation_id";

    /** MySQL's and MariaDB's ER_NO_SUCH_TABLE. */
    private static final int NO_SUCH_TABLE = 1146;

    private final HikariDataSource pool;
    private final int timeoutMs;

    MySqlCursorReader(ApiConfig config) {
        HikariConfig hikari = new HikariConfig();
        hikari.setPoolName("unread-api-mysql");
        hikari.setJdbcUrl(config.jdbcUrl);
        hikari.setUsername(config.jdbcUser);
        hikari.setPassword(config.jdbcPassword);
        hikari.setMaximumPoolSize(10);
        hikari.setMinimumIdle(2);
        hikari.setReadOnly(true);
        hikari.setConnectionTimeout(config.timeoutMs);
        hikari.setValidationTimeout(Math.max(250, config.timeoutMs / 2));
        // Start even while MySQL is down: requests then get 503 and /health says why.
        hikari.setInitializationFailTimeout(-1);
        hikari.addDataSourceProperty("connectTimeout", config.timeoutMs);
        hikari.addDataSourceProperty("socketTimeout", config.timeoutMs);
        this.pool = new HikariDataSource(hikari);
        this.timeoutMs = config.timeoutMs;
    }

    /**
     * The user's cursors. A table the job has not created yet (it does when its sinks first open)
     * holds no cursors: the answer is that of a user with none, as {@code /health} says UP.
     */
    UserCursors read(long userId) {
        try (Connection connection = pool.getConnection()) {
            Long lastReadAt = null;
            try (PreparedStatement select = connection.prepareStatement(LAST_READ_AT)) {
                select.setLong(1, userId);
                try (ResultSet rs = select.executeQuery()) {
                    if (rs.next()) {
                        // DATETIME has no zone; the job writes UTC. LocalDateTime comes back as
                        // stored, whatever the JVM's or the session's time zone.
                        LocalDateTime at = rs.getObject(1, LocalDateTime.class);
                        lastReadAt = at.toInstant(ZoneOffset.UTC).toEpochMilli();
                    }
                }
            } catch (SQLException e) {
                rethrowUnlessNoTable(e);
            }
            Map<Long, ConversationCursor> conversations = new TreeMap<>();
            try (PreparedStatement select = connection.prepareStatement(CONVERSATIONS)) {
                select.setLong(1, userId);
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        ConversationCursor cursor =
                                new ConversationCursor(rs.getLong(2), rs.getLong(3));
                        conversations.put(rs.getLong(1), cursor);
                    }
                }
            } catch (SQLException e) {
                rethrowUnlessNoTable(e);
            }
            return new UserCursors(userId, lastReadAt, conversations);
        } catch (SQLException e) {
            throw new DependencyException(DependencyException.MYSQL, e);
        }
    }

    private static void rethrowUnlessNoTable(SQLException e) throws SQLException {
        if (e.getErrorCode() != NO_SUCH_TABLE) {
            throw e;
        }
    }

    void ping() {
        try (Connection connection = pool.getConnection()) {
            if (!connection.isValid(Math.max(1, timeoutMs / 1000))) {
                throw new SQLException("connection not valid");
            }
        } catch (SQLException e) {
            throw new DependencyException(DependencyException.MYSQL, e);
        }
    }

    @Override
    public void close() {
        pool.close();
    }

    /** {@code lastReadAt}: epoch ms of the last inbox open, null if never. */
    record UserCursors(long userId, Long lastReadAt, Map<Long, ConversationCursor> conversations) {}

    /** The cursor, and the unread count right after the read that moved it. */
    record ConversationCursor(long lastReadSeq, long unreadCount) {}
}
