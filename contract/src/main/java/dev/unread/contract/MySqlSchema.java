package dev.unread.contract;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The MySQL tables of the contract (docs/contract.md, "MySQL"), in the one place that creates them.
 * Every step is idempotent, so every sink writer runs its table's steps when it opens ({@link
 * #create}) and a fresh database needs no migration step before the job starts.
 *
 * <p>DATETIME(3) holds UTC wall-clock time with millisecond precision: DATETIME, unlike TIMESTAMP,
 * is never converted by the session time zone, so what the job writes is what every reader sees.
 */
public final class MySqlSchema {

    public static final String USER_ACTIVITY = "user_activity";
    public static final String CONVERSATION_MEMBER = "conversation_member";

    /** {@code GET /api/users/{id}/cursors} reads conversation_member by user. */
    public static final String USER_INDEX = "ix_conversation_member_user";

    public static final String CREATE_USER_ACTIVITY =
            "CREATE TABLE IF NOT EXISTS user_activity ("
                    + " user_id BIGINT PRIMARY KEY,"
                    + " last_read_at DATETIME(3) NOT NULL,"
                    + " updated_at DATETIME(3) NOT NULL)";

    public static final String CREATE_CONVERSATION_MEMBER =
            "CREATE TABLE IF NOT EXISTS conversation_member ("
                    + " conversation_id BIGINT NOT NULL,"
                    + " user_id BIGINT NOT NULL,"
                    + " last_read_seq BIGINT NOT NULL DEFAULT 0,"
                    + " unread_count INT NOT NULL DEFAULT 0,"
                    + " PRIMARY KEY (conversation_id, user_id),"
                    + " KEY "
                    + USER_INDEX
                    + " (user_id))";

    /** MySQL's and MariaDB's ER_DUP_KEYNAME: another writer added the index first. */
    private static final int DUPLICATE_KEY_NAME = 1061;

    private MySqlSchema() {}

    /**
     * Creates {@code table} if absent and, for conversation_member, adds the user index to a table
     * an earlier release created without it. Several writers may run this at once: the one that
     * loses the race to add the index gets ER_DUP_KEYNAME, which means it is there.
     */
    public static void create(Connection connection, String table) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            if (table.equals(USER_ACTIVITY)) {
                statement.execute(CREATE_USER_ACTIVITY);
                return;
            }
            if (!table.equals(CONVERSATION_MEMBER)) {
                throw new IllegalArgumentException("not a table of the contract: " + table);
            }
            statement.execute(CREATE_CONVERSATION_MEMBER);
            if (hasIndex(connection, CONVERSATION_MEMBER, USER_INDEX)) {
                return;
            }
            // MySQL has no ADD KEY IF NOT EXISTS (MariaDB has): checked above, raced here.
            statement.execute(
                    "ALTER TABLE " + CONVERSATION_MEMBER + " ADD KEY " + USER_INDEX + " (user_id)");
        } catch (SQLException e) {
            if (e.getErrorCode() != DUPLICATE_KEY_NAME) {
                throw e;
            }
        }
    }

    private static boolean hasIndex(Connection connection, String table, String index)
            throws SQLException {
        try (PreparedStatement select =
                connection.prepareStatement(
                        "SELECT 1 FROM information_schema.statistics WHERE table_schema = DATABASE()"
                                + " AND table_name = ? AND index_name = ?")) {
            select.setString(1, table);
            select.setString(2, index);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next();
            }
        }
    }
}
