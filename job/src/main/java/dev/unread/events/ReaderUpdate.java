package dev.unread.events;

import java.util.Objects;

/**
 * What the conversation-keyed readers stage learns and what it writes to {@code
 * chat:readers:{conversationId}}, keyed by {@link #conversationId}:
 *
 * <ul>
 *   <li>in: {@code participant} true, {@code lastReadSeq} 0: {@code userId} is a participant of the
 *       conversation (a membership event, or a {@code chat-messages} record sent or received in
 *       it); with {@code lastReadSeq} > 0, also its cursor, restored from an older version's state
 *       (UnreadCounter.KNOWN_READERS): counted as a cursor but not a receipt;
 *   <li>in: {@code participant} false: {@code userId}'s read cursor advanced to {@code lastReadSeq}
 *       (> 0);
 *   <li>out: {@code participant} true, {@code lastReadSeq} > 0: a participant's score, which only
 *       rises.
 * </ul>
 */
public class ReaderUpdate {
    public long conversationId;
    public long userId;
    public long lastReadSeq;
    public boolean participant;

    public ReaderUpdate() {}

    public ReaderUpdate(long conversationId, long userId, long lastReadSeq, boolean participant) {
        this.conversationId = conversationId;
        this.userId = userId;
        this.lastReadSeq = lastReadSeq;
        this.participant = participant;
    }

    public static ReaderUpdate participant(long conversationId, long userId) {
        return new ReaderUpdate(conversationId, userId, 0, true);
    }

    public static ReaderUpdate cursor(ConversationCursor cursor) {
        return new ReaderUpdate(cursor.conversationId, cursor.userId, cursor.lastReadSeq, false);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ReaderUpdate)) {
            return false;
        }
        ReaderUpdate that = (ReaderUpdate) o;
        return conversationId == that.conversationId
                && userId == that.userId
                && lastReadSeq == that.lastReadSeq
                && participant == that.participant;
    }

    @Override
    public int hashCode() {
        return Objects.hash(conversationId, userId, lastReadSeq, participant);
    }

    @Override
    public String toString() {
        return (participant ? "Participant(" : "Cursor(")
                + "c"
                + conversationId
                + " u"
                + userId
                + (lastReadSeq > 0 ? " <=" + lastReadSeq : "")
                + ")";
    }
}
