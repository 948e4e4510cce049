package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import java.lang.reflect.Field;
import java.util.Map;
import org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink;
import org.apache.flink.connector.jdbc.core.datastream.sink.writer.JdbcWriter;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

/**
 * Flink decides which operators a sink gets, and what state they keep, from the interfaces the sink
 * and its writer implement: the wrapper must implement all those of the connector, also after a
 * connector upgrade adds one.
 */
class JdbcCursorSinkTest {

    @Test
    void theSinkImplementsEveryInterfaceOfTheConnectorsSink() {
        assertThat(JdbcCursorSink.class.getInterfaces())
                .containsExactlyInAnyOrder(JdbcSink.class.getInterfaces());
        assertThat(MySqlCursors.userActivity(UnreadConfig.with(Map.of())))
                .isInstanceOf(JdbcCursorSink.class);
        assertThat(MySqlCursors.conversationMember(UnreadConfig.with(Map.of())))
                .isInstanceOf(JdbcCursorSink.class);
    }

    @Test
    void theWriterImplementsEveryInterfaceOfTheConnectorsWriter() {
        assertThat(JdbcCursorSink.Writer.class.getInterfaces())
                .containsExactlyInAnyOrder(JdbcWriter.class.getInterfaces());
    }

    /** The writer's connection is the one the table was created on, in each subtask's copy. */
    @Test
    void aDeserializedSinkStillSharesOneConnectionProviderWithTheConnector() throws Exception {
        JdbcCursorSink<?> sink =
                (JdbcCursorSink<?>) MySqlCursors.userActivity(UnreadConfig.with(Map.of()));

        JdbcCursorSink<?> copy =
                InstantiationUtil.clone(sink, JdbcCursorSinkTest.class.getClassLoader());

        Object provider = field(copy, JdbcCursorSink.class, "connection");
        Object delegate = field(copy, JdbcCursorSink.class, "delegate");
        assertThat(field(delegate, JdbcSink.class, "connectionProvider")).isSameAs(provider);
        assertThat(provider).isNotSameAs(field(sink, JdbcCursorSink.class, "connection"));
    }

    private static Object field(Object owner, Class<?> declaring, String name) throws Exception {
        Field field = declaring.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(owner);
    }
}
