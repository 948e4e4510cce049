package dev.unread.events;

import static dev.unread.contract.InputField.CONVERSATION_ID;
import static dev.unread.contract.InputField.COUNT_PREFERENCE;
import static dev.unread.contract.InputField.EDITED_AT;
import static dev.unread.contract.InputField.ERASED_AT;
import static dev.unread.contract.InputField.FOLLOWING;
import static dev.unread.contract.InputField.IGNORE_CHANNEL_MENTIONS;
import static dev.unread.contract.InputField.MARKED_AT;
import static dev.unread.contract.InputField.MENTIONED;
import static dev.unread.contract.InputField.MENTIONS_ALL;
import static dev.unread.contract.InputField.MESSAGE_ID;
import static dev.unread.contract.InputField.READ_AT;
import static dev.unread.contract.InputField.READ_SEQ;
import static dev.unread.contract.InputField.RECEIVER_ID;
import static dev.unread.contract.InputField.ROOT_SENDER_ID;
import static dev.unread.contract.InputField.SENDER_ID;
import static dev.unread.contract.InputField.SENT_AT;
import static dev.unread.contract.InputField.SEQ;
import static dev.unread.contract.InputField.SET_AT;
import static dev.unread.contract.InputField.THREAD_SEQ;
import static dev.unread.contract.InputField.TYPE;
import static dev.unread.contract.InputField.USER_ID;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.unread.contract.InputKind;

/**
 * Parses and validates the {@code chat-messages} and {@code chat-reads} topics exactly as "Input"
 * in docs/contract.md says: the record is read into {@link RecordFields} by {@link RecordReader}
 * under the catalog's field table ({@link InputKind}), and the event of the record's kind is built
 * from those fields here, its checks in the order the reasons have always come; the event keeps
 * each optional field in the slot {@link ChatEvent} gives it, so a new optional field without a
 * rule between fields needs nothing here.
 *
 * <p>Only the fields of the record's own kind are checked: a message's {@code type} or {@code
 * userId}, an {@code INBOX_OPENED}'s {@code conversationId}, a read's {@code messageId} are unknown
 * fields to it and ignored whatever their value, as every unknown field is, at any depth. The whole
 * record must be strict UTF-8 (RFC 3629), without a byte-order mark.
 *
 * <p>Not thread-safe: the fields of the record being parsed live in the instance, so that a record
 * costs no holder objects. Each user keeps its own, as {@link ParseEvents} does per subtask.
 */
public final class EventParser {

    /** Records larger than this are refused before parsing. */
    public static final int MAX_RECORD_BYTES = 64 * 1024;

    private static final int MAX_REASON_DETAIL_CHARS = 160;

