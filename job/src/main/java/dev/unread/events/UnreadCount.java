package dev.unread.events;

import java.util.Objects;

/**
 * A user's new count, bound for Redis: emitted only when the count changed.
 *
 * <ul>
 *   <li>{@code userId}: whose count.
 *   <li>{@code kind}: which count: {@link #UNREAD} (the badge, or a conversation's unread count),
 *       {@link #MENTIONS}, {@link #MARKED} (1 marked unread, 0 not), or one of the app-icon totals
 *       {@link #TOTAL_MESSAGES}, {@link #TOTAL_MENTIONS}, {@link #TOTAL_CONVERSATIONS}.
 *   <li>{@code conversationId}: the conversation, or {@link #SENDER_BADGE} (0, never a valid
 *       conversation id) for the distinct-sender badge and the totals.
 *   <li>{@code count}: the absolute count; 0 means the Redis key, field or member is deleted.
 * </ul>
 */
public class UnreadCount {
    public static final long SENDER_BADGE = 0;

    public static final byte UNREAD = 0;
    public static final byte MENTIONS = 1;
    public static final byte MARKED = 2;
    public static final byte TOTAL_MESSAGES = 3;
    public static final byte TOTAL_MENTIONS = 4;
    public static final byte TOTAL_CONVERSATIONS = 5;

    public long userId;
    public long conversationId;
    public long count;
    public byte kind;

    public UnreadCount() {}

    private UnreadCount(long userId, byte kind, long conversationId, long count) {
        this.userId = userId;
        this.kind = kind;
        this.conversationId = conversationId;
        this.count = count;
    }

    public static UnreadCount senders(long userId, long count) {
        return new UnreadCount(userId, UNREAD, SENDER_BADGE, count);
    }

    public static UnreadCount conversation(long userId, long conversationId, long count) {
        return new UnreadCount(userId, UNREAD, conversationId, count);
    }

    public static UnreadCount mentions(long userId, long conversationId, long count) {
        return new UnreadCount(userId, MENTIONS, conversationId, count);
    }

    public static UnreadCount marked(long userId, long conversationId, boolean marked) {
        return new UnreadCount(userId, MARKED, conversationId, marked ? 1 : 0);
    }

    /**
     * {@code kind} is {@link #TOTAL_MESSAGES}, {@link #TOTAL_MENTIONS} or {@link
     * #TOTAL_CONVERSATIONS}.
     */
    public static UnreadCount total(long userId, byte kind, long count) {
        return new UnreadCount(userId, kind, SENDER_BADGE, count);
    }

    public boolean isSenderBadge() {
        return kind == UNREAD && conversationId == SENDER_BADGE;
    }

    public boolean isTotal() {
        return kind >= TOTAL_MESSAGES;
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
                && kind == that.kind
                && conversationId == that.conversationId
                && count == that.count;
    }

    @Override
    public int hashCode() {
        return Objects.hash(userId, kind, conversationId, count);
    }

    @Override
    public String toString() {
        switch (kind) {
            case UNREAD:
                return (isSenderBadge()
                                ? "senders(" + userId
                                : "conversation(" + userId + " c" + conversationId)
                        + ")="
                        + count;
            case MENTIONS:
                return "mentions(" + userId + " c" + conversationId + ")=" + count;
            case MARKED:
                return "marked(" + userId + " c" + conversationId + ")=" + count;
            case TOTAL_MESSAGES:
                return "totalMessages(" + userId + ")=" + count;
            case TOTAL_MENTIONS:
                return "totalMentions(" + userId + ")=" + count;
            default:
                return "totalConversations(" + userId + ")=" + count;
        }
    }
}
