package dev.unread.events;

import static dev.unread.events.RecordFields.CONVERSATION_ID;
import static dev.unread.events.RecordFields.COUNT_PREFERENCE;
import static dev.unread.events.RecordFields.EDITED_AT;
import static dev.unread.events.RecordFields.ERASED_AT;
import static dev.unread.events.RecordFields.FOLLOWING;
import static dev.unread.events.RecordFields.IGNORE_CHANNEL_MENTIONS;
import static dev.unread.events.RecordFields.MARKED_AT;
import static dev.unread.events.RecordFields.MENTIONED;
import static dev.unread.events.RecordFields.MENTIONS_ALL;
import static dev.unread.events.RecordFields.MESSAGE_ID;
import static dev.unread.events.RecordFields.READ_AT;
import static dev.unread.events.RecordFields.READ_SEQ;
import static dev.unread.events.RecordFields.RECEIVER_ID;
import static dev.unread.events.RecordFields.ROOT_SENDER_ID;
import static dev.unread.events.RecordFields.SENDER_ID;
import static dev.unread.events.RecordFields.SENT_AT;
import static dev.unread.events.RecordFields.SEQ;
import static dev.unread.events.RecordFields.SET_AT;
import static dev.unread.events.RecordFields.THREAD_SEQ;
import static dev.unread.events.RecordFields.TYPE;
import static dev.unread.events.RecordFields.USER_ID;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;

