package dev.unread.events;

import java.util.Objects;

/**
 * The inbox watermark moved forward: {@code lastReadAt} (epoch milliseconds) is the newest {@code
 * INBOX_OPENED.readAt} of {@code userId}. Bound for MySQL {@code user_activity}. Or, with {@code
 * erased}, the user was erased: its row goes, after every cursor written before (see {@code
 * JdbcCursorSink}).
 */
public class InboxCursor {
    public long userId;
    public long lastReadAt;
    public boolean erased;

    public InboxCursor() {}

    public InboxCursor(long userId, long lastReadAt) {
        this.userId = userId;
        this.lastReadAt = lastReadAt;
    }

    /** The user was erased: its {@code user_activity} row goes. */
    public static InboxCursor erasure(long userId) {
        InboxCursor c = new InboxCursor(userId, 0);
        c.erased = true;
        return c;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof InboxCursor)) {
            return false;
        }
        InboxCursor that = (InboxCursor) o;
        return userId == that.userId && lastReadAt == that.lastReadAt && erased == that.erased;
    }

    @Override
    public int hashCode() {
        return Objects.hash(userId, lastReadAt, erased);
    }

    @Override
    public String toString() {
        return erased
                ? "InboxCursor(" + userId + " erased)"
                : "InboxCursor(" + userId + " @" + lastReadAt + ")";
    }
}
