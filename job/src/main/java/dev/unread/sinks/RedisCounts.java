package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.events.UnreadCount;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/** Writes counts to Redis. (Being built.) */
public class RedisCounts implements Sink<UnreadCount> {
    private final UnreadConfig config;

    public RedisCounts(UnreadConfig config) {
        this.config = config;
    }

    @Override
    public SinkWriter<UnreadCount> createWriter(WriterInitContext context) {
        throw new UnsupportedOperationException("not built yet: " + config);
    }
}
