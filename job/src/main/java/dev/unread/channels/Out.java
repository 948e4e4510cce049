package dev.unread.channels;

import dev.unread.events.ChannelWrite;
import dev.unread.events.ConversationCursor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/** Where the element being processed writes: the channel's writes, and the members' cursors. */
final class Out {

    /**
     * The stage's metrics of what it writes: {@link ChannelStage#INDEX_WRITES_METRIC} and {@link
     * ChannelStage#TRACK_WRITES_METRIC}.
     */
    record Counters(Counter indexWrites, Counter trackWrites) {}

    final long conversationId;
    private final Collector<ChannelWrite> writes;
    private final KeyedCoProcessFunction<?, ?, ?, ?>.Context context;
    private final Counters counters;

    Out(
            long conversationId,
            Collector<ChannelWrite> writes,
            KeyedCoProcessFunction<?, ?, ?, ?>.Context context,
            Counters counters) {
        this.conversationId = conversationId;
        this.writes = writes;
        this.context = context;
        this.counters = counters;
    }

    void write(ChannelWrite write) {
        switch (write.kind) {
            case TRACK -> counters.trackWrites().inc();
            case BLOCK, SEQ_ADDED, SEQ_REMOVED -> counters.indexWrites().inc();
            case NOTICE -> {}
        }
        writes.collect(write);
    }

    void cursor(ConversationCursor cursor) {
        context.output(ChannelStage.CURSORS, cursor);
    }
}
