package dev.unread.events;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Splits the {@code chat-messages} events: a reply to someone else goes to its conversation's stage
 * ({@link #REPLIES}), which passes it on to its receiver stamped with whether it is deleted (see
 * dev.unread.groups.GroupFanOut); everything else goes straight to the counter. A conversation
 * message needs no stamp: the conversation cursor governs it, and the receiver keeps every deletion
 * past that cursor.
 */
public class ReplyRouting extends ProcessFunction<ChatEvent, ChatEvent> {

    public static final OutputTag<ConversationEvent> REPLIES =
            new OutputTag<>(
                    "replies-to-conversations", TypeInformation.of(ConversationEvent.class));

    /** Whether {@code event} goes through its conversation's stage. */
    public static boolean viaConversation(ChatEvent event) {
        return event.kind == ChatEvent.Kind.MESSAGE
                && event.hasConversation()
                && event.isReply()
                && event.senderId != event.userId;
    }

    @Override
    public void processElement(ChatEvent event, Context ctx, Collector<ChatEvent> out) {
        if (viaConversation(event)) {
            ctx.output(REPLIES, ConversationEvent.receivedReply(event));
        } else {
            out.collect(event);
        }
    }
}
