package dev.unread.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.MySqlSchema;
import dev.unread.testing.MySqlTestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The MySQL that docker-compose.yml starts gets its tables from docker/mysql/init; the job creates
 * them when absent (MySqlSchema). Whichever comes first, the tables must be the same.
 */
class InitSqlITCase {

    private static final Path INIT_SQL =
            FlinkConf.findDir().resolveSibling("docker/mysql/init/01-unread-schema.sql");

    @Test
    void theComposeStacksTablesAreTheOnesTheJobCreates() throws Exception {
        try (MySqlTestDatabase fromScript = MySqlTestDatabase.create();
                MySqlTestDatabase fromJob = MySqlTestDatabase.create()) {
            try (Connection c = fromScript.connect();
                    Statement st = c.createStatement()) {
                for (String statement : Files.readString(INIT_SQL).split(";\\s*(\\n|$)")) {
                    if (!statement.isBlank()) {
                        st.execute(statement);
                    }
                }
            }
            try (Connection c = fromJob.connect();
                    Statement st = c.createStatement()) {
                st.execute(MySqlSchema.CREATE_USER_ACTIVITY);
                st.execute(MySqlSchema.CREATE_CONVERSATION_MEMBER);
            }

            List<List<String>> columns = columns(fromJob);
            assertThat(columns).hasSize(7);
            assertThat(columns(fromScript)).isEqualTo(columns);
            List<List<String>> indexes = indexes(fromJob);
            assertThat(indexes)
                    .contains(
                            List.of(
                                    "conversation_member",
                                    "ix_conversation_member_user",
                                    "1",
                                    "user_id"));
            assertThat(indexes(fromScript)).isEqualTo(indexes);
        }
    }

    /** Every index of the database's tables with its columns in order. */
    private static List<List<String>> indexes(MySqlTestDatabase db) throws Exception {
        return db.rows(
                "SELECT table_name, index_name, seq_in_index, column_name"
                        + " FROM information_schema.statistics WHERE table_schema = '"
                        + db.name
                        + "'"
                        + " ORDER BY table_name, index_name, seq_in_index");
    }

    /** Every column of the database's tables: type, nullability, default and key. */
    private static List<List<String>> columns(MySqlTestDatabase db) throws Exception {
        return db.rows(
                "SELECT table_name, column_name, ordinal_position, column_type,"
                        + " is_nullable, column_default, column_key FROM information_schema.columns"
                        + " WHERE table_schema = '"
                        + db.name
                        + "' ORDER BY table_name, ordinal_position");
    }
}
