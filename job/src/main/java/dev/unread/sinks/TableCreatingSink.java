package dev.unread.sinks;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink;
import org.apache.flink.connector.jdbc.core.datastream.sink.committer.JdbcCommitable;
import org.apache.flink.connector.jdbc.core.datastream.sink.writer.JdbcWriterState;
import org.apache.flink.connector.jdbc.datasource.connections.SimpleJdbcConnectionProvider;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A {@link JdbcSink} that creates its table, if absent, whenever a writer opens on a task.
 *
 * <p>The statement runs on the task rather than in the client that submits the job: only the
 * task managers are sure to reach the database, and a writer that opens after a failover finds
 * the table again even if someone dropped it. {@code CREATE TABLE IF NOT EXISTS} is safe to run
 * from every subtask at once.
 *
 * <p>It implements every interface {@link JdbcSink} does ({@link SupportsWriterState} and {@link
 * SupportsCommitter}) and hands them all to the wrapped sink, so Flink builds the same operators
 * with the same state as for the bare connector and savepoints stay compatible with it.
 */
final class TableCreatingSink<IN>
        implements Sink<IN>,
                SupportsWriterState<IN, JdbcWriterState>,
                SupportsCommitter<JdbcCommitable> {

    private static final long serialVersionUID = 1L;

    private final JdbcSink<IN> delegate;
    private final JdbcConnectionOptions connection;
    private final String createTable;

    TableCreatingSink(JdbcSink<IN> delegate, JdbcConnectionOptions connection, String createTable) {
        this.delegate = delegate;
        this.connection = connection;
        this.createTable = createTable;
    }

    @Override
    public SinkWriter<IN> createWriter(WriterInitContext context) throws IOException {
        createTableIfAbsent();
        return delegate.createWriter(context);
    }

    @Override
    public StatefulSinkWriter<IN, JdbcWriterState> restoreWriter(
            WriterInitContext context, Collection<JdbcWriterState> recoveredState)
            throws IOException {
        createTableIfAbsent();
        return delegate.restoreWriter(context, recoveredState);
    }

    @Override
    public SimpleVersionedSerializer<JdbcWriterState> getWriterStateSerializer() {
        return delegate.getWriterStateSerializer();
    }

    @Override
    public Committer<JdbcCommitable> createCommitter(CommitterInitContext context)
            throws IOException {
        return delegate.createCommitter(context);
    }

    @Override
    public SimpleVersionedSerializer<JdbcCommitable> getCommittableSerializer() {
        return delegate.getCommittableSerializer();
    }

    /** Uses the connector's own provider so the driver is found the same way as for writes. */
    private void createTableIfAbsent() throws IOException {
        SimpleJdbcConnectionProvider provider = new SimpleJdbcConnectionProvider(connection);
        try (Statement statement = provider.getOrEstablishConnection().createStatement()) {
            statement.execute(createTable);
        } catch (SQLException | ClassNotFoundException e) {
            throw new IOException("could not run " + createTable, e);
        } finally {
            provider.closeConnection();
        }
    }
}
