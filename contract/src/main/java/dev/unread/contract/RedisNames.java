package dev.unread.contract;

/**
 * The Redis keys and channels of the contract (docs/contract.md, "Output"). Every name takes the
 * deployment's key prefix (empty by default), so tenants and tests can share one Redis.
 */
public final class RedisNames {

    /** String: the distinct-sender badge, absent when 0. */
    public static final String SENDERS = "unread:senders:";

    /** Hash: field conversationId, value the unread count, field absent when 0. */
    public static final String CONVERSATIONS = "chat:unread:";

    /**
     * Sorted set per conversation: member userId, score the user's read cursor; scores only rise.
     */
    public static final String READERS = "chat:readers:";

    /** Pub/Sub channel of READ_RECEIPT messages, one per cursor that advanced. */
    public static final String READ_PROGRESS_CHANGED = "READ_PROGRESS_CHANGED";

    private RedisNames() {}

    /** {@code prefix + "unread:senders:" + userId}. */
    public static String sendersKey(String prefix, long userId) {
        return prefix + SENDERS + userId;
    }

    /** {@code prefix + "chat:unread:" + userId}. */
    public static String conversationsKey(String prefix, long userId) {
        return prefix + CONVERSATIONS + userId;
    }

    /** {@code prefix + "chat:readers:" + conversationId}. */
    public static String readersKey(String prefix, long conversationId) {
        return prefix + READERS + conversationId;
    }

    /** {@code prefix + "READ_PROGRESS_CHANGED"}. */
    public static String readProgressChannel(String prefix) {
        return prefix + READ_PROGRESS_CHANGED;
    }
}
