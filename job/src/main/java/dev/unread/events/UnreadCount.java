package dev.unread.events;

import dev.unread.contract.Count;
import java.util.Objects;

/**
 * A user's new count, bound for Redis: emitted when the count changed, and when a counter
 * incarnation writes a record's counts for the first time (see dev.unread.counter.UnreadCounter).
 *
 * <ul>
 *   <li>{@code userId}: whose count.
 *   <li>{@code kind}: which count, from the contract's catalog ({@link Count}).
 *   <li>{@code conversationId}: the conversation of a per-conversation or per-thread count, else
 *       {@link #SENDER_BADGE} (0, never a valid conversation id).
 *   <li>{@code threadSeq}: the thread's root seq for the thread counts; 0 otherwise.
 *   <li>{@code count}: the absolute count; 0 means the Redis key, field or member is deleted.
 *   <li>{@code before}: the count the counter showed before this one, the value its previous count
 *       of the same key or field said ({@link #from}); {@link #UNKNOWN} when not known. The sink
 *       skips a count equal to what Redis holds where it knows Redis holds what the counter showed
 *       (dev.unread.sinks.WrittenAfter). Not part of {@link #equals}: two counts that write the
 *       same value are the same count.
 *   <li>{@code erased}: not a count but the user's erasure ({@link #erasure}): every Redis key of
 *       the user goes, in order with the counts around it. Its other fields are the badge's at 0,
 *       so a reader that knew no erasure would still only drop a key of the user.
 * </ul>
 */
public class UnreadCount {
    public static final long SENDER_BADGE = 0;

    /** {@link #before} when nothing says what the count was: a count is never negative. */
    public static final long UNKNOWN = -1;

    public long userId;
    public long conversationId;
    public long count;
    public Count kind;
    public long threadSeq;
    public boolean erased;
    public long before = UNKNOWN;

    public UnreadCount() {}

    private UnreadCount(long userId, Count kind, long conversationId, long count) {
        this.userId = userId;
        this.kind = kind;
        this.conversationId = conversationId;
        this.count = count;
    }

    public static UnreadCount senders(long userId, long count) {
        return new UnreadCount(userId, Count.SENDERS, SENDER_BADGE, count);
    }

    public static UnreadCount conversation(long userId, long conversationId, long count) {
        return new UnreadCount(userId, Count.CONVERSATION, conversationId, count);
    }

    /** {@code kind} is a per-conversation count ({@link Count.Field#CONVERSATION}). */
    public static UnreadCount conversation(
            long userId, Count kind, long conversationId, long count) {
        return new UnreadCount(userId, kind, conversationId, count);
    }

    public static UnreadCount mentions(long userId, long conversationId, long count) {
        return new UnreadCount(userId, Count.MENTIONS, conversationId, count);
    }

    public static UnreadCount marked(long userId, long conversationId, boolean marked) {
        return new UnreadCount(userId, Count.MARKED, conversationId, marked ? 1 : 0);
    }

    /** {@code kind} is one of the {@code TOTAL_} counts. */
    public static UnreadCount total(long userId, Count kind, long count) {
        return new UnreadCount(userId, kind, SENDER_BADGE, count);
    }

    /** {@code kind} is a per-thread count ({@link Count#perThread}). */
    public static UnreadCount thread(
            long userId, Count kind, long conversationId, long threadSeq, long count) {
        UnreadCount c = new UnreadCount(userId, kind, conversationId, count);
        c.threadSeq = threadSeq;
        return c;
    }

    /**
     * The user was erased at {@code erasedAt}: every Redis key of the user goes but the action
     * stamp, which is set to {@code erasedAt}, held in {@link #count} (see
     * dev.unread.counter.Erasure).
     */
    public static UnreadCount erasure(long userId, long erasedAt) {
        UnreadCount c = senders(userId, erasedAt);
        c.erased = true;
        return c;
    }

    /** This count, which the counter showed as {@code before} until now. */
    public UnreadCount from(long before) {
        this.before = before;
        return this;
    }

    public boolean isSenderBadge() {
        return kind == Count.SENDERS;
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
                && count == that.count
                && erased == that.erased;
    }

    @Override
    public int hashCode() {
        return Objects.hash(userId, kind, conversationId, threadSeq, count, erased);
    }

    @Override
    public String toString() {
        if (erased) {
            return "ERASED(" + userId + " @" + count + ")";
        }
        String field = kind.field(conversationId, threadSeq);
        return kind + "(" + userId + (field == null ? "" : " " + field) + ")=" + count;
    }
}
