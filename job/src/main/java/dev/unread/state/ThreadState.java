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
 *   <li>{@code channelMentionCount}: how many of the unread replies mention the user only
 *       channel-wide (@all, @channel, @here); they count as thread mentions unless the user ignores
 *       channel mentions in the conversation.
 *   <li>{@code involved}: a follow by default, older than any fact: a reply named the user as its
 *       root's sender ({@code rootSenderId}), the root as sent mentioned the user, or (with {@code
 *       --track-root-senders}) the user sent the root. In a record of version 3, whatever made the
 *       user a follower but an explicit follow: the upgrade keeps it as a default.
 *   <li>{@code tookPartAt}: the largest {@code sentAt} of a reply the user sent or is mentioned in,
 *       an implicit follow at that time; 0 when none (a {@code sentAt} is at least 1).
 *   <li>{@code sentAtKept}: the {@code sentAt} of every unread reply is kept (see {@code SentAts});
 *       false in a record of a build before ALL_READ until its first touch. {@code sentAts}: those
 *       {@code sentAt}s while few, else a marker and the {@code sentAt}s in {@link
 *       StateSchema#SENT_AT}.
 *   <li>{@code bareTouch}: while the thread is bare (kept only for a cursor or a follow), the
 *       number of its entry in its conversation's queue of bare threads by last touch (see {@link
 *       StateSchema#BARE_THREAD_TOUCHES}); 0 otherwise, and in a record of a build before it.
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

    /**
     * The counter incarnation that last wrote the thread's counts out, or its complement while the
     * channel-wide mention count waits to be (see the counter's Refresh.stamp).
     */
    public long refreshedIn;

    public long tookPartAt;
    public long channelMentionCount;
    public boolean sentAtKept;
    public byte[] sentAts = UnreadSeqs.EMPTY;
    public long bareTouch;

    public ThreadState() {}

    /**
     * follows(U,C,T): the newest fact, the explicit one on a tie with an implicit one; with no
     * fact, the default.
     */
    public boolean follows() {
        if (following != 0 && followSetAt >= tookPartAt) {
            return following > 0;
        }
        return tookPartAt > 0 || involved;
    }

    /**
     * threadUnread as followed: 0 for a thread the user does not follow. Public for the savepoint
     * tools (dev.unread.ops), which write what the job shows.
     */
    public long followedUnread() {
        return follows() ? unreadCount : 0;
    }

    /**
     * threadMentions as followed, with the channel-wide mentions unless {@code ignoreChannel}
     * (ignoreChannelMentions of the thread's conversation).
     */
    public long followedMentions(boolean ignoreChannel) {
        return follows() ? mentionCount + (ignoreChannel ? 0 : channelMentionCount) : 0;
    }

    /** Of {@link #followedMentions}, those only channel-wide. */
    public long followedChannelMentions(boolean ignoreChannel) {
        return follows() && !ignoreChannel ? channelMentionCount : 0;
    }

    /** Nothing that a later event needs: the entry can go. */
    public boolean isEmpty() {
        return unreadCount == 0
                && deletedCount == 0
                && cursor == 0
                && following == 0
                && !involved
                && tookPartAt == 0
                && !keepsSentAts();
    }

    /** Whether the {@code sentAt} of some reply past the cursor is kept. */
    public boolean keepsSentAts() {
        return sentAts != null
                && sentAts.length > 0
                && !java.util.Arrays.equals(sentAts, UnreadSeqs.EMPTY);
    }
}
