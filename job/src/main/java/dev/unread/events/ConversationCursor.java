package dev.unread.events;

import java.util.Objects;

/**
 * A conversation read cursor moved forward. Bound for MySQL {@code conversation_member} and, as a
 * read receipt, for the Redis channel {@code READ_PROGRESS_CHANGED}.
 *
 * <ul>
 *   <li>{@code userId}, {@code conversationId}: whose cursor, in which conversation.
 *   <li>{@code lastReadSeq}: the new cursor, larger than any before it.
 *   <li>{@code unreadCount}: unread messages in the conversation right after this read, as the job
 *       knew them at that moment.
 * </ul>
 */
public class ConversationCursor {
    public long userId;
    public long conversationId;
    public long lastReadSeq;
    public long unreadCount;

    public ConversationCursor() {}

    public ConversationCursor(
            long userId, long conversationId, long lastReadSeq, long unreadCount) {
        this.userId = userId;
        this.conversationId = conversationId;
        this.lastReadSeq = lastReadSeq;
        this.unreadCount = unreadCount;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ConversationCursor)) {
            return false;
        }
        ConversationCursor that = (ConversationCursor) o;
        return userId == that.userId
                && conversationId == that.conversationId
                && lastReadSeq == that.lastReadSeq
                && unreadCount == that.unreadCount;
    }

    @Override
    public int hashCode() {
        return Objects.hash(userId, conversationId, lastReadSeq, unreadCount);
    }

    @Override
    public String toString() {
        return "ConversationCursor("
                + userId
                + " c"
                + conversationId
                + " <="
                + lastReadSeq
                + ", unread "
                + unreadCount
                + ")";
    }
}
