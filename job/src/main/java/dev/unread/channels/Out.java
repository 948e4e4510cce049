package dev.unread.channels;

import dev.unread.events.ChannelWrite;
import dev.unread.events.ConversationCursor;
import java.util.function.Consumer;

/** Where the element being processed writes: the channel's writes, and the members' cursors. */
final class Out {

    final long conversationId;
    private final Consumer<ChannelWrite> writes;
    private final Consumer<ConversationCursor> cursors;

    Out(long conversationId, Consumer<ChannelWrite> writes, Consumer<ConversationCursor> cursors) {
        this.conversationId = conversationId;
        this.writes = writes;
        this.cursors = cursors;
    }

    void write(ChannelWrite write) {
        writes.accept(write);
    }

    void cursor(ConversationCursor cursor) {
        cursors.accept(cursor);
    }
}
