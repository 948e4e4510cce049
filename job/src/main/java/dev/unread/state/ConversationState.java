package dev.unread.state;

import dev.unread.seqs.UnreadSeqs;

/**
 * Per user and conversation: the read cursor and the unread seqs past it.
 *
 * <ul>
 *   <li>{@code lastReadSeq}: newest {@code CONVERSATION_READ.readSeq}; 0 when never read.
 *   <li>{@code unreadCount}: how many seqs greater than {@code lastReadSeq} of messages from others
 *       are unread; {@code unreadSeqs}: those seqs while they are few, else {@link
 *       UnreadSeqs#EMPTY} and the seqs in {@link StateSchema#UNREAD} (see {@code
 *       ConversationSeqs}). States written by earlier builds hold the whole set in {@code
 *       unreadSeqs} (runs, or a portable-format Roaring64NavigableMap) with a count of 0, which
 *       {@code ConversationSeqs#upgrade} puts right on the conversation's first touch.
 *   <li>{@code membership}: the user's newest membership event in the conversation (see {@link
 *       StateSchema#MEMBERS}): its seq, negated for MEMBER_LEFT; 0 when none. While it is negative
 *       the counts are hidden (0). Added after savepoints/v1: POJO schema evolution restores it as
 *       0.
 *   <li>{@code mentionCount}: how many of the unread seqs mention the user; {@code mentionSeqs}:
 *       those seqs while they are few, else in {@link StateSchema#MENTIONS}.
 *   <li>{@code preference}, {@code preferenceSetAt}: the count preference with the largest {@code
 *       setAt} (the quieter one on a tie), as ChatEvent's ALL, MENTIONS or NONE; ALL and 0 when
 *       none.
 *   <li>{@code lastReadAt}: newest {@code CONVERSATION_READ.readAt}; {@code markedAt}: newest
 *       {@code CONVERSATION_MARKED_UNREAD.markedAt}. The conversation is marked unread while {@code
 *       markedAt > lastReadAt}.
 *   <li>{@code deletedCount}: how many deleted seqs greater than {@code lastReadSeq} the user keeps
 *       for the conversation; the seqs themselves are in {@link StateSchema#DELETED}. Added with
 *       deleted messages: POJO schema evolution restores it as 0, no deletion kept.
 *   <li>{@code followedUnreadThreads}, {@code followedMentionThreads}: how many threads of the
 *       conversation the user follows with unread replies, and with unread replies that mention
 *       them; {@code followedThreadMentions}: those mentions summed. The conversation's share of
 *       the totals' {@code threads} and {@code mentions}, kept by {@code Threads}. Added with
 *       threads: POJO schema evolution restores them as 0, no thread kept.
 *   <li>{@code involvedCount}, {@code involvedSeqs}: how many seqs of the conversation's messages
 *       the user sent or was mentioned in, the roots the user follows by default (see {@code
 *       Threads}); the seqs while they are few, else in {@link StateSchema#INVOLVED}.
 *   <li>{@code unreadThreadCount}, {@code unreadThreadSeqs}: the roots of the user's threads of the
 *       conversation with unread replies, so that a deletion or a membership change visits those
 *       threads alone; the seqs while they are few, else in {@link StateSchema#UNREAD_THREADS}. The
 *       set also holds the threads with no unread reply but the kept {@code sentAt} of one
 *       (delivered deleted), which an ALL_READ reads too. {@code threadsIndexed}: {@link
 *       #THREADS_INDEXED} once that set is complete; a record of an earlier build has 0 (no set) or
 *       1 (a set of the threads with unread replies alone), and the first event that needs the set
 *       builds it from the user's threads (see {@code ThreadSets}).
 *   <li>{@code bareThreadCount}, {@code bareThreadSeqs}: the roots of the user's threads of the
 *       conversation kept only for a thread cursor or a follow fact (nothing unread, no deletion
 *       kept, no part taken), at most {@code --max-bare-threads} (1,024 unless set); kept and built
 *       as the set above.
 *   <li>{@code channelMentionCount}, {@code channelMentionSeqs}: the unread seqs that mention the
 *       user only channel-wide (@all, @channel, @here), not by id: they count as mentions unless
 *       {@code ignoreChannelMentions}; the seqs while they are few, else in {@link
 *       StateSchema#CHANNEL_MENTIONS}. Disjoint from the mention seqs.
 *   <li>{@code ignoreChannelMentions}, {@code ignoreChannelMentionsSetAt}: the newest {@code
 *       ignoreChannelMentions} of a CONVERSATION_PREFERENCE (true on a tie): 1 true, -1 false, 0
 *       none (false).
 *   <li>{@code editCount}: how many edits the user keeps for the conversation's messages (see
 *       {@link StateSchema#EDITS}), so that a message looks for one only when there are some.
 *   <li>{@code sentAtKept}: 1 once the {@code sentAt} of every unread message of the conversation
 *       is kept (see {@code SentAts}); a record of a build before ALL_READ has 0 until its first
 *       touch. {@code sentAts}: those {@code sentAt}s while few, else a marker and the {@code
 *       sentAt}s in {@link StateSchema#SENT_AT} (see {@code SentAts}).
 *   <li>{@code bareTouchHead}, {@code bareTouchTail}: the queue of the bare threads in the order
 *       they were last touched ({@link StateSchema#BARE_THREAD_TOUCHES}): the number the newest
 *       touch took, and the smallest one still to look at; both 0 in a record whose bare threads
 *       were never queued (of a build before the queue, or with none).
 * </ul>
 *
 * <p>The five before it were added after savepoints/v1 and the groups' build: POJO schema evolution
 * restores them as 0, which is what a state without mentions, preferences or marks holds.
 */
