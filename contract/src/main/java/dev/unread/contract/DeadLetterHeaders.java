package dev.unread.contract;

/**
 * Headers of a dead letter, whose key and value are the refused record's own bytes
 * (docs/contract.md, "Dead letters").
 */
public final class DeadLetterHeaders {

    /** Why the record was refused, e.g. {@code senderId: must be > 0, was 0}. */
    public static final String REASON = "unread.reason";

    public static final String SOURCE_TOPIC = "unread.source.topic";

    /** Decimal text. */
    public static final String SOURCE_PARTITION = "unread.source.partition";

    /** Decimal text. */
    public static final String SOURCE_OFFSET = "unread.source.offset";

    private DeadLetterHeaders() {}
}
