package dev.unread.contract;

/**
 * The dead-letter topic's records: the refused record's own key and value bytes, and these headers
 * (docs/contract.md, "Dead letters").
 */
public final class DeadLetters {

    /**
     * The largest letter: a refused record as large as the source topics accept, plus headers. The
     * dead-letter topic must accept {@code max.message.bytes} of at least this; a letter that would
     * still be larger goes without its value (then its key), their sizes in headers.
     */
    public static final int MAX_LETTER_BYTES = 8 * 1024 * 1024 + 64 * 1024;

    /** Why the record was refused, e.g. {@code senderId: must be > 0, was 0}. */
    public static final String REASON = "unread.reason";

    public static final String SOURCE_TOPIC = "unread.source.topic";

    /** Decimal text. */
    public static final String SOURCE_PARTITION = "unread.source.partition";

    /** Decimal text. */
    public static final String SOURCE_OFFSET = "unread.source.offset";

    /** Only on a letter without its value: how many bytes the value had (decimal text). */
    public static final String SOURCE_VALUE_BYTES = "unread.source.value.bytes";

    /** Only on a letter without its key: how many bytes the key had (decimal text). */
    public static final String SOURCE_KEY_BYTES = "unread.source.key.bytes";

    private DeadLetters() {}
}
