package dev.unread.sinks;

import java.sql.Connection;
import java.sql.SQLException;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.datasource.connections.SimpleJdbcConnectionProvider;
import org.apache.flink.metrics.Counter;

/**
 * The connector's connection provider, counting the batches the connector retried. The JDBC
 * connector registers no metric of its own; its writer asks {@link #isConnectionValid} once before
 * each retry of a failed batch (JdbcOutputFormat.flush, connector 4.0), and otherwise only through
 * {@link #getOrEstablishConnection}, so the calls from outside that are its retries; {@code
 * JdbcCursorSinkRetriesTest} holds the connector to it. A batch that fails its last retry fails the
 * task and shows as a restart instead.
 */
final class RetryCountingConnectionProvider extends SimpleJdbcConnectionProvider {

    private static final long serialVersionUID = 1L;

    /** Counter on each MySQL sink writer's metric group: batches retried. */
    static final String RETRIES_METRIC = "mysqlRetries";

    /** Set on each subtask's copy when its writer opens; null before, so nothing is counted. */
    private transient Counter retries;

    /**
     * Inside {@link #getOrEstablishConnection}, whose own check is no retry. The writer's task
     * thread and the connector's interval flusher never call in at once: the connector's flush is
     * synchronized, and the writer opens before the flusher starts.
     */
    private transient boolean establishing;

    RetryCountingConnectionProvider(JdbcConnectionOptions options) {
        super(options);
    }

    void countRetriesIn(Counter retries) {
        this.retries = retries;
    }

    @Override
    public Connection getOrEstablishConnection() throws SQLException, ClassNotFoundException {
        establishing = true;
        try {
            return super.getOrEstablishConnection();
        } finally {
            establishing = false;
        }
    }

    @Override
    public boolean isConnectionValid() throws SQLException {
        if (retries != null && !establishing) {
            retries.inc();
        }
        return super.isConnectionValid();
    }
}
