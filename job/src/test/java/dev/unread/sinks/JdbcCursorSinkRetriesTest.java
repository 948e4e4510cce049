package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ConversationCursor;
import dev.unread.testing.MySqlTestDatabase;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The MySQL sinks' retry counter against the real server: the connector counts nothing, so {@link
 * RetryCountingConnectionProvider} infers its retries from its calls, and this holds the connector
 * to the one call per retry that inference rests on (monitoring/ alerts on the counter).
 */
class JdbcCursorSinkRetriesTest {

    private MySqlTestDatabase db;
    private SinkWriter<ConversationCursor> writer;

    @BeforeEach
    void createDatabase() throws Exception {
        db = MySqlTestDatabase.create();
    }

    @AfterEach
    void dropDatabase() throws Exception {
        if (writer != null) {
            writer.close();
        }
        db.close();
    }

    @Test
    void aBatchRetriedAfterItsConnectionWasCutCountsOneRetry() throws Exception {
        // With object reuse, as in the job, the connector's writer copies each record it buffers.
        TestWriterContext context =
                new TestWriterContext(
                        TypeInformation.of(ConversationCursor.class)
                                .createSerializer(new SerializerConfigImpl()));
        writer = MySqlCursors.conversationMember(db.config()).createWriter(context);

        writer.write(new ConversationCursor(1, 80001, 5, 0), null);
        writer.flush(false);
        assertThat(context.counter(RetryCountingConnectionProvider.RETRIES_METRIC)).isZero();

        assertThat(db.killUserConnections()).as("the sink's connection").isPositive();
        writer.write(new ConversationCursor(2, 80001, 7, 0), null);
        writer.flush(false);

        assertThat(context.counter(RetryCountingConnectionProvider.RETRIES_METRIC)).isEqualTo(1);
        assertThat(db.queryLong("SELECT COUNT(*) FROM conversation_member")).isEqualTo(2);
    }
}
