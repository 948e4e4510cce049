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
 *       (> 0); {@code allRead}: an ALL_READ raised it (its receipt goes to {@code
 *       READ_PROGRESS_CHANGED} alone);
 *   <li>in: {@code membership} not 0: {@code userId} joined ({@code membership} = seq) or left
 *       ({@code membership} = -seq) the conversation, a {@code chat-conversations} membership
 *       event;
 *   <li>out: {@code participant} true, {@code lastReadSeq} > 0: a participant's score, which only
 *       rises;
 *   <li>in: {@code erased}: {@code userId} was erased: its cursor is forgotten (a participant stays
 *       one, with no cursor), and its score goes;
 *   <li>in: {@code covered}: an event of {@code userId} in the conversation that could move its
 *       cursor came after the user's erasure, which covers it: the score goes unless the stage
 *       holds one (see {@code ConversationReaders});
 *   <li>out: {@code participant} false: {@code userId} is no longer a participant (it left) or has
 *       no cursor any more (it was erased): its score goes.
 * </ul>
 */
public class ReaderUpdate {
    public long conversationId;
    public long userId;
    public long lastReadSeq;
    public boolean participant;

    /** A membership event's seq, negated for MEMBER_LEFT; 0 for every other update. */
    public long membership;

    /** The user was erased; see the class comment. */
    public boolean erased;

    /** A cursor an ALL_READ raised; see the class comment. */
    public boolean allRead;

    /** An event the user's erasure covers; see the class comment. */
    public boolean covered;

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

    /** {@code userId} joined C at {@code seq} ({@code joined}) or left it there. */
    public static ReaderUpdate membership(
            long conversationId, long userId, boolean joined, long seq) {
        ReaderUpdate update = new ReaderUpdate(conversationId, userId, 0, joined);
        update.membership = joined ? seq : -seq;
        return update;
    }

    /** Out: {@code userId} left C, so its score leaves {@code chat:readers:{C}}. */
    public static ReaderUpdate removed(long conversationId, long userId) {
        return new ReaderUpdate(conversationId, userId, 0, false);
    }

    /** In: an event of {@code userId} in C that its erasure covers; see {@link #covered}. */
    public static ReaderUpdate covered(long conversationId, long userId) {
        ReaderUpdate update = new ReaderUpdate(conversationId, userId, 0, false);
        update.covered = true;
        return update;
    }

    public static ReaderUpdate cursor(ConversationCursor cursor) {
        ReaderUpdate update =
                new ReaderUpdate(cursor.conversationId, cursor.userId, cursor.lastReadSeq, false);
        update.erased = cursor.erased;
        update.allRead = cursor.allRead;
        return update;
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
                && participant == that.participant
                && membership == that.membership
                && erased == that.erased
                && allRead == that.allRead
                && covered == that.covered;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                conversationId,
                userId,
                lastReadSeq,
                participant,
                membership,
                erased,
                allRead,
                covered);
    }

    @Override
    public String toString() {
        if (erased) {
            return "Erased(c" + conversationId + " u" + userId + ")";
        }
        if (covered) {
            return "Covered(c" + conversationId + " u" + userId + ")";
        }
        return (participant ? "Participant(" : "Cursor(")
                + "c"
                + conversationId
                + " u"
                + userId
                + (lastReadSeq > 0 ? " <=" + lastReadSeq : "")
                + ")";
    }
}
