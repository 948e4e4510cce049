package dev.unread.contract;

/**
 * The {@code type} of each live message (docs/contract.md, "Live push" and "GET
 * /api/users/{userId}/events"): the job publishes {@link #UNREAD_CHANGED} and {@link #READ_RECEIPT}
 * on Redis; the API's streams pass them on, after a {@link #SNAPSHOT} and before a {@link
 * #RECONNECT}, or before an {@link #ERASED} the job published.
 */
public final class MessageTypes {

    /** A user's counts that one flush changed, on {@link RedisNames#UNREAD_CHANGED}{userId}. */
    public static final String UNREAD_CHANGED = "UNREAD_CHANGED";

    /** A conversation cursor that moved forward, on the read receipt channels. */
    public static final String READ_RECEIPT = "READ_RECEIPT";

    /** The first message of a stream: all of the user's counts, with their version. */
    public static final String SNAPSHOT = "SNAPSHOT";

    /** The last message of a stream the API ends: the client connects again. */
    public static final String RECONNECT = "RECONNECT";

    /**
     * The user was erased: the job publishes it on {@link RedisNames#UNREAD_CHANGED}{userId} once
     * the user's keys are gone, and every API instance ends the user's streams with it.
     */
    public static final String ERASED = "ERASED";

    /**
     * A message, deletion or edit of a channel, on {@link RedisNames#channelChangedChannel}: the
     * channel's index changed up to its {@code version}.
     */
    public static final String CHANNEL_CHANGED = "CHANNEL_CHANGED";

    /**
     * A live user's track of a channel (or of one of its threads, {@code threadSeq}) changed, on
     * {@link RedisNames#UNREAD_CHANGED}{userId}.
     */
    public static final String TRACK_CHANGED = "TRACK_CHANGED";

    /** The {@link #ERASED} message of {@code userId}. */
    public static String erased(long userId) {
        return "{\"type\":\"" + ERASED + "\",\"userId\":" + userId + "}";
    }

    /**
     * The {@link #CHANNEL_CHANGED} of a message, deletion or edit ({@code change}: {@code MESSAGE},
     * {@code DELETED} or {@code EDITED}) of channel {@code conversationId}, whose index write set
     * the channel's version to {@code version}.
     */
    public static String channelChanged(
            long conversationId,
            long version,
            String change,
            long seq,
            long threadSeq,
            long senderId,
            boolean mentionsAll) {
        return "{\"type\":\""
                + CHANNEL_CHANGED
                + "\",\"conversationId\":"
                + conversationId
                + ",\"version\":"
                + version
                + ",\"change\":\""
                + change
                + "\",\"seq\":"
                + seq
                + ",\"threadSeq\":"
                + threadSeq
                + ",\"senderId\":"
                + senderId
                + ",\"mentionsAll\":"
                + mentionsAll
                + "}";
    }

    /**
     * The {@link #TRACK_CHANGED} of {@code userId}'s track of channel {@code conversationId}, or of
     * its thread {@code threadSeq} (0 for the channel's own track).
     */
    public static String trackChanged(long userId, long conversationId, long threadSeq) {
        return "{\"type\":\""
                + TRACK_CHANGED
                + "\",\"userId\":"
                + userId
                + ",\"conversationId\":"
                + conversationId
                + ",\"threadSeq\":"
                + threadSeq
                + "}";
    }

    private MessageTypes() {}
}