public class ConversationState {
    public long lastReadSeq;
    public byte[] unreadSeqs = UnreadSeqs.EMPTY;
    public long unreadCount;

    /**
     * The counter incarnation that last wrote this count out, or its complement while the
     * channel-wide mention count waits to be (see the counter's Refresh.stamp).
     */
    public long refreshedIn;

    public long membership;

    public long mentionCount;
    public long preference;
    public long preferenceSetAt;
    public long lastReadAt;
    public long markedAt;

    public long deletedCount;

    public long followedUnreadThreads;
    public long followedMentionThreads;
    public long followedThreadMentions;

    public byte[] mentionSeqs = UnreadSeqs.EMPTY;
    public long involvedCount;
    public byte[] involvedSeqs = UnreadSeqs.EMPTY;

    public long threadsIndexed;
    public long unreadThreadCount;
    public byte[] unreadThreadSeqs = UnreadSeqs.EMPTY;
    public long bareThreadCount;
    public byte[] bareThreadSeqs = UnreadSeqs.EMPTY;

    public long channelMentionCount;
    public byte[] channelMentionSeqs = UnreadSeqs.EMPTY;
    public long ignoreChannelMentions;
    public long ignoreChannelMentionsSetAt;
    public long editCount;
    public long sentAtKept;
    public byte[] sentAts = UnreadSeqs.EMPTY;
    public long bareTouchHead;
    public long bareTouchTail;

    public ConversationState() {}

    /** ignoreChannelMentions(U,C): channel-wide mentions do not count as mentions. */
    public boolean ignoresChannelMentions() {
        return ignoreChannelMentions > 0;
    }

    /**
     * mentions(U,C) as kept, before the membership rule: by id, and channel-wide unless ignored.
     */
    public long mentions() {
        return mentionCount + (ignoresChannelMentions() ? 0 : channelMentionCount);
    }

    /**
     * {@code threadsIndexed} of a record whose thread sets are complete as this build keeps them.
     */
    public static final long THREADS_INDEXED = 2;

    /** A record new to state: no thread of its conversation is kept, so the index is complete. */
    public static ConversationState fresh() {
        ConversationState s = new ConversationState();
        s.threadsIndexed = THREADS_INDEXED;
        s.sentAtKept = 1;
        return s;
    }
}
