package dev.unread.channels;

import dev.unread.events.ChannelWrite;
import dev.unread.events.ConversationCursor;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/** Where the element being processed writes: the channel's writes, and the members' cursors. */
final class Out {

    final long conversationId;
    private final Collector<ChannelWrite> writes;
    private final KeyedCoProcessFunction<?, ?, ?, ?>.Context context;

    Out(
            long conversationId,
            Collector<ChannelWrite> writes,
            KeyedCoProcessFunction<?, ?, ?, ?>.Context context) {
        this.conversationId = conversationId;
        this.writes = writes;
        this.context = context;
    }

    void write(ChannelWrite write) {
        writes.collect(write);
    }

    void cursor(ConversationCursor cursor) {
        context.output(ChannelStage.CURSORS, cursor);
    }
}
