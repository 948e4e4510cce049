package dev.unread.state;

import dev.unread.seqs.UnreadSeqs;

/**
 * Per user, conversation and thread (see {@code Threads}). Java-bean POJO so that Flink's POJO
 * serializer (and its schema evolution) applies.
 *
 * <ul>
 *   <li>{@code sets}: the id of the thread's seq sets in {@link StateSchema#THREAD_SEQS}, unique
 *       among the user's threads.
 *   <li>{@code cursor}: threadCursor, the newest {@code THREAD_READ.readSeq}; 0 when never read.
 *   <li>{@code unreadCount}, {@code mentionCount}: how many replies past the cursor are unread, and
 *       how many of those mention the user; {@code deletedCount}: how many deleted replies past the
 *       cursor are kept so that they never count again.
 *   <li>{@code following}, {@code followSetAt}: the {@code THREAD_FOLLOWED} with the largest {@code
 *       setAt} (false on a tie): 1 following, -1 not, 0 when none.
 *   <li>{@code involved}: the user sent the root or a reply, or is mentioned in one: whom a thread
 *       is followed by when no {@code THREAD_FOLLOWED} says otherwise.
 *   <li>{@code sentAtKept}: the {@code sentAt} of every unread reply is kept (see {@code SentAts});
 *       false in a record of a build before ALL_READ until its first touch. {@code sentAts}: those
 *       {@code sentAt}s while few, else a marker and the {@code sentAt}s in {@link
 *       StateSchema#SENT_AT}.
 * </ul>
 */
public class ThreadState {
    public long sets;
    public long cursor;
    public long unreadCount;
    public long mentionCount;
    public long deletedCount;
    public long following;
    public long followSetAt;
    public boolean involved;

    /** The counter incarnation that last wrote the thread's counts out; see UnreadCounter. */
    public long refreshedIn;

    public boolean sentAtKept;
    public byte[] sentAts = UnreadSeqs.EMPTY;

    public ThreadState() {}

    /** follows(U,C,T). */
    public boolean follows() {
        return following != 0 ? following > 0 : involved;
    }

    /**
     * threadUnread as followed: 0 for a thread the user does not follow. Public for the savepoint
     * tools (dev.unread.ops), which write what the job shows.
     */
    public long followedUnread() {
        return follows() ? unreadCount : 0;
    }

    /** threadMentions as followed. */
    public long followedMentions() {
        return follows() ? mentionCount : 0;
    }

    /** Nothing that a later event needs: the entry can go. */
    public boolean isEmpty() {
        return unreadCount == 0
                && deletedCount == 0
                && cursor == 0
                && following == 0
                && !involved
                && !keepsSentAts();
    }

    /** Whether the {@code sentAt} of some reply past the cursor is kept. */
    public boolean keepsSentAts() {
        return sentAts != null
                && sentAts.length > 0
                && !java.util.Arrays.equals(sentAts, UnreadSeqs.EMPTY);
    }
}
