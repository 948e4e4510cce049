package dev.unread.sinks;

import dev.unread.config.UnreadConfig;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import org.apache.flink.api.connector.sink2.Sink;

/** Read cursors to MySQL. (Being built.) */
public final class MySqlCursors {
    private MySqlCursors() {}

    public static Sink<InboxCursor> userActivity(UnreadConfig config) {
        throw new UnsupportedOperationException("not built yet");
    }

    public static Sink<ConversationCursor> conversationMember(UnreadConfig config) {
        throw new UnsupportedOperationException("not built yet");
    }
}
