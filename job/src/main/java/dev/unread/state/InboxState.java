package dev.unread.state;

/**
 * Per user: the inbox watermark and the size of the sender set, kept together so that a message
 * costs one read of it. Java-bean POJO so that Flink's POJO serializer (and its schema
 * evolution) applies.
 *
 * <ul>
 *   <li>{@code lastReadAt}: newest {@code INBOX_OPENED.readAt}, epoch ms; 0 when never opened.
 *   <li>{@code unreadSenders}: how many senders are held in the sender map, i.e. the badge.
 * </ul>
 */
public class InboxState {
    public long lastReadAt;
    public long unreadSenders;

    public InboxState() {}
}
