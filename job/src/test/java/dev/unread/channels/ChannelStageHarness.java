package dev.unread.channels;

import dev.unread.events.ChannelWrite;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.ConversationEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;

/**
 * The channel stage in a test harness on RocksDB, keyed by conversation, with what it wrote applied
 * to a {@link ChannelRedisModel} as it goes and the cursors it emitted collected.
 */
final class ChannelStageHarness implements AutoCloseable {

    final KeyedTwoInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent, ChannelWrite>
            harness;
    final ChannelRedisModel redis;
    final List<ChannelWrite> writes = new ArrayList<>();
    final List<ConversationCursor> cursors = new ArrayList<>();

    private ChannelStageHarness(
            ChannelStage stage, OperatorSubtaskState restored, ChannelRedisModel redis)
            throws Exception {
        this.redis = redis;
        harness =
                new KeyedTwoInputStreamOperatorTestHarness<>(
                        new KeyedCoProcessOperator<>(stage),
                        e -> e.conversationId,
                        e -> e.conversationId,
                        Types.LONG);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        if (restored != null) {
            harness.initializeState(restored);
        }
        harness.open();
    }

    /** A cursor as the stage emits it: a channel's receipt goes to READ_PROGRESS_CHANGED alone. */
    static ConversationCursor cursor(long userId, long conversationId, long seq, long unread) {
        ConversationCursor cursor = new ConversationCursor(userId, conversationId, seq, unread);
        cursor.allRead = true;
        return cursor;
    }

    static ChannelStageHarness open() throws Exception {
        return open(new ChannelStage());
    }

    static ChannelStageHarness open(ChannelStage stage) throws Exception {
        return new ChannelStageHarness(stage, null, new ChannelRedisModel());
    }

    /** A new incarnation of the stage from {@code snapshot}, writing to the same model. */
    ChannelStageHarness restore(OperatorSubtaskState snapshot) throws Exception {
        return new ChannelStageHarness(new ChannelStage(), snapshot, redis);
    }

    OperatorSubtaskState snapshot() throws Exception {
        return harness.snapshot(0, 0);
    }

    void records(ConversationEvent... events) throws Exception {
        for (ConversationEvent e : events) {
            harness.processElement1(new StreamRecord<>(e));
            drain();
        }
    }

    void facts(ChatEvent... events) throws Exception {
        for (ChatEvent e : events) {
            harness.processElement2(new StreamRecord<>(e));
            drain();
        }
    }

    /** The writes and cursors since the last call, and clears them. */
    List<ChannelWrite> takeWrites() {
        List<ChannelWrite> taken = new ArrayList<>(writes);
        writes.clear();
        return taken;
    }

    List<ConversationCursor> takeCursors() {
        List<ConversationCursor> taken = new ArrayList<>(cursors);
        cursors.clear();
        return taken;
    }

    ChannelRedisModel.Counts counts(long userId, long conversationId) {
        return redis.counts(userId, conversationId);
    }

    /**
     * Redis as {@link ChannelStateWrites} rebuilds it from the stage's state of {@code channels}
     * alone (what {@code savepoint republish} writes), in a model of its own.
     */
    ChannelRedisModel fromState(Iterable<Long> channels) throws Exception {
        ChannelRedisModel rebuilt = new ChannelRedisModel();
        KeyedCoProcessOperator<?, ?, ?, ?> operator =
                (KeyedCoProcessOperator<?, ?, ?, ?>) harness.getOperator();
        ChannelStateWrites state =
                new ChannelStateWrites(operator.getUserFunction().getRuntimeContext());
        for (long channel : channels) {
            operator.setCurrentKey(channel);
            state.index(channel, rebuilt::apply);
            state.tracks(channel, rebuilt::apply);
        }
        return rebuilt;
    }

    @SuppressWarnings("unchecked")
    private void drain() {
        Queue<Object> output = harness.getOutput();
        Object next;
        while ((next = output.poll()) != null) {
            if (next instanceof StreamRecord<?> record) {
                ChannelWrite write = (ChannelWrite) record.getValue();
                writes.add(write);
                redis.apply(write);
            }
        }
        Queue<StreamRecord<ConversationCursor>> side = harness.getSideOutput(ChannelStage.CURSORS);
        if (side != null) {
            StreamRecord<ConversationCursor> cursor;
            while ((cursor = side.poll()) != null) {
                cursors.add(cursor.getValue());
            }
        }
    }

    @Override
    public void close() throws Exception {
        harness.close();
    }
}
