package dev.unread.state;

/**
 * Per user and conversation: the read cursor and the unread seqs past it.
 *
 * <ul>
 *   <li>{@code lastReadSeq}: newest {@code CONVERSATION_READ.readSeq}; 0 when never read.
 *   <li>{@code unreadSeqs}: the seqs greater than {@code lastReadSeq} of messages from others, as
 *       encoded by {@link UnreadSeqs} (runs of consecutive seqs; states written by earlier builds
 *       hold a portable-format Roaring64NavigableMap, still read); empty when none.
 *   <li>{@code membership}: the user's newest membership event in the conversation (see {@link
 *       GroupFanOut#MEMBERS}): its seq, negated for MEMBER_LEFT; 0 when none. While it is negative
 *       the counts are hidden (0). Added after savepoints/v1: POJO schema evolution restores it
 *       as 0.
 * </ul>
 */
public class ConversationState {
    public long lastReadSeq;
    public byte[] unreadSeqs = UnreadSeqs.EMPTY;
    /** The counter incarnation that last wrote this count out; see UnreadCounter. */
    public long refreshedIn;
    public long membership;

    public ConversationState() {}
}
