package dev.unread.testing;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.MySqlSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A database and a user of its own on the shared test server (MariaDB at 127.0.0.1:3306, root
 * without password), both named {@code unread_<random>} and dropped by {@link #close()}, so tests
 * of several helpers and builds can run against one server at the same time.
 *
 * <p>The user may touch only its database, and tests can lock it out or cut its connections without
 * disturbing anyone else's.
 */
public final class MySqlTestDatabase implements AutoCloseable {

    public static final String SERVER = "jdbc:mysql://127.0.0.1:3306/";

    /**
     * URL parameters that make Connector/J set the session time zone to +09:00: NOW() and TIMESTAMP
     * columns would follow it, DATETIME columns written by the sinks must not.
     */
    public static final String SESSION_IN_TOKYO =
            "?connectionTimeZone=%2B09:00&forceConnectionTimeZoneToSession=true";

    private static final String ROOT = "root";
    private static final int UNKNOWN_THREAD_ID = 1094;

    public final String name;
    public final String password;

    private MySqlTestDatabase(String name, String password) {
        this.name = name;
        this.password = password;
    }

    public static MySqlTestDatabase create() throws SQLException {
        String name = "unread_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        MySqlTestDatabase db = new MySqlTestDatabase(name, UUID.randomUUID().toString());
        try (Connection c = root();
                Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
            st.execute("CREATE USER '" + name + "'@'%' IDENTIFIED BY '" + db.password + "'");
            st.execute("GRANT ALL PRIVILEGES ON " + name + ".* TO '" + name + "'@'%'");
        }
        return db;
    }

    /** The server's administrative account, for setting up and checking from outside. */
    public static Connection root() throws SQLException {
        return DriverManager.getConnection(SERVER, ROOT, "");
    }

    public String jdbcUrl() {
        return SERVER + name;
    }

    /** The job's settings pointing at this database as its own user. */
    public UnreadConfig config(String urlParameters) {
        Map<String, String> settings = new HashMap<>();
        settings.put("jdbc-url", jdbcUrl() + urlParameters);
        settings.put("jdbc-user", name);
        return UnreadConfig.from(settings, Map.of(UnreadConfig.JDBC_PASSWORD_ENV, password));
    }

    public UnreadConfig config() {
        return config("");
    }

    /** A connection as root with this database selected. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), ROOT, "");
    }

    public void dropTables() throws SQLException {
        try (Connection c = connect();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + MySqlSchema.USER_ACTIVITY);
            st.execute("DROP TABLE IF EXISTS " + MySqlSchema.CONVERSATION_MEMBER);
        }
    }

    public boolean tableExists(String table) throws SQLException {
        return queryLong(
                        "SELECT COUNT(*) FROM information_schema.tables"
                                + " WHERE table_schema = '"
                                + name
                                + "' AND table_name = '"
                                + table
                                + "'")
                == 1;
    }

    public long queryLong(String sql) throws SQLException {
        try (Connection c = connect()) {
            return queryLong(c, sql);
        }
    }

    /** On a given connection, for polling loops that should not open one per round. */
    public static long queryLong(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Each row of {@code sql} as its columns' text, for comparing whole tables. */
    public List<List<String>> rows(String sql) throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        try (Connection c = connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= columns; i++) {
                    row.add(rs.getString(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    /** Locks this database's user out, or lets it in again; open connections stay open. */
    public void lockUser(boolean locked) throws SQLException {
        try (Connection c = root();
                Statement st = c.createStatement()) {
            st.execute("ALTER USER '" + name + "'@'%' ACCOUNT " + (locked ? "LOCK" : "UNLOCK"));
        }
    }

    /** Cuts every connection of this database's user, as a network failure or restart would. */
    public int killUserConnections() throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Connection c = root();
                PreparedStatement ps =
                        c.prepareStatement(
                                "SELECT id FROM information_schema.processlist WHERE user = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            try (Statement st = c.createStatement()) {
                for (long id : ids) {
                    try {
                        st.execute("KILL CONNECTION " + id);
                    } catch (SQLException e) {
                        // The connection may have ended on its own since it was listed.
                        if (e.getErrorCode() != UNKNOWN_THREAD_ID) {
                            throw e;
                        }
                    }
                }
            }
        }
        return ids.size();
    }

    @Override
    public void close() throws SQLException {
        try (Connection c = root();
                Statement st = c.createStatement()) {
            st.execute("DROP USER IF EXISTS '" + name + "'@'%'");
            st.execute("DROP DATABASE IF EXISTS " + name);
        }
    }
}
