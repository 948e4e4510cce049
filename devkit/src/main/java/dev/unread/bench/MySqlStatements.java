package dev.unread.bench;

import dev.unread.config.UnreadConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Write statements the MySQL server has run, as it counts them ({@code Com_insert} and {@code
 * Com_update} in {@code SHOW GLOBAL STATUS}): the job's cursor upserts are INSERT ... ON DUPLICATE
 * KEY UPDATE, and a batch the driver rewrites into one multi-row INSERT counts once, as the server
 * pays for it. Server-wide, so other clients' writes during a run count too.
 */
final class MySqlStatements {

    private MySqlStatements() {}

    static long written(UnreadConfig config) throws SQLException {
        try (Connection c =
                        DriverManager.getConnection(
                                config.jdbcUrl, config.jdbcUser, config.jdbcPassword);
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SHOW GLOBAL STATUS WHERE Variable_name IN"
                                        + " ('Com_insert', 'Com_update')")) {
            long total = 0;
            while (rs.next()) {
                total += rs.getLong(2);
            }
            return total;
        }
    }
}
