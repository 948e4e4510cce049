package dev.unread.state;

/**
 * Per user: the inbox watermark and the size of the sender set, kept together so that a message
 * costs one read of it. Java-bean POJO so that Flink's POJO serializer (and its schema evolution)
 * applies.
 *
 * <ul>
 *   <li>{@code lastReadAt}: newest {@code INBOX_OPENED.readAt}, epoch ms; 0 when never opened.
 *   <li>{@code unreadSenders}: how many senders are held in the sender map, i.e. the badge.
 *   <li>{@code lastActiveDay}: processing-time day (epoch days) of the user's latest event, kept
 *       only when idle state expires; 0 otherwise. Added after savepoints/v1: POJO schema evolution
 *       restores it as 0.
 *   <li>{@code totalMessages}, {@code totalMentions}, {@code totalConversations}: the app-icon
 *       totals, kept by adding each conversation's change to its share (see {@code Share}); and
 *       {@code totalThreads}, added with threads (restored as 0, as no thread was kept).
 *   <li>{@code totalsKept}: whether the totals hold every conversation's share. False in states
 *       written before the totals existed (POJO schema evolution restores it so) and in those the
 *       savepoint tools build: the first conversation event of such a user sums the shares once.
 *   <li>{@code allReadAt}: newest {@code ALL_READ.readAt}, epoch ms; 0 when none.
 *   <li>{@code erasedAt}: the newest {@code USER_ERASED.erasedAt} of the user; 0 when never erased.
 *       Events of the user with a time at or before it change nothing (see {@code Erasure}); it is
 *       all an erasure keeps, and it outlives idle expiry. Added with erasure: old records read it
 *       as 0.
 *   <li>{@code channels}: how many channels the user has a membership event in (their ids are in
 *       {@link StateSchema#USER_CHANNELS}), so that a user in none pays no look for each event.
 *       Like {@code erasedAt}, it outlives erasure and idle expiry. Added with channels.
 * </ul>
 */
public class InboxState {
    public long lastReadAt;
    public long unreadSenders;
    public long lastActiveDay;

    /** The counter incarnation that last wrote the badge out; see UnreadCounter. */
    public long refreshedIn;

    public long totalMessages;
    public long totalMentions;
    public long totalConversations;
    public long totalThreads;
    public boolean totalsKept;

    /** The counter incarnation that last wrote the totals out; see UnreadCounter. */
    public long totalsRefreshedIn;

    public long allReadAt;
    public long erasedAt;
    public long channels;

    public InboxState() {}

    /**
     * Forgets everything but the processing-time bookkeeping of idle expiry ({@code lastActiveDay})
     * and the count of channels, and records the erasure's time: what a user keeps after an
     * erasure. A field added here is forgotten by the copy from a new record, so it needs no line
     * of its own.
     */
    public void erase(long erasedAt) {
        InboxState blank = new InboxState();
        blank.lastActiveDay = lastActiveDay;
        blank.erasedAt = erasedAt;
        blank.channels = channels;
        InboxStateSerializer.INSTANCE.copyInto(blank, this);
    }
}
