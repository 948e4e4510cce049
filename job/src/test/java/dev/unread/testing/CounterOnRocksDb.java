package dev.unread.testing;

import dev.unread.counter.UnreadCounter;
import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import org.apache.flink.api.common.functions.DefaultOpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * The counter in a test harness on RocksDB, the production state backend, keyed by user: for the
 * tests of the counter and of the state structures beneath it, which read and write its keyed state
 * directly.
 */
public final class CounterOnRocksDb implements AutoCloseable {

    public final KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness;

    private CounterOnRocksDb() throws Exception {
        harness = harness();
        harness.open();
    }

    /**
     * The counter in a harness keyed by user on RocksDB, not yet opened: a test may restore it from
     * a snapshot first.
     */
    public static KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness()
            throws Exception {
        return harness(new EmbeddedRocksDBStateBackend());
    }

    /** The same on {@code backend}. */
    public static KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness(
            StateBackend backend) throws Exception {
        KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new UnreadCounter()), e -> e.userId, Types.LONG);
        harness.setStateBackend(backend);
        return harness;
    }

    /**
     * {@code operator} (the counter, bare or in its job's operator) in an open harness keyed by
     * user on RocksDB, restored from {@code snapshot} unless null.
     */
    public static KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> opened(
            KeyedProcessOperator<Long, ChatEvent, UnreadCount> operator,
            OperatorSubtaskState snapshot)
            throws Exception {
        var harness =
                new KeyedOneInputStreamOperatorTestHarness<>(operator, e -> e.userId, Types.LONG);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        if (snapshot != null) {
            harness.initializeState(snapshot);
        }
        harness.open();
        return harness;
    }

    /** An open counter whose current key is user 1. */
    public static CounterOnRocksDb open() throws Exception {
        CounterOnRocksDb counter = new CounterOnRocksDb();
        counter.harness.getOperator().getKeyedStateBackend().setCurrentKey(1L);
        return counter;
    }

    /** The current user's map state of the descriptor. */
    public <K, V> MapState<K, V> state(MapStateDescriptor<K, V> descriptor) throws Exception {
        return harness.getOperator()
                .getKeyedStateBackend()
                .getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    /**
     * Opens the counter again, as a restore does: what a test wrote to its keyed state directly is
     * what it reads next, not the records it kept in memory.
     */
    public void reopen() throws Exception {
        ((UnreadCounter) ((KeyedProcessOperator<?, ?, ?>) harness.getOperator()).getUserFunction())
                .open(DefaultOpenContext.INSTANCE);
    }

    @Override
    public void close() throws Exception {
        harness.close();
    }
}
