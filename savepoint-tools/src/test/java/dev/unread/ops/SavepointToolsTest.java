package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the savepoint tools refuse before any work. Their command lines are the CLI's:
 * SavepointCommandTest in the devkit.
 */
class SavepointToolsTest {

    @TempDir Path empty;

    @Test
    void bootstrapTakesOnlyAPlainTableName() {
        for (String table : List.of("messages; DROP TABLE user_activity", "a.b.c", "1messages")) {
            assertThatThrownBy(() -> Bootstrap.tableName(table))
                    .as(table)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a table name");
        }
        assertThat(Bootstrap.tableName("chat.messages")).isEqualTo("chat.messages");
        assertThat(Bootstrap.tableName(Bootstrap.DEFAULT_MESSAGES_TABLE))
                .isEqualTo(Bootstrap.DEFAULT_MESSAGES_TABLE);
    }

    @Test
    void inspectAndRepublishFailOnADirectoryWithoutASavepoint() {
        String path = empty.toUri().toString();

        assertThatThrownBy(() -> SavepointInspect.inspect(path, 10))
                .hasMessageContaining(empty.getFileName().toString());
        assertThatThrownBy(() -> SavepointRepublish.republish(path, null))
                .hasMessageContaining(empty.getFileName().toString());
    }
}
