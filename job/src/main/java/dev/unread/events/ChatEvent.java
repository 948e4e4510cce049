package dev.unread.events;

import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A validated input event, keyed by {@link #userId}: the receiver of a message, or the user who
 * read. Messages and reads share one type so that both streams meet in one keyed function.
 *
 * <ul>
 *   <li>{@code kind}: what happened.
 *   <li>{@code userId}: {@code receiverId} of a message, {@code userId} of a read.
 *   <li>{@code senderId}: MESSAGE only; 0 otherwise.
 *   <li>{@code conversationId}: MESSAGE (0 when the message has none) and CONVERSATION_READ.
 *   <li>{@code seq}: MESSAGE: the message's seq in its conversation (0 when none);
 *       CONVERSATION_READ: {@code readSeq}.
 *   <li>{@code time}: epoch milliseconds; {@code sentAt} of a message, {@code readAt} of a read.
 * </ul>
 *
 * <p>Crosses the network with {@link ChatEventSerializer}.
 */
@TypeInfo(ChatEventSerializer.TypeInfoFactoryImpl.class)
public class ChatEvent {

    /** The three kinds of input the contract defines. */
    public enum Kind {
        MESSAGE,
        INBOX_OPENED,
        CONVERSATION_READ
    }

    public Kind kind;
    public long userId;
    public long senderId;
    public long conversationId;
    public long seq;
    public long time;

    public ChatEvent() {}

    private ChatEvent(Kind kind, long userId, long senderId, long conversationId, long seq, long time) {
        this.kind = kind;
        this.userId = userId;
        this.senderId = senderId;
        this.conversationId = conversationId;
        this.seq = seq;
        this.time = time;
    }

    /** A message without a conversation: it counts toward the sender badge only. */
    public static ChatEvent message(long senderId, long receiverId, long sentAt) {
        return new ChatEvent(Kind.MESSAGE, receiverId, senderId, 0, 0, sentAt);
    }

    public static ChatEvent message(
            long senderId, long receiverId, long conversationId, long seq, long sentAt) {
        return new ChatEvent(Kind.MESSAGE, receiverId, senderId, conversationId, seq, sentAt);
    }

    public static ChatEvent inboxOpened(long userId, long readAt) {
        return new ChatEvent(Kind.INBOX_OPENED, userId, 0, 0, 0, readAt);
    }

    public static ChatEvent conversationRead(
            long userId, long conversationId, long readSeq, long readAt) {
        return new ChatEvent(Kind.CONVERSATION_READ, userId, 0, conversationId, readSeq, readAt);
    }

    public boolean hasConversation() {
        return conversationId > 0;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ChatEvent)) {
            return false;
        }
        ChatEvent that = (ChatEvent) o;
        return kind == that.kind
                && userId == that.userId
                && senderId == that.senderId
                && conversationId == that.conversationId
                && seq == that.seq
                && time == that.time;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, userId, senderId, conversationId, seq, time);
    }

    @Override
    public String toString() {
        switch (kind) {
            case MESSAGE:
                return "MESSAGE(" + senderId + "->" + userId
                        + (hasConversation() ? " c" + conversationId + "#" + seq : "")
                        + " @" + time + ")";
            case INBOX_OPENED:
                return "INBOX_OPENED(" + userId + " @" + time + ")";
            default:
                return "CONVERSATION_READ(" + userId + " c" + conversationId + " <=" + seq
                        + " @" + time + ")";
        }
    }
}
