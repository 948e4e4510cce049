package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.events.ConversationCursor;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/** Publishes read receipts to Redis. (Being built.) */
public class RedisReceipts implements Sink<ConversationCursor> {
    private final UnreadConfig config;

    public RedisReceipts(UnreadConfig config) {
        this.config = config;
    }

    @Override
    public SinkWriter<ConversationCursor> createWriter(WriterInitContext context) {
        throw new UnsupportedOperationException("not built yet: " + config);
    }
}
