package dev.unread.events;

import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * A copy of every {@code chat-messages} message with a conversation for its sender's own key, where
 * it counts toward nothing but tells the sender's thread state that the sender wrote it: a sender
 * follows the threads they wrote in, and {@code chat-messages} records are keyed by their receiver
 * (see dev.unread.counter.Threads). A message to oneself already reaches its sender.
 */
public class OwnMessages implements FlatMapFunction<ChatEvent, ChatEvent> {

    @Override
    public void flatMap(ChatEvent event, Collector<ChatEvent> out) {
        if (event.kind == ChatEvent.Kind.MESSAGE
                && event.hasConversation()
                && event.senderId != event.userId) {
            ChatEvent own =
                    ChatEvent.message(
                            event.senderId,
                            event.senderId,
                            event.conversationId,
                            event.seq,
                            event.time);
            own.threadSeq = event.threadSeq;
            out.collect(own);
        }
    }
}
