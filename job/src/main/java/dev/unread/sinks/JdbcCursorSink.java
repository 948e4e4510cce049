package dev.unread.sinks;

import dev.unread.contract.MySqlSchema;
import java.io.IOException;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink;
import org.apache.flink.connector.jdbc.core.datastream.sink.committer.JdbcCommitable;
import org.apache.flink.connector.jdbc.core.datastream.sink.writer.JdbcWriter;
import org.apache.flink.connector.jdbc.core.datastream.sink.writer.JdbcWriterState;
import org.apache.flink.connector.jdbc.datasource.connections.JdbcConnectionProvider;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC connector's at-least-once {@link JdbcSink} with five additions.
 *
 * <ul>
 *   <li>The MySQL driver is let go of when the job's class loader is released ({@link
 *       MySqlDriverRelease}), so that a stopped job does not stay in the TaskManager's memory.
 *   <li>Each writer creates its table, if absent, when it opens on a task. It runs there rather
 *       than in the client that submits the job because only the task managers are sure to reach
 *       the database, and a writer that opens after a failover finds its table again even if
 *       someone dropped it. {@code CREATE TABLE IF NOT EXISTS} is safe to run from every subtask at
 *       once.
 *   <li>A writer that fails to close logs the error instead of throwing it. The connector's writer,
 *       closed with records still buffered after a batch failed to reconnect, throws (a
 *       NullPointerException from its half-reset statement, wrapped); Flink closes a failed task's
 *       writer while it handles the failure, and an error there is fatal to the whole TaskManager,
 *       so a database outage would take down every task on it instead of failing and restarting
 *       one. Nothing is lost by not throwing: records still buffered at close came after the last
 *       checkpoint, because every checkpoint and the end of the input flush the buffer and fail the
 *       task when that fails, so a restore replays them.
 *   <li>Batches the connector retried are counted as {@value
 *       RetryCountingConnectionProvider#RETRIES_METRIC} on the writer's metric group (the connector
 *       counts nothing), for the alert on a failing MySQL (monitoring/).
 *   <li>A record that stands for a user's erasure ({@link Erasures}) deletes the user's rows, all
 *       of them (but those of conversations it names) or its row in one conversation, instead of
 *       being written: after the connector's batch holding the cursors that came before it, and
 *       before any that come after it, so that an earlier cursor can never bring a row back.
 *       Consecutive erasures go in one batch; the writer's flush (every checkpoint) runs them too,
 *       so none waits past a checkpoint. A delete that fails its retries fails the task, and the
 *       restore replays the erasure.
 * </ul>
 *
 * <p>It implements every interface {@link JdbcSink} does ({@link SupportsWriterState} and {@link
 * SupportsCommitter}) and hands them all to the wrapped sink, so Flink builds the same operators
 * with the same state as for the bare connector and savepoints stay compatible with it.
 */
