package dev.unread.events;

import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * A copy of a {@code chat-messages} reply with a conversation for its sender's own key, where it
 * counts toward nothing but tells the sender's thread state that the sender wrote it: a sender
 * follows the threads they reply in, and {@code chat-messages} records are keyed by their receiver
 * (see dev.unread.counter.Threads). With {@code trackRootSenders} every conversation message is
 * copied, so that a root's sender follows its thread when the replies do not name them (version 3's
 * way, at its cost of a record more per message). A message to oneself already reaches its sender.
 */
public class OwnMessages implements FlatMapFunction<ChatEvent, ChatEvent> {

    private final boolean trackRootSenders;

    public OwnMessages(boolean trackRootSenders) {
        this.trackRootSenders = trackRootSenders;
    }

    @Override
    public void flatMap(ChatEvent event, Collector<ChatEvent> out) {
        if (event.kind == ChatEvent.Kind.MESSAGE
                && event.hasConversation()
                && (event.isReply() || trackRootSenders)
                && event.senderId != event.userId) {
            ChatEvent own =
                    ChatEvent.message(
                            event.senderId,
                            event.senderId,
                            event.conversationId,
                            event.seq,
                            event.time);
            own.threadSeq = event.threadSeq;
            own.rootSenderId = event.rootSenderId;
            out.collect(own);
        }
    }
}
