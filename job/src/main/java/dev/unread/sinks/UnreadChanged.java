package dev.unread.sinks;

import dev.unread.events.UnreadCount;

/**
 * One user's counts changed by one flush, as the UNREAD_CHANGED message published on {@code
 * UNREAD_CHANGED:{userId}} (docs/contract.md, "Live push"):
 *
 * <pre>{"type":"UNREAD_CHANGED","userId":10086,"version":1767225600000000,
 *  "unreadSenders":3,"conversations":{"80001":18,"80002":0}}</pre>
 *
 * <p>Only what changed is there, each as its absolute value: {@code unreadSenders} when the badge
 * changed, {@code conversations} with the conversations whose count changed.
 */
final class UnreadChanged {

    final long userId;
    private long unreadSenders = -1;
    private final StringBuilder conversations = new StringBuilder();

    UnreadChanged(long userId) {
        this.userId = userId;
    }

    /** Takes one coalesced count of this user ({@link UnreadCount#SENDER_BADGE} for the badge). */
    void add(long conversationId, long count) {
        if (conversationId == UnreadCount.SENDER_BADGE) {
            unreadSenders = count;
        } else {
            conversations
                    .append(conversations.length() == 0 ? "" : ",")
                    .append('"')
                    .append(conversationId)
                    .append("\":")
                    .append(count);
        }
    }

    String json(long version) {
        StringBuilder json =
                new StringBuilder(64 + conversations.length())
                        .append("{\"type\":\"UNREAD_CHANGED\",\"userId\":")
                        .append(userId)
                        .append(",\"version\":")
                        .append(version);
        if (unreadSenders >= 0) {
            json.append(",\"unreadSenders\":").append(unreadSenders);
        }
        if (conversations.length() > 0) {
            json.append(",\"conversations\":{").append(conversations).append('}');
        }
        return json.append('}').toString();
    }
}
