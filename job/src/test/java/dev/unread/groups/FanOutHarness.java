package dev.unread.groups;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * The conversations' fan-out ({@link GroupFanOut}) in an opened test harness, keyed as the job keys
 * it.
 */
final class FanOutHarness {

    private FanOutHarness() {}

    /** On RocksDB, the production backend. */
    static KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> open()
            throws Exception {
        return open(new EmbeddedRocksDBStateBackend());
    }

    static KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> open(
            StateBackend backend) throws Exception {
        KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new GroupFanOut()),
                        e -> e.conversationId,
                        Types.LONG);
        harness.setStateBackend(backend);
        harness.open();
        return harness;
    }
}