/**
 * Parses and validates the two input topics exactly as "Input" in docs/contract.md says: the record
 * is read into {@link RecordFields} by {@link CompactRecordScan}, or by {@link JacksonRecordReader}
 * when it is not in the compact form, and the event is built from those fields here.
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

    public static final int MAX_MESSAGE_ID_CHARS = 128;

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

    private final JacksonRecordReader jackson = new JacksonRecordReader();

    /** False only in tests, which compare the compact scan with Jackson's parse. */
    private final boolean scanCompact;

    private final RecordFields fields = new RecordFields();

    public EventParser() {
        this(true);
    }

    EventParser(boolean scanCompact) {
        this.scanCompact = scanCompact;
    }

    /**
     * A {@code chat-messages} value: a message, or with {@code "type":"MESSAGE_EDITED"} an edit.
     * Any other {@code type} is an unknown field to a message, as before edits existed.
     */
    public ChatEvent parseMessage(byte[] value) throws InvalidRecordException {
        read(value);
        if ((fields.present & TYPE) != 0 && fields.readKind == ChatEvent.Kind.MESSAGE_EDITED) {
            return edit();
        }
        long senderId = fields.requirePositive("senderId", SENDER_ID);
        long receiverId = fields.requirePositive("receiverId", RECEIVER_ID);
        long sentAt = fields.requirePositive("sentAt", SENT_AT);
        if ((fields.invalid & MESSAGE_ID) != 0) {
            throw fields.refused("messageId", MESSAGE_ID);
        }
        if ((fields.invalid & MENTIONED) != 0) {
            throw fields.refused("mentioned", MENTIONED);
        }
        boolean mentionsAll = fields.flag("mentionsAll", MENTIONS_ALL);
        int given = fields.present | fields.invalid;
        boolean conversation = (given & CONVERSATION_ID) != 0;
        if (conversation != ((given & SEQ) != 0)) {
            throw new InvalidRecordException("conversationId and seq must come together");
        }
        if (!conversation) {
            if ((given & THREAD_SEQ) != 0) {
                throw new InvalidRecordException("threadSeq: needs conversationId and seq");
            }
            if ((given & ROOT_SENDER_ID) != 0) {
                throw new InvalidRecordException(NO_THREAD_FOR_ROOT_SENDER);
            }
            return ChatEvent.message(senderId, receiverId, sentAt);
        }
        long conversationId = fields.requirePositive("conversationId", CONVERSATION_ID);
        long seq = fields.requirePositive("seq", SEQ);
        ChatEvent message = ChatEvent.message(senderId, receiverId, conversationId, seq, sentAt);
        message.mentioned =
                (fields.present & MENTIONED) != 0
                        && fields.values[RecordFields.bit(MENTIONED)] == 1;
        message.mentionsAll = mentionsAll;
        if ((given & THREAD_SEQ) != 0) {
            message.threadSeq = threadSeq(fields.requirePositive("threadSeq", THREAD_SEQ), seq);
        }
        if ((given & ROOT_SENDER_ID) != 0) {
            if (!message.isReply()) {
                throw new InvalidRecordException(NO_THREAD_FOR_ROOT_SENDER);
            }
            message.rootSenderId = fields.requirePositive("rootSenderId", ROOT_SENDER_ID);
        }
        return message;
    }

    /** A {@code chat-messages} MESSAGE_EDITED: whom one receiver's copy mentions after the edit. */
    private ChatEvent edit() throws InvalidRecordException {
        long receiverId = fields.requirePositive("receiverId", RECEIVER_ID);
        long conversationId = fields.requirePositive("conversationId", CONVERSATION_ID);
        long seq = fields.requirePositive("seq", SEQ);
        long editedAt = fields.requirePositive("editedAt", EDITED_AT);
        boolean mentioned = fields.flag("mentioned", MENTIONED);
        boolean mentionsAll = fields.flag("mentionsAll", MENTIONS_ALL);
        long threadSeq = 0;
        if (((fields.present | fields.invalid) & THREAD_SEQ) != 0) {
            threadSeq = threadSeq(fields.requirePositive("threadSeq", THREAD_SEQ), seq);
        }
        return ChatEvent.edited(
                receiverId, conversationId, seq, threadSeq, editedAt, mentioned, mentionsAll);
    }

    /** A {@code chat-reads} value. */
    public ChatEvent parseRead(byte[] value) throws InvalidRecordException {
        read(value);
        if ((fields.invalid & TYPE) != 0) {
            throw fields.refused("type", TYPE);
        }
        if ((fields.present & TYPE) == 0) {
            throw new InvalidRecordException("type: missing");
        }
        if (fields.readKind == ChatEvent.Kind.INBOX_OPENED) {
            return ChatEvent.inboxOpened(
                    fields.requirePositive("userId", USER_ID),
                    fields.requirePositive("readAt", READ_AT));
        }
        if (fields.readKind == ChatEvent.Kind.ALL_READ) {
            return ChatEvent.allRead(
                    fields.requirePositive("userId", USER_ID),
                    fields.requirePositive("readAt", READ_AT));
        }
        if (fields.readKind == ChatEvent.Kind.CONVERSATION_READ) {
            long userId = fields.requirePositive("userId", USER_ID);
            long conversationId = fields.requirePositive("conversationId", CONVERSATION_ID);
            long readSeq = fields.requireNonNegative("readSeq", READ_SEQ);
            long readAt = fields.requirePositive("readAt", READ_AT);
            return ChatEvent.conversationRead(userId, conversationId, readSeq, readAt);
        }
        if (fields.readKind == ChatEvent.Kind.CONVERSATION_PREFERENCE) {
            long userId = fields.requirePositive("userId", USER_ID);
            long conversationId = fields.requirePositive("conversationId", CONVERSATION_ID);
            if ((fields.invalid & COUNT_PREFERENCE) != 0) {
                throw fields.refused("countPreference", COUNT_PREFERENCE);
            }
            boolean ignore = fields.flag("ignoreChannelMentions", IGNORE_CHANNEL_MENTIONS);
            boolean carriesPreference = (fields.present & COUNT_PREFERENCE) != 0;
            boolean carriesIgnore = (fields.present & IGNORE_CHANNEL_MENTIONS) != 0;
            if (!carriesPreference && !carriesIgnore) {
                throw new InvalidRecordException(
                        "countPreference, ignoreChannelMentions: neither given");
            }
            long preference =
                    carriesPreference
                            ? fields.values[RecordFields.bit(COUNT_PREFERENCE)]
                            : ChatEvent.NO_COUNT_PREFERENCE;
            long setAt = fields.requirePositive("setAt", SET_AT);
            return carriesIgnore
                    ? ChatEvent.ignoreChannelMentions(
                            userId, conversationId, preference, ignore, setAt)
                    : ChatEvent.preference(userId, conversationId, preference, setAt);
        }
        if (fields.readKind == ChatEvent.Kind.CONVERSATION_MARKED_UNREAD) {
            long userId = fields.requirePositive("userId", USER_ID);
            long conversationId = fields.requirePositive("conversationId", CONVERSATION_ID);
            long markedAt = fields.requirePositive("markedAt", MARKED_AT);
            return ChatEvent.markedUnread(userId, conversationId, markedAt);
        }
        if (fields.readKind == ChatEvent.Kind.THREAD_READ) {
            long userId = fields.requirePositive("userId", USER_ID);
            long conversationId = fields.requirePositive("conversationId", CONVERSATION_ID);
            long threadSeq = fields.requirePositive("threadSeq", THREAD_SEQ);
            long readSeq = fields.requireNonNegative("readSeq", READ_SEQ);
            long readAt = fields.requirePositive("readAt", READ_AT);
            return ChatEvent.threadRead(userId, conversationId, threadSeq, readSeq, readAt);
        }
        if (fields.readKind == ChatEvent.Kind.THREAD_FOLLOWED) {
            long userId = fields.requirePositive("userId", USER_ID);
            long conversationId = fields.requirePositive("conversationId", CONVERSATION_ID);
            long threadSeq = fields.requirePositive("threadSeq", THREAD_SEQ);
            long following = fields.require("following", FOLLOWING);
            long setAt = fields.requirePositive("setAt", SET_AT);
            return ChatEvent.threadFollowed(
                    userId, conversationId, threadSeq, following == 1, setAt);
        }
        if (fields.readKind == ChatEvent.Kind.USER_ERASED) {
            return ChatEvent.userErased(
                    fields.requirePositive("userId", USER_ID),
                    fields.requirePositive("erasedAt", ERASED_AT));
        }
        // MESSAGE_EDITED is a type of chat-messages, not of this topic.
        throw new InvalidRecordException(
                "type: unknown "
                        + clip(
                                fields.unknownType != null
                                        ? fields.unknownType
                                        : fields.readKind.name()));
    }

    /**
     * A reply's {@code threadSeq}, below its {@code seq}: a root comes before its replies. Shared
     * with the {@code chat-conversations} parser, which words its refusals the same.
     */
    static long threadSeq(long threadSeq, long seq) throws InvalidRecordException {
        if (threadSeq >= seq) {
            throw new InvalidRecordException("threadSeq: must be less than seq");
        }
        return threadSeq;
    }

    private void read(byte[] value) throws InvalidRecordException {
        if (value == null || value.length == 0) {
            throw new InvalidRecordException("empty record");
        }
        if (value.length > MAX_RECORD_BYTES) {
            throw new InvalidRecordException(
                    "record of " + value.length + " bytes exceeds " + MAX_RECORD_BYTES);
        }
        fields.clear();
        if (scanCompact && CompactRecordScan.read(value, fields)) {
            return;
        }
        // The scan accepts ASCII only, so only what Jackson reads needs the check; Jackson's own
        // decoding takes overlong forms and surrogates, and guesses UTF-16 and UTF-32.
        Utf8.check(value);
        // The scan may have filled some fields before it handed the record over.
        fields.clear();
        jackson.read(value, fields);
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