final class JdbcCursorSink<IN>
        implements Sink<IN>,
                SupportsWriterState<IN, JdbcWriterState>,
                SupportsCommitter<JdbcCommitable> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(JdbcCursorSink.class);

    /**
     * The conversations one statement of {@link Erasures#deleteBetweenBut} leaves: a user's erasure
     * leaves any number, in a statement per this many, so that no statement grows with them.
     */
    static final int KEPT_PER_DELETE = 100;

    private static final long[] NONE = {};

    /** Which records are erasures, which rows each erases, and the statements that delete them. */
    interface Erasures<IN> extends Serializable {
        /** The user {@code record} erases, 0 when it is a cursor to write. */
        long erasedUser(IN record);

        /**
         * The conversation whose row of the user the erasure {@code record} deletes; 0 for every
         * row of the user.
         */
        long erasedConversation(IN record);

        /**
         * A DELETE of the user's row in one conversation, its parameters the user and the
         * conversation, when {@code oneConversation}; else of every row of the user, its one
         * parameter the user.
         */
        String delete(boolean oneConversation);

        /**
         * The conversations, ascending, whose rows of the user the erasure of every row {@code
         * record} leaves; empty when it leaves none.
         */
        default long[] keptConversations(IN record) {
            return NONE;
        }

        /**
         * A DELETE of the user's rows in the conversations from one id to another, both included,
         * but {@link #KEPT_PER_DELETE} conversations; its parameters the user, the two ids, then
         * the conversations left. Asked for only when {@link #keptConversations} returns some.
         */
        default String deleteBetweenBut() {
            throw new UnsupportedOperationException("the erasures leave no conversation");
        }
    }

    /**
     * The rows one erasure deletes: the user's in {@code conversation}, or all when it is 0. A
     * class, not a record: a record's generated {@code equals}, which a set calls, keeps the job's
     * class loader alive after the job stops (docs/operations.md, "Stopping and resubmitting leaves
     * nothing behind").
     */
    static final class ErasedRows {
        private final long user;
        private final long conversation;

        ErasedRows(long user, long conversation) {
            this.user = user;
            this.conversation = conversation;
        }

        long user() {
            return user;
        }

        long conversation() {
            return conversation;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ErasedRows r && r.user == user && r.conversation == conversation;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(user) * 31 + Long.hashCode(conversation);
        }
    }

    private final JdbcSink<IN> delegate;

    private final Erasures<IN> erasures;

    /**
     * The very provider {@code delegate} writes through: Java serialization keeps the two
     * references one object, and every subtask deserializes its own copy of the sink, so this is
     * the connection of this subtask's writer.
     */
    private final RetryCountingConnectionProvider connection;

    /** The table the sink writes, created by {@link MySqlSchema#create} when a writer opens. */
    private final String table;

    /** {@code delegate} must have been built on {@code connection}. */
    JdbcCursorSink(
            JdbcSink<IN> delegate,
            RetryCountingConnectionProvider connection,
            String table,
            Erasures<IN> erasures) {
        this.delegate = delegate;
        this.erasures = erasures;
        this.connection = connection;
        this.table = table;
    }

    @Override
    public Writer<IN> createWriter(WriterInitContext context) throws IOException {
        MySqlDriverRelease.registerFor(context.getUserCodeClassLoader());
        connection.countRetriesIn(
                context.metricGroup().counter(RetryCountingConnectionProvider.RETRIES_METRIC));
        createTableIfAbsent();
        return new Writer<>(delegate.createWriter(context), connection, erasures);
    }

    @Override
    public Writer<IN> restoreWriter(
            WriterInitContext context, Collection<JdbcWriterState> recoveredState)
            throws IOException {
        MySqlDriverRelease.registerFor(context.getUserCodeClassLoader());
        connection.countRetriesIn(
                context.metricGroup().counter(RetryCountingConnectionProvider.RETRIES_METRIC));
        createTableIfAbsent();
        return new Writer<>(delegate.restoreWriter(context, recoveredState), connection, erasures);
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

    /** On the writer's own connection, which the writer then opens with. */
    private void createTableIfAbsent() throws IOException {
        try {
            MySqlSchema.create(connection.getOrEstablishConnection(), table);
        } catch (SQLException | ClassNotFoundException e) {
            connection.closeConnection();
            throw new IOException("could not create " + table, e);
        }
    }

    /** The connector's writer, closed without throwing (see the class comment). */
    static final class Writer<IN>
            implements StatefulSinkWriter<IN, JdbcWriterState>,
                    CommittingSinkWriter<IN, JdbcCommitable> {

        private final JdbcWriter<IN> delegate;
        private final JdbcConnectionProvider connection;
        private final Erasures<IN> erasures;

        /** Rows of one conversation each that go before the next cursor is written. */
        private final Set<ErasedRows> erased = new LinkedHashSet<>();

        /**
         * Users all of whose rows go before the next cursor is written, each with the conversations
         * left.
         */
        private final Map<Long, long[]> kept = new LinkedHashMap<>();

        Writer(JdbcWriter<IN> delegate, JdbcConnectionProvider connection, Erasures<IN> erasures) {
            this.delegate = delegate;
            this.connection = connection;
            this.erasures = erasures;
        }

        @Override
        public void write(IN element, Context context) throws IOException, InterruptedException {
            long user = erasures.erasedUser(element);
            if (user != 0) {
                long conversation = erasures.erasedConversation(element);
                if (conversation == 0) {
                    kept.put(user, erasures.keptConversations(element));
                } else if (!deletesEveryRow(user, conversation)) {
                    erased.add(new ErasedRows(user, conversation));
                }
                return;
            }
            deleteErased();
            delegate.write(element, context);
        }

        /**
         * Whether the erasure of every row of the user, waiting already, deletes its row in the
         * conversation: the user's state sends it first, then one per conversation.
         */
        private boolean deletesEveryRow(long user, long conversation) {
            long[] left = kept.get(user);
            return left != null && Arrays.binarySearch(left, conversation) < 0;
        }

        @Override
        public void flush(boolean endOfInput) throws IOException, InterruptedException {
            delegate.flush(endOfInput);
            deleteErased();
        }

        /**
         * Writes the cursors buffered before the erasures, then deletes the erased rows. The
         * deletes of one flush come from consecutive erasures, so their order among themselves does
         * not matter.
         */
        private void deleteErased() throws IOException, InterruptedException {
            if (erased.isEmpty() && kept.isEmpty()) {
                return;
            }
            delegate.flush(false);
            for (int attempt = 0; ; attempt++) {
                try {
                    Connection c = connection.getOrEstablishConnection();
                    delete(c, false);
                    delete(c, true);
                    deleteAllBut(c);
                    if (!c.getAutoCommit()) {
                        c.commit();
                    }
                    erased.clear();
                    kept.clear();
                    return;
                } catch (SQLException | ClassNotFoundException e) {
                    if (attempt >= MySqlCursors.MAX_RETRIES) {
                        throw new IOException("could not delete the rows of erased users", e);
                    }
                    connection.closeConnection();
                    Thread.sleep(1000L * attempt);
                }
            }
        }

        /**
         * The erased rows of every user that leaves none, or of one conversation each, in one
         * batch.
         */
        private void delete(Connection c, boolean oneConversation) throws SQLException {
            List<ErasedRows> rows =
                    oneConversation
                            ? List.copyOf(erased)
                            : kept.entrySet().stream()
                                    .filter(e -> e.getValue().length == 0)
                                    .map(e -> new ErasedRows(e.getKey(), 0))
                                    .toList();
            if (rows.isEmpty()) {
                return;
            }
            try (PreparedStatement delete = c.prepareStatement(erasures.delete(oneConversation))) {
                for (ErasedRows r : rows) {
                    delete.setLong(1, r.user());
                    if (oneConversation) {
                        delete.setLong(2, r.conversation());
                    }
                    delete.addBatch();
                }
                delete.executeBatch();
            }
        }

        /**
         * The erased rows of every user that leaves some conversations, in one batch: the
         * conversations left, ascending, split in runs of {@link #KEPT_PER_DELETE}, cut the ids
         * into ranges that hold one run each and together hold every id; each range loses its rows
         * but those of its run (the last id repeated to fill the statement).
         */
        private void deleteAllBut(Connection c) throws SQLException {
            List<Map.Entry<Long, long[]>> users =
                    kept.entrySet().stream().filter(e -> e.getValue().length > 0).toList();
            if (users.isEmpty()) {
                return;
            }
            try (PreparedStatement delete = c.prepareStatement(erasures.deleteBetweenBut())) {
                for (Map.Entry<Long, long[]> user : users) {
                    long[] left = user.getValue();
                    for (int from = 0; from < left.length; from += KEPT_PER_DELETE) {
                        int to = Math.min(from + KEPT_PER_DELETE, left.length);
                        delete.setLong(1, user.getKey());
                        delete.setLong(2, from == 0 ? Long.MIN_VALUE : left[from]);
                        delete.setLong(3, to == left.length ? Long.MAX_VALUE : left[to] - 1);
                        for (int i = 0; i < KEPT_PER_DELETE; i++) {
                            delete.setLong(4 + i, left[Math.min(from + i, to - 1)]);
                        }
                        delete.addBatch();
                    }
                }
                delete.executeBatch();
            }
        }

        @Override
        public void writeWatermark(Watermark watermark) throws IOException, InterruptedException {
            delegate.writeWatermark(watermark);
        }

        @Override
        public List<JdbcWriterState> snapshotState(long checkpointId) throws IOException {
            return delegate.snapshotState(checkpointId);
        }

        @Override
        public Collection<JdbcCommitable> prepareCommit() throws IOException, InterruptedException {
            return delegate.prepareCommit();
        }

        @Override
        public void close() {
            try {
                delegate.close();
            } catch (Exception e) {
                LOG.warn(
                        "Closing the JDBC writer failed; records after the last checkpoint are"
                                + " written again when the job restores from it.",
                        e);
                // The connector throws before closing its connection.
                connection.closeConnection();
            }
        }
    }
}
