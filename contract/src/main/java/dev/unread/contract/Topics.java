package dev.unread.contract;

/**
 * The Kafka topics' default names (each can be renamed by a setting). See docs/contract.md, "Input"
 * and "Dead letters".
 */
public final class Topics {

    /** Messages, one record per receiver; key = receiverId. */
    public static final String MESSAGES = "chat-messages";

    /** Inbox opens and conversation reads; key = userId. */
    public static final String READS = "chat-reads";

    /**
     * Group conversations published once: membership changes and messages; key = conversationId.
     */
    public static final String CONVERSATIONS = "chat-conversations";

    /** Records the job refused, byte for byte, with the reason in headers. */
    public static final String DEAD_LETTERS = "chat-dead-letters";

    private Topics() {}
}
