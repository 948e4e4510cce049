package dev.unread.events;

import static dev.unread.contract.InputField.CONVERSATION_ID;
import static dev.unread.contract.InputField.DELETED_AT;
import static dev.unread.contract.InputField.EDITED_AT;
import static dev.unread.contract.InputField.MENTIONS;
import static dev.unread.contract.InputField.MENTIONS_ALL;
import static dev.unread.contract.InputField.MESSAGE_ID;
import static dev.unread.contract.InputField.ROOT_SENDER_ID;
import static dev.unread.contract.InputField.SENDER_ID;
import static dev.unread.contract.InputField.SENT_AT;
import static dev.unread.contract.InputField.SEQ;
import static dev.unread.contract.InputField.THREAD_SEQ;
import static dev.unread.contract.InputField.TYPE;
import static dev.unread.contract.InputField.USER_ID;

import dev.unread.contract.InputKind;

/**
 * Parses and validates {@code chat-conversations} values as docs/contract.md says: the same
 * discipline and the same reader as {@link EventParser} (size limit, one JSON object and nothing
 * after it, no duplicate field of any name, unknown fields ignored, {@code null} as absent), with
 * the fields of the record's own {@code type} checked.
 *
 * <p>Not thread-safe; each {@link ParseConversations} instance keeps its own.
 */
public final class ConversationParser {

    private final RecordReader reader = new RecordReader(true);

    /** A {@code chat-conversations} value. */
    public ConversationEvent parse(byte[] value) throws InvalidRecordException {
        RecordFields fields = reader.read(value, InputKind.Topic.CONVERSATIONS);
        fields.check(TYPE);
        if (!fields.has(TYPE)) {
            throw new InvalidRecordException(TYPE.missing());
        }
        if (fields.kind == null) {
            throw RecordReader.unknownType(fields);
        }
        ConversationEvent event = required(fields);
        return event.keep(fields.optional(fields.kind), fields);
    }

    /**
     * The event of the record's kind from its required fields, checked in the order their reasons
     * have always come, and the optional fields with a rule between fields; the event keeps the
     * optional ones, each in its slot ({@link ConversationEvent#keep}).
     */
    private static ConversationEvent required(RecordFields fields) throws InvalidRecordException {
        return switch (fields.kind) {
            case MEMBER_JOINED, MEMBER_LEFT -> {
                long conversationId = fields.require(CONVERSATION_ID);
                long userId = fields.require(USER_ID);
                long seq = fields.require(SEQ);
                yield fields.kind == InputKind.MEMBER_JOINED
                        ? ConversationEvent.joined(conversationId, userId, seq)
                        : ConversationEvent.left(conversationId, userId, seq);
            }
            case GROUP_MESSAGE -> message(fields);
            case MESSAGE_DELETED -> {
                long conversationId = fields.require(CONVERSATION_ID);
                long seq = fields.require(SEQ);
                // Checked as the contract gives it, though no count depends on it.
                fields.require(DELETED_AT);
                yield ConversationEvent.deleted(conversationId, seq);
            }
            case GROUP_MESSAGE_EDITED -> {
                long conversationId = fields.require(CONVERSATION_ID);
                long seq = fields.require(SEQ);
                long editedAt = fields.require(EDITED_AT);
                fields.check(MENTIONS);
                fields.check(MENTIONS_ALL);
                // Its mentions are optional fields, kept in their slots.
                yield ConversationEvent.edited(conversationId, seq, editedAt, false);
            }
            case CHANNEL -> ConversationEvent.channel(fields.require(CONVERSATION_ID));
            // The kinds of the other topics: this topic's table never names them.
            case MESSAGE,
                    MESSAGE_EDITED,
                    INBOX_OPENED,
                    CONVERSATION_READ,
                    CONVERSATION_PREFERENCE,
                    CONVERSATION_MARKED_UNREAD,
                    THREAD_READ,
                    THREAD_FOLLOWED,
                    ALL_READ,
                    USER_ERASED ->
                    throw new IllegalStateException(fields.kind + " is not of chat-conversations");
        };
    }

    private static ConversationEvent message(RecordFields fields) throws InvalidRecordException {
        long conversationId = fields.require(CONVERSATION_ID);
        long seq = fields.require(SEQ);
        long senderId = fields.require(SENDER_ID);
        long sentAt = fields.require(SENT_AT);
        fields.check(MESSAGE_ID);
        fields.check(MENTIONS);
        fields.check(MENTIONS_ALL);
        if (fields.given(THREAD_SEQ)) {
            EventParser.threadBeforeReply(fields.require(THREAD_SEQ), seq);
        }
        if (fields.given(ROOT_SENDER_ID)) {
            if (!fields.given(THREAD_SEQ)) {
                throw new InvalidRecordException(EventParser.NO_THREAD_FOR_ROOT_SENDER);
            }
            fields.require(ROOT_SENDER_ID);
        }
        return ConversationEvent.message(conversationId, seq, senderId, sentAt);
    }
}
