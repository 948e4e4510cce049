package dev.unread.events;

import java.util.Arrays;
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
 *   <li>{@code erased}: instead of a cursor, the user was erased: with a {@code conversationId},
 *       its row of {@code conversation_member} there goes, after every cursor written before (see
 *       {@code JdbcCursorSink}), and its cursor and score in that conversation's readers; {@code
 *       conversationId} 0 stands for every row of the user, and for nothing else.
 *   <li>{@code channels}: on the erasure of every row, the user's channels, ascending, whose rows
 *       stay: the channel stage deletes and writes them itself, through another sink subtask, so
 *       this erasure, which may wait in its own subtask, would delete a row the stage wrote after
 *       the erasure. Null on every other record, and for a user in no channel.
 *   <li>{@code allRead}: an ALL_READ raised the cursor when it arrived, or it is a channel's; its
 *       receipt goes to {@code READ_PROGRESS_CHANGED} alone (see {@code ConversationReaders}).
 * </ul>
 */
public class ConversationCursor {
    public long userId;
    public long conversationId;
    public long lastReadSeq;
    public long unreadCount;
    public boolean erased;
    public boolean allRead;
    public long[] channels;

    public ConversationCursor() {}

    public ConversationCursor(
            long userId, long conversationId, long lastReadSeq, long unreadCount) {
        this.userId = userId;
        this.conversationId = conversationId;
        this.lastReadSeq = lastReadSeq;
        this.unreadCount = unreadCount;
    }

    /** The user was erased; see {@link #erased}. */
    public static ConversationCursor erasure(long userId, long conversationId) {
        ConversationCursor c = new ConversationCursor(userId, conversationId, 0, 0);
        c.erased = true;
        return c;
    }

    /**
     * The user was erased: every row of the user goes but those of {@code channels}, ascending; see
     * {@link #channels}.
     */
    public static ConversationCursor erasureBut(long userId, long[] channels) {
        ConversationCursor c = erasure(userId, 0);
        c.channels = channels.length == 0 ? null : channels;
        return c;
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
                && unreadCount == that.unreadCount
                && erased == that.erased
                && allRead == that.allRead
                && Arrays.equals(channels, that.channels);
    }

    @Override
    public int hashCode() {
        return 31 * Objects.hash(userId, conversationId, lastReadSeq, unreadCount, erased, allRead)
                + Arrays.hashCode(channels);
    }

    @Override
    public String toString() {
        if (erased) {
            return "ConversationCursor("
                    + userId
                    + " c"
                    + conversationId
                    + " erased"
                    + (channels == null ? "" : ", " + channels.length + " channels kept")
                    + ")";
        }
        return "ConversationCursor("
                + userId
                + " c"
                + conversationId
                + " <="
                + lastReadSeq
                + ", unread "
                + unreadCount
                + (allRead ? ", by ALL_READ" : "")
                + ")";
    }
}
