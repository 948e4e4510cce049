package dev.unread.events;

import java.util.Objects;

/**
 * A user's new count, bound for Redis: emitted only when the count changed.
 *
 * <ul>
 *   <li>{@code userId}: whose count.
 *   <li>{@code kind}: which count: {@link #UNREAD} (the badge, or a conversation's unread count),
 *       {@link #MENTIONS}, {@link #MARKED} (1 marked unread, 0 not), or one of the app-icon totals
 *       {@link #TOTAL_MESSAGES}, {@link #TOTAL_MENTIONS}, {@link #TOTAL_CONVERSATIONS}, {@link
 *       #TOTAL_THREADS}; or a followed thread's {@link #THREAD_UNREAD} or {@link #THREAD_MENTIONS}.
 *   <li>{@code conversationId}: the conversation, or {@link #SENDER_BADGE} (0, never a valid
 *       conversation id) for the distinct-sender badge and the totals.
 *   <li>{@code threadSeq}: the thread's root seq for the thread counts; 0 otherwise.
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
    public static final byte TOTAL_THREADS = 6;
    public static final byte THREAD_UNREAD = 7;
    public static final byte THREAD_MENTIONS = 8;

    public long userId;
    public long conversationId;
    public long count;
    public byte kind;
    public long threadSeq;

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
     * {@code kind} is {@link #TOTAL_MESSAGES}, {@link #TOTAL_MENTIONS}, {@link
     * #TOTAL_CONVERSATIONS} or {@link #TOTAL_THREADS}.
     */
    public static UnreadCount total(long userId, byte kind, long count) {
        return new UnreadCount(userId, kind, SENDER_BADGE, count);
    }

    /** {@code kind} is {@link #THREAD_UNREAD} or {@link #THREAD_MENTIONS}. */
    public static UnreadCount thread(
            long userId, byte kind, long conversationId, long threadSeq, long count) {
        UnreadCount c = new UnreadCount(userId, kind, conversationId, count);
        c.threadSeq = threadSeq;
        return c;
    }

    public boolean isSenderBadge() {
        return kind == UNREAD && conversationId == SENDER_BADGE;
    }

    public boolean isTotal() {
        return kind >= TOTAL_MESSAGES && kind <= TOTAL_THREADS;
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
                && threadSeq == that.threadSeq
                && count == that.count;
    }

    @Override
    public int hashCode() {
        return Objects.hash(userId, kind, conversationId, threadSeq, count);
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
            case TOTAL_THREADS:
                return "totalThreads(" + userId + ")=" + count;
            case THREAD_UNREAD:
                return "thread(" + userId + " c" + conversationId + " t" + threadSeq + ")=" + count;
            case THREAD_MENTIONS:
                return "threadMentions("
                        + userId
                        + " c"
                        + conversationId
                        + " t"
                        + threadSeq
                        + ")="
                        + count;
            default:
                return "totalConversations(" + userId + ")=" + count;
        }
    }
}
