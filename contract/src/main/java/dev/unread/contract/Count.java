package dev.unread.contract;

/**
 * The catalog of counts the job writes (docs/contract.md, "Redis" and "Live push"): for each, its
 * Redis shape, key and field, and the section of UNREAD_CHANGED and of the API's answers that
 * carries it. The Redis sink, UNREAD_CHANGED, the savepoint republish, and the API's reads,
 * answers, stream snapshot and OpenAPI schema all go through it, so a new count is one constant
 * here plus where the job emits it; every switch over it is exhaustive, so a count nobody handles
 * does not compile.
 *
 * <p>The order of the constants is the order of the sections in UNREAD_CHANGED and the answers.
 */
public enum Count {
    /** The distinct-sender badge: string {@code unread:senders:{userId}}. */
    SENDERS(Shape.STRING, RedisNames.SENDERS, Field.NONE, "unreadSenders"),

    /** A conversation's unread messages: hash {@code chat:unread:{userId}}. */
    CONVERSATION(Shape.HASH, RedisNames.CONVERSATIONS, Field.CONVERSATION, "conversations"),

    /** A conversation's unread mentions: hash {@code chat:mentions:{userId}}. */
    MENTIONS(Shape.HASH, RedisNames.MENTIONS, Field.CONVERSATION, "mentions"),

    /**
     * Of a conversation's unread mentions, those that mention the user only channel-wide: hash
     * {@code chat:channel-mentions:{userId}}. Beyond the shared design, for the inbox page's mark.
     */
    CHANNEL_MENTIONS(
            Shape.HASH, RedisNames.CHANNEL_MENTIONS, Field.CONVERSATION, "channelMentions"),

    /** The app-icon totals: fields of hash {@code unread:totals:{userId}}. */
    TOTAL_MESSAGES(Shape.HASH, RedisNames.TOTALS, Field.TOTAL, "totals"),
    TOTAL_MENTIONS(Shape.HASH, RedisNames.TOTALS, Field.TOTAL, "totals"),
    TOTAL_CONVERSATIONS(Shape.HASH, RedisNames.TOTALS, Field.TOTAL, "totals"),
    TOTAL_THREADS(Shape.HASH, RedisNames.TOTALS, Field.TOTAL, "totals"),

    /** A conversation marked unread (1) or not (0): set {@code chat:marked-unread:{userId}}. */
    MARKED(Shape.SET, RedisNames.MARKED_UNREAD, Field.CONVERSATION, "markedUnread"),

    /** A followed thread's unread replies: hash {@code chat:threads:{userId}}. */
    THREAD(Shape.HASH, RedisNames.THREADS, Field.THREAD, "threads"),

    /** A followed thread's unread replies that mention the user. */
    THREAD_MENTIONS(Shape.HASH, RedisNames.THREAD_MENTIONS, Field.THREAD, "threadMentions"),

    /**
     * Of a followed thread's unread mentions, those only channel-wide: hash {@code
     * chat:thread-channel-mentions:{userId}}. Beyond the shared design, as {@link
     * #CHANNEL_MENTIONS}.
     */
    THREAD_CHANNEL_MENTIONS(
            Shape.HASH, RedisNames.THREAD_CHANNEL_MENTIONS, Field.THREAD, "threadChannelMentions");

    /** How a count sits in Redis; a count of 0 is always an absent key, field or member. */
    public enum Shape {
        /** The key's value is the count. */
        STRING,
        /** One field of the user's hash holds the count. */
        HASH,
        /** The user's set holds a member while the count is not 0. */
        SET
    }

    /** What names a count's field or member within its key. */
    public enum Field {
        /** The key is the count. */
        NONE,
        /** {@code {conversationId}}. */
        CONVERSATION,
        /** {@code {conversationId}:{threadSeq}}, see {@link RedisNames#threadField}. */
        THREAD,
        /** A fixed name per count: the totals' {@code messages}, {@code mentions}... */
        TOTAL
    }

    private final Shape shape;
    private final String keyPrefix;
    private final Field field;
    private final String section;

    Count(Shape shape, String keyPrefix, Field field, String section) {
        this.shape = shape;
        this.keyPrefix = keyPrefix;
        this.field = field;
        this.section = section;
    }

    public Shape shape() {
        return shape;
    }

    /** The user's key of this count, after the deployment's key prefix. */
    public String key(String prefix, long userId) {
        return prefix + keyPrefix + userId;
    }

    /**
     * The field or member of this count within {@link #key}; null for a {@link Shape#STRING}.
     *
     * @param threadSeq the thread's root for the counts {@link #perThread}
     */
    public String field(long conversationId, long threadSeq) {
        return switch (field) {
            case NONE -> null;
            case CONVERSATION -> Long.toString(conversationId);
            case THREAD -> RedisNames.threadField(conversationId, threadSeq);
            case TOTAL -> totalField();
        };
    }

    /** The field of a total in the totals' hash: {@code messages}, {@code mentions}... */
    public String totalField() {
        return switch (this) {
            case TOTAL_MESSAGES -> RedisNames.TOTAL_MESSAGES;
            case TOTAL_MENTIONS -> RedisNames.TOTAL_MENTIONS;
            case TOTAL_CONVERSATIONS -> RedisNames.TOTAL_CONVERSATIONS;
            case TOTAL_THREADS -> RedisNames.TOTAL_THREADS;
            case SENDERS,
                    CONVERSATION,
                    MENTIONS,
                    CHANNEL_MENTIONS,
                    MARKED,
                    THREAD,
                    THREAD_MENTIONS,
                    THREAD_CHANNEL_MENTIONS ->
                    throw new IllegalStateException(this + " is not a total");
        };
    }

    /** What names the count's field or member within {@link #key}. */
    public Field fieldKind() {
        return field;
    }

    /** Whether the count is per thread. */
    public boolean perThread() {
        return field == Field.THREAD;
    }

    /**
     * Where UNREAD_CHANGED and the API's answers carry the count: the name of a top-level number
     * for a {@link Shape#STRING}, else of the object whose keys are {@link #field}s; a {@link
     * Shape#SET}'s values there are booleans, except in the API's answers to GET, which list its
     * members. The counts that share a section share their key: the totals.
     */
    public String section() {
        return section;
    }
}
