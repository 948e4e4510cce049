package dev.unread.ops;

/**
 * What UnreadCounter holds for one user, as read from a savepoint.
 *
 * <ul>
 *   <li>{@code userId}: the key.
 *   <li>{@code lastReadAt}: the inbox watermark, epoch ms; 0 when the inbox was never opened.
 *   <li>{@code senders}: senders held in the sender set, which is the badge.
 *   <li>{@code storedBadge}: the badge as stored beside the set; equal to {@code senders} unless
 *       the state is corrupt.
 *   <li>{@code conversations}: conversations held (a cursor, unread seqs, or both).
 *   <li>{@code conversationCursors}: conversations with a read cursor past 0.
 *   <li>{@code unreadSeqs}: unread seqs over all conversations, the sum of their counts.
 *   <li>{@code mentions}: unread seqs that mention the user, over all conversations.
 *   <li>{@code marked}: conversations marked unread.
 *   <li>{@code quieted}: conversations with a count preference other than ALL.
 * </ul>
 */
public record UserState(
        long userId,
        long lastReadAt,
        long senders,
        long storedBadge,
        long conversations,
        long conversationCursors,
        long unreadSeqs,
        long mentions,
        long marked,
        long quieted) {

    /** What the largest users are ranked by: the state entries the user costs. */
    public long size() {
        return senders + conversations;
    }
}
