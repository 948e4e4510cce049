package dev.unread.events;

import java.util.Objects;

/**
 * A read receipt and the channel it is published on: {@code READ_PROGRESS_CHANGED} when {@link
 * #recipientId} is {@link #EVERYONE}, else the channel {@code READ_RECEIPTS:{recipientId}} of one
 * participant the receipt concerns.
 *
 * <ul>
 *   <li>{@code conversationId}, {@code readerId}, {@code readSeq}: whose cursor moved, in which
 *       conversation, to where.
 *   <li>{@code recipientId}: {@link #EVERYONE} or a participant's user id (user ids are 1 and up).
 * </ul>
 */
public class ReadReceipt {

    /** The {@link #recipientId} of the receipt published on {@code READ_PROGRESS_CHANGED}. */
    public static final long EVERYONE = 0;

    public long conversationId;
    public long readerId;
    public long readSeq;
    public long recipientId;

    public ReadReceipt() {}

    public ReadReceipt(long conversationId, long readerId, long readSeq, long recipientId) {
        this.conversationId = conversationId;
        this.readerId = readerId;
        this.readSeq = readSeq;
        this.recipientId = recipientId;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ReadReceipt)) {
            return false;
        }
        ReadReceipt that = (ReadReceipt) o;
        return conversationId == that.conversationId
                && readerId == that.readerId
                && readSeq == that.readSeq
                && recipientId == that.recipientId;
    }

    @Override
    public int hashCode() {
        return Objects.hash(conversationId, readerId, readSeq, recipientId);
    }

    @Override
    public String toString() {
        return "Receipt(c"
                + conversationId
                + " u"
                + readerId
                + " <="
                + readSeq
                + (recipientId == EVERYONE ? " to everyone" : " to u" + recipientId)
                + ")";
    }
}
