package dev.unread;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.events.ParseEvents;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * The three input topics, parsed, with the refused records on {@link ParseEvents#DEAD_LETTERS}:
 * where the pipeline starts, and where the bench's ceilings start too, so that they measure the
 * same sources and parsers rather than a copy of them.
 */
public final class ParsedTopics {
    private final SingleOutputStreamOperator<ChatEvent> messageEvents;
    private final SingleOutputStreamOperator<ChatEvent> readEvents;
    private final SingleOutputStreamOperator<ConversationEvent> conversationEvents;

    public ParsedTopics(
            SingleOutputStreamOperator<ChatEvent> messageEvents,
            SingleOutputStreamOperator<ChatEvent> readEvents,
            SingleOutputStreamOperator<ConversationEvent> conversationEvents) {
        this.messageEvents = messageEvents;
        this.readEvents = readEvents;
        this.conversationEvents = conversationEvents;
    }

    public SingleOutputStreamOperator<ChatEvent> messageEvents() {
        return messageEvents;
    }

    public SingleOutputStreamOperator<ChatEvent> readEvents() {
        return readEvents;
    }

    public SingleOutputStreamOperator<ConversationEvent> conversationEvents() {
        return conversationEvents;
    }
}
