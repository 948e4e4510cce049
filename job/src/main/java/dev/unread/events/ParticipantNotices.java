package dev.unread.events;

import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * The participants of conversations as {@code chat-messages} records show them: the sender and the
 * receiver of every record that carries a conversation.
 *
 * <p>A conversation's records repeat the same few pairs, so a small direct-mapped cache of the
 * notices sent lately drops most repeats before they cross the network. It is not state: after a
 * restore it starts empty and some notices go out again, which the readers stage ignores.
 */
public class ParticipantNotices extends RichFlatMapFunction<ChatEvent, ReaderUpdate> {

    /** Slots of the cache: 2 × 8 bytes each, 1 MiB per subtask. */
    private static final int SLOTS = 1 << 16;

    private transient long[] conversations;
    private transient long[] users;

    @Override
    public void open(OpenContext openContext) {
        conversations = new long[SLOTS];
        users = new long[SLOTS];
    }

    @Override
    public void flatMap(ChatEvent event, Collector<ReaderUpdate> out) {
        if (event.kind == ChatEvent.Kind.MESSAGE && event.hasConversation()) {
            notice(event.conversationId, event.userId, out);
            notice(event.conversationId, event.senderId, out);
        }
    }

    private void notice(long conversationId, long userId, Collector<ReaderUpdate> out) {
        long hash = (conversationId * 0x9E3779B97F4A7C15L + userId) * 0xC2B2AE3D27D4EB4FL;
        int slot = (int) (hash >>> 48) & (SLOTS - 1);
        if (conversations[slot] != conversationId || users[slot] != userId) {
            conversations[slot] = conversationId;
            users[slot] = userId;
            out.collect(ReaderUpdate.participant(conversationId, userId));
        }
    }

    /** The membership events, each member's join or leave with its seq. */
    public static final class Members implements FlatMapFunction<ConversationEvent, ReaderUpdate> {
        @Override
        public void flatMap(ConversationEvent event, Collector<ReaderUpdate> out) {
            if (event.isMembership()) {
                out.collect(
                        ReaderUpdate.membership(
                                event.conversationId,
                                event.userId,
                                event.kind == ConversationEvent.Kind.MEMBER_JOINED,
                                event.seq));
            }
        }
    }
}
