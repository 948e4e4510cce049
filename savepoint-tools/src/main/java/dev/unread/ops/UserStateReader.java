package dev.unread.ops;

import dev.unread.counter.ConversationSeqs;
import dev.unread.counter.ConversationView;
import dev.unread.events.ChatEvent;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import dev.unread.state.StateSchema;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/** Reads UnreadCounter's state of each user, through the counter's own descriptors. */
final class UserStateReader extends KeyedStateReaderFunction<Long, UserState> {

    private transient ValueState<InboxState> inbox;
    private transient MapState<Long, Long> senders;
    private transient MapState<Long, ConversationState> conversations;

    @Override
    public void open(OpenContext openContext) {
        inbox = getRuntimeContext().getState(StateSchema.INBOX);
        senders = getRuntimeContext().getMapState(StateSchema.SENDERS);
        conversations = getRuntimeContext().getMapState(StateSchema.CONVERSATIONS);
    }

    @Override
    public void readKey(Long userId, Context context, Collector<UserState> out) throws Exception {
        InboxState inboxState = inbox.value();
        long senderCount = 0;
        for (Long ignored : senders.keys()) {
            senderCount++;
        }
        long conversationCount = 0;
        long cursors = 0;
        long unreadSeqs = 0;
        long mentions = 0;
        long marked = 0;
        long quieted = 0;
        for (Map.Entry<Long, ConversationState> entry : conversations.entries()) {
            conversationCount++;
            if (entry.getValue().lastReadSeq > 0) {
                cursors++;
            }
            unreadSeqs += ConversationSeqs.count(entry.getValue());
            mentions += entry.getValue().mentions();
            marked += ConversationView.of(entry.getValue()).marked() ? 1 : 0;
            quieted += entry.getValue().preference != ChatEvent.ALL ? 1 : 0;
        }
        out.collect(
                new UserState(
                        userId,
                        inboxState == null ? 0 : inboxState.lastReadAt,
                        senderCount,
                        inboxState == null ? 0 : inboxState.unreadSenders,
                        conversationCount,
                        cursors,
                        unreadSeqs,
                        mentions,
                        marked,
                        quieted));
    }
}
