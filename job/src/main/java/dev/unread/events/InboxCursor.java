package dev.unread.events;

import java.util.Objects;

/**
 * The inbox watermark moved forward: {@code lastReadAt} (epoch milliseconds) is the newest {@code
 * INBOX_OPENED.readAt} of {@code userId}. Bound for MySQL {@code user_activity}.
 */
public class InboxCursor {
    public long userId;
    public long lastReadAt;

    public InboxCursor() {}

    public InboxCursor(long userId, long lastReadAt) {
        this.userId = userId;
        this.lastReadAt = lastReadAt;
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
        return userId == that.userId && lastReadAt == that.lastReadAt;
    }

    @Override
    public int hashCode() {
        return Objects.hash(userId, lastReadAt);
    }

    @Override
    public String toString() {
        return "InboxCursor(" + userId + " @" + lastReadAt + ")";
    }
}
