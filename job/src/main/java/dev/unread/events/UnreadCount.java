package dev.unread.events;

import java.util.Objects;

/**
 * A user's new count, bound for Redis: emitted only when the count changed.
 *
 * <ul>
 *   <li>{@code userId}: whose count.
 *   <li>{@code conversationId}: the conversation, or {@link #SENDER_BADGE} (0, never a valid
 *       conversation id) for the distinct-sender badge.
 *   <li>{@code count}: the absolute count; 0 means the Redis key or field is deleted.
 * </ul>
 */
public class UnreadCount {
    public static final long SENDER_BADGE = 0;

    public long userId;
    public long conversationId;
    public long count;

    public UnreadCount() {}

    private UnreadCount(long userId, long conversationId, long count) {
        this.userId = userId;
        this.conversationId = conversationId;
        this.count = count;
    }

    public static UnreadCount senders(long userId, long count) {
        return new UnreadCount(userId, SENDER_BADGE, count);
    }

    public static UnreadCount conversation(long userId, long conversationId, long count) {
        return new UnreadCount(userId, conversationId, count);
    }

    public boolean isSenderBadge() {
        return conversationId == SENDER_BADGE;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof UnreadCount)) {
            return false;
        }
        UnreadCount that = (UnreadCount) o;
        return userId == that.userId
                && conversationId == that.conversationId
                && count == that.count;
    }

    @Override
    public int hashCode() {
        return Objects.hash(userId, conversationId, count);
    }

    @Override
    public String toString() {
        return (isSenderBadge()
                        ? "senders(" + userId
                        : "conversation(" + userId + " c" + conversationId)
                + ")="
                + count;
    }
}