    /**
     * Jackson's limits for a record of any input topic. Its defaults would refuse valid records
     * with a deeply nested, long-named or long-numbered unknown field, which the contract ignores;
     * the record's size already bounds all three, and skipping is iterative (skipChildren), so
     * nesting as deep as the record is long costs no stack.
     */
    static final StreamReadConstraints WITHIN_ONE_RECORD =
            StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_RECORD_BYTES)
                    .maxNameLength(MAX_RECORD_BYTES)
                    .maxNumberLength(MAX_RECORD_BYTES)
                    .build();

    /** Only a reply names its root's sender, on either topic. */
    static final String NO_THREAD_FOR_ROOT_SENDER = "rootSenderId: needs threadSeq";

    private final RecordReader reader;

    public EventParser() {
        this(true);
    }

    EventParser(boolean scanCompact) {
        reader = new RecordReader(scanCompact);
    }

    /**
     * A {@code chat-messages} value: a message, or with {@code "type":"MESSAGE_EDITED"} an edit.
     * Any other {@code type} is an unknown field to a message, as before edits existed.
     */
    public ChatEvent parseMessage(byte[] value) throws InvalidRecordException {
        RecordFields fields = reader.read(value, InputKind.Topic.MESSAGES);
        InputKind kind = fields.has(TYPE) && fields.kind != null ? fields.kind : InputKind.MESSAGE;
        return build(kind, fields);
    }

    /** A {@code chat-reads} value. */
    public ChatEvent parseRead(byte[] value) throws InvalidRecordException {
        RecordFields fields = reader.read(value, InputKind.Topic.READS);
        fields.check(TYPE);
        if (!fields.has(TYPE)) {
            throw new InvalidRecordException(TYPE.missing());
        }
        if (fields.kind == null) {
            throw RecordReader.unknownType(fields);
        }
        return build(fields.kind, fields);
    }

    /**
     * The event of a {@code kind} record of either topic: the kind's factory takes the required
     * fields, checked in the order their reasons have always come, and the event keeps the optional
     * ones the record gives, each in its slot ({@link ChatEvent#keep}), those with a rule between
     * fields checked here first.
     */
    private static ChatEvent build(InputKind kind, RecordFields fields)
            throws InvalidRecordException {
        ChatEvent event = required(kind, fields);
        long optional = fields.optional(kind);
        // A message without a conversation counts toward the sender badge only: it keeps none.
        return kind == InputKind.MESSAGE && !fields.given(CONVERSATION_ID)
                ? event
                : event.keep(optional, fields);
    }

    private static ChatEvent required(InputKind kind, RecordFields fields)
            throws InvalidRecordException {
        return switch (kind) {
            case MESSAGE -> message(fields);
            case MESSAGE_EDITED -> edit(fields);
            case INBOX_OPENED ->
                    ChatEvent.inboxOpened(fields.require(USER_ID), fields.require(READ_AT));
            case ALL_READ -> ChatEvent.allRead(fields.require(USER_ID), fields.require(READ_AT));
            case CONVERSATION_READ -> {
                long userId = fields.require(USER_ID);
                long conversationId = fields.require(CONVERSATION_ID);
                long readSeq = fields.require(READ_SEQ);
                long readAt = fields.require(READ_AT);
                yield ChatEvent.conversationRead(userId, conversationId, readSeq, readAt);
            }
            case CONVERSATION_PREFERENCE -> preference(fields);
            case CONVERSATION_MARKED_UNREAD -> {
                long userId = fields.require(USER_ID);
                long conversationId = fields.require(CONVERSATION_ID);
                long markedAt = fields.require(MARKED_AT);
                yield ChatEvent.markedUnread(userId, conversationId, markedAt);
            }
            case THREAD_READ -> {
                long userId = fields.require(USER_ID);
                long conversationId = fields.require(CONVERSATION_ID);
                long threadSeq = fields.require(THREAD_SEQ);
                long readSeq = fields.require(READ_SEQ);
                long readAt = fields.require(READ_AT);
                yield ChatEvent.threadRead(userId, conversationId, threadSeq, readSeq, readAt);
            }
            case THREAD_FOLLOWED -> {
                long userId = fields.require(USER_ID);
                long conversationId = fields.require(CONVERSATION_ID);
                long threadSeq = fields.require(THREAD_SEQ);
                long following = fields.require(FOLLOWING);
                long setAt = fields.require(SET_AT);
                yield ChatEvent.threadFollowed(
                        userId, conversationId, threadSeq, following == 1, setAt);
            }
            case USER_ERASED ->
                    ChatEvent.userErased(fields.require(USER_ID), fields.require(ERASED_AT));
            // The kinds of chat-conversations: the topics' tables never name them here.
            case MEMBER_JOINED,
                    MEMBER_LEFT,
                    GROUP_MESSAGE,
                    MESSAGE_DELETED,
                    GROUP_MESSAGE_EDITED,
                    CHANNEL ->
                    throw new IllegalStateException(
                            kind + " is not of chat-messages or chat-reads");
        };
    }

    private static ChatEvent message(RecordFields fields) throws InvalidRecordException {
        long senderId = fields.require(SENDER_ID);
        long receiverId = fields.require(RECEIVER_ID);
        long sentAt = fields.require(SENT_AT);
        fields.check(MESSAGE_ID);
        fields.check(MENTIONED);
        fields.check(MENTIONS_ALL);
        boolean conversation = fields.given(CONVERSATION_ID);
        if (conversation != fields.given(SEQ)) {
            throw new InvalidRecordException("conversationId and seq must come together");
        }
        if (!conversation) {
            if (fields.given(THREAD_SEQ)) {
                throw new InvalidRecordException("threadSeq: needs conversationId and seq");
            }
            if (fields.given(ROOT_SENDER_ID)) {
                throw new InvalidRecordException(NO_THREAD_FOR_ROOT_SENDER);
            }
        } else {
            fields.require(CONVERSATION_ID);
            long seq = fields.require(SEQ);
            if (fields.given(THREAD_SEQ)) {
                threadBeforeReply(fields.require(THREAD_SEQ), seq);
            }
            if (fields.given(ROOT_SENDER_ID)) {
                if (!fields.given(THREAD_SEQ)) {
                    throw new InvalidRecordException(NO_THREAD_FOR_ROOT_SENDER);
                }
                fields.require(ROOT_SENDER_ID);
            }
        }
        // Its conversation and seq are optional fields, kept in their slots as the others are.
        return ChatEvent.message(senderId, receiverId, sentAt);
    }

    /** A {@code chat-messages} MESSAGE_EDITED: whom one receiver's copy mentions after the edit. */
    private static ChatEvent edit(RecordFields fields) throws InvalidRecordException {
        long receiverId = fields.require(RECEIVER_ID);
        long conversationId = fields.require(CONVERSATION_ID);
        long seq = fields.require(SEQ);
        long editedAt = fields.require(EDITED_AT);
        fields.check(MENTIONED);
        fields.check(MENTIONS_ALL);
        if (fields.given(THREAD_SEQ)) {
            threadBeforeReply(fields.require(THREAD_SEQ), seq);
        }
        // Its thread and mentions are optional fields, kept in their slots.
        return ChatEvent.edited(receiverId, conversationId, seq, 0, editedAt, false, false);
    }

    /** CONVERSATION_PREFERENCE: each of its two optional fields, at least one given. */
    private static ChatEvent preference(RecordFields fields) throws InvalidRecordException {
        long userId = fields.require(USER_ID);
        long conversationId = fields.require(CONVERSATION_ID);
        fields.check(COUNT_PREFERENCE);
        fields.check(IGNORE_CHANNEL_MENTIONS);
        if (!fields.has(COUNT_PREFERENCE) && !fields.has(IGNORE_CHANNEL_MENTIONS)) {
            throw new InvalidRecordException(
                    COUNT_PREFERENCE.wireName()
                            + ", "
                            + IGNORE_CHANNEL_MENTIONS.wireName()
                            + ": neither given");
        }
        long setAt = fields.require(SET_AT);
        // Both are optional fields, kept in their slots; without a countPreference, none is kept.
        return ChatEvent.preference(userId, conversationId, ChatEvent.NO_COUNT_PREFERENCE, setAt);
    }

    /**
     * Refuses a reply whose {@code threadSeq} is not below its {@code seq}: a root comes before its
     * replies. Shared with the {@code chat-conversations} parser, which words its refusals the
     * same.
     */
    static void threadBeforeReply(long threadSeq, long seq) throws InvalidRecordException {
        if (threadSeq >= seq) {
            throw new InvalidRecordException("threadSeq: must be less than seq");
        }
    }

    /** The message of {@code e} for a reason, cut at {@link #MAX_REASON_DETAIL_CHARS}. */
    static String detail(Exception e) {
        String message =
                e instanceof JsonProcessingException
                        ? ((JsonProcessingException) e).getOriginalMessage()
                        : e.getMessage();
        return clip(String.valueOf(message));
    }

    /** Input quoted in a reason, cut at {@link #MAX_REASON_DETAIL_CHARS}. */
    static String clip(String s) {
        return s.length() <= MAX_REASON_DETAIL_CHARS
                ? s
                : s.substring(0, MAX_REASON_DETAIL_CHARS) + "...";
    }
}
