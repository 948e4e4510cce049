package dev.unread.contract;

import static dev.unread.contract.InputKind.ALL_READ;
import static dev.unread.contract.InputKind.CHANNEL;
import static dev.unread.contract.InputKind.CONVERSATION_MARKED_UNREAD;
import static dev.unread.contract.InputKind.CONVERSATION_PREFERENCE;
import static dev.unread.contract.InputKind.CONVERSATION_READ;
import static dev.unread.contract.InputKind.GROUP_MESSAGE;
import static dev.unread.contract.InputKind.GROUP_MESSAGE_EDITED;
import static dev.unread.contract.InputKind.INBOX_OPENED;
import static dev.unread.contract.InputKind.MEMBER_JOINED;
import static dev.unread.contract.InputKind.MEMBER_LEFT;
import static dev.unread.contract.InputKind.MESSAGE;
import static dev.unread.contract.InputKind.MESSAGE_DELETED;
import static dev.unread.contract.InputKind.MESSAGE_EDITED;
import static dev.unread.contract.InputKind.THREAD_FOLLOWED;
import static dev.unread.contract.InputKind.THREAD_READ;
import static dev.unread.contract.InputKind.USER_ERASED;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * The catalog of the input topics' fields (docs/contract.md, "Input"): each field once, with its
 * name, its JSON shape and bounds, and the kinds of record ({@link InputKind}, and so the topics)
 * that require it or may carry it; to any other kind it is unknown, and ignored whatever its value.
 * The parsers' field tables and their reasons for refusing a value, and the writer's formatting
 * ({@link InputJson}), follow from it.
 *
 * <p>A new field is a constant here.
 */
public enum InputField {
    SENDER_ID("senderId", Shape.POSITIVE, by(MESSAGE, GROUP_MESSAGE), none()),
    RECEIVER_ID("receiverId", Shape.POSITIVE, by(MESSAGE, MESSAGE_EDITED), none()),
    SENT_AT("sentAt", Shape.POSITIVE, by(MESSAGE, GROUP_MESSAGE), none()),
    CONVERSATION_ID(
            "conversationId",
            Shape.POSITIVE,
            by(
                    MESSAGE_EDITED,
                    CONVERSATION_READ,
                    CONVERSATION_PREFERENCE,
                    CONVERSATION_MARKED_UNREAD,
                    THREAD_READ,
                    THREAD_FOLLOWED,
                    MEMBER_JOINED,
                    MEMBER_LEFT,
                    GROUP_MESSAGE,
                    MESSAGE_DELETED,
                    GROUP_MESSAGE_EDITED,
                    CHANNEL),
            by(MESSAGE)),
    SEQ(
            "seq",
            Shape.POSITIVE,
            by(
                    MESSAGE_EDITED,
                    MEMBER_JOINED,
                    MEMBER_LEFT,
                    GROUP_MESSAGE,
                    MESSAGE_DELETED,
                    GROUP_MESSAGE_EDITED),
            by(MESSAGE)),
    USER_ID(
            "userId",
            Shape.POSITIVE,
            by(
                    INBOX_OPENED,
                    CONVERSATION_READ,
                    CONVERSATION_PREFERENCE,
                    CONVERSATION_MARKED_UNREAD,
                    THREAD_READ,
                    THREAD_FOLLOWED,
                    ALL_READ,
                    USER_ERASED,
                    MEMBER_JOINED,
                    MEMBER_LEFT),
            none()),
    READ_AT(
            "readAt",
            Shape.POSITIVE,
            by(INBOX_OPENED, CONVERSATION_READ, THREAD_READ, ALL_READ),
            none()),
    READ_SEQ("readSeq", Shape.NON_NEGATIVE, by(CONVERSATION_READ, THREAD_READ), none()),
    /** Every kind but a {@code chat-messages} message has one: {@link InputKind#type()}. */
    TYPE("type", Shape.TYPE, none(), none()),
    /** Checked, never kept. */
    MESSAGE_ID("messageId", Shape.TEXT, 128, none(), by(MESSAGE, GROUP_MESSAGE)),
    MENTIONED("mentioned", Shape.FLAG, none(), by(MESSAGE, MESSAGE_EDITED)),
    COUNT_PREFERENCE("countPreference", Shape.PREFERENCE, none(), by(CONVERSATION_PREFERENCE)),
    SET_AT("setAt", Shape.POSITIVE, by(CONVERSATION_PREFERENCE, THREAD_FOLLOWED), none()),
    MARKED_AT("markedAt", Shape.POSITIVE, by(CONVERSATION_MARKED_UNREAD), none()),
    THREAD_SEQ(
            "threadSeq",
            Shape.POSITIVE,
            by(THREAD_READ, THREAD_FOLLOWED),
            by(MESSAGE, MESSAGE_EDITED, GROUP_MESSAGE)),
    FOLLOWING("following", Shape.FLAG, by(THREAD_FOLLOWED), none()),
    ROOT_SENDER_ID("rootSenderId", Shape.POSITIVE, none(), by(MESSAGE, GROUP_MESSAGE)),
    EDITED_AT("editedAt", Shape.POSITIVE, by(MESSAGE_EDITED, GROUP_MESSAGE_EDITED), none()),
    MENTIONS_ALL(
            "mentionsAll",
            Shape.FLAG,
            none(),
            by(MESSAGE, MESSAGE_EDITED, GROUP_MESSAGE, GROUP_MESSAGE_EDITED)),
    IGNORE_CHANNEL_MENTIONS(
            "ignoreChannelMentions", Shape.FLAG, none(), by(CONVERSATION_PREFERENCE)),
    ERASED_AT("erasedAt", Shape.POSITIVE, by(USER_ERASED), none()),
    /** Checked, never kept: no count depends on it. */
    DELETED_AT("deletedAt", Shape.POSITIVE, by(MESSAGE_DELETED), none()),
    MENTIONS("mentions", Shape.IDS, 1000, none(), by(GROUP_MESSAGE, GROUP_MESSAGE_EDITED));

    /** The JSON a field holds, and what its value must be. {@code null} is absent for every one. */
    public enum Shape {
        /** An integer 1..2^63-1. */
        POSITIVE,
        /** An integer 0..2^63-1. */
        NON_NEGATIVE,
        /** true or false. */
        FLAG,
        /** Text of at most the field's {@link #max()} characters. */
        TEXT,
        /** The record's type: text, one of the topic's {@link InputKind#type()}s. */
        TYPE,
        /** One of {@link CountPreference}'s names. */
        PREFERENCE,
        /** An array of at most the field's {@link #max()} user ids (integers 1..2^63-1). */
        IDS;

        /** Whether the shape is a JSON integer. */
        public boolean integer() {
            return this == POSITIVE || this == NON_NEGATIVE;
        }

        /** Why a value of another JSON type is refused. */
        public String wrongType() {
            return switch (this) {
                case POSITIVE, NON_NEGATIVE -> "must be an integer";
                case FLAG -> "must be true or false";
                case TEXT, TYPE -> "must be text";
                case PREFERENCE -> "must be " + CountPreference.ALTERNATIVES;
                case IDS -> "must be an array of user ids";
            };
        }
    }

    /** The values of {@code countPreference}, loudest first: a later one is quieter. */
    public enum CountPreference {
        ALL,
        MENTIONS,
        NONE;

        private static final String ALTERNATIVES = alternatives();

        private static String alternatives() {
            String[] quoted =
                    Arrays.stream(values()).map(p -> "\"" + p.name() + "\"").toArray(String[]::new);
            return String.join(", ", Arrays.copyOf(quoted, quoted.length - 1))
                    + " or "
                    + quoted[quoted.length - 1];
        }
    }

    /** Why an integer beyond a long is refused. */
    public static final String OUT_OF_RANGE = "out of range (1..2^63-1)";

    /** Why an {@link Shape#IDS} element is refused. */
    public static final String NOT_AN_ID = "must hold user ids (integers 1..2^63-1)";

    private final String wireName;
    private final Shape shape;
    private final int max;
    private final Set<InputKind> requiredBy;
    private final Set<InputKind> optionalIn;

    InputField(String wireName, Shape shape, Set<InputKind> requiredBy, Set<InputKind> optionalIn) {
        this(wireName, shape, 0, requiredBy, optionalIn);
    }

    InputField(
            String wireName,
            Shape shape,
            int max,
            Set<InputKind> requiredBy,
            Set<InputKind> optionalIn) {
        this.wireName = wireName;
        this.shape = shape;
        this.max = max;
        this.requiredBy = requiredBy;
        this.optionalIn = optionalIn;
    }

    private static Set<InputKind> by(InputKind first, InputKind... rest) {
        return EnumSet.of(first, rest);
    }

    private static Set<InputKind> none() {
        return EnumSet.noneOf(InputKind.class);
    }

    /** Whether a record of {@code kind} must have this field. */
    public boolean requiredBy(InputKind kind) {
        return requiredBy.contains(kind);
    }

    /** Whether a record of {@code kind} may have this field, and need not. */
    public boolean optionalIn(InputKind kind) {
        return optionalIn.contains(kind);
    }

    /** The field's name in the record's JSON. */
    public String wireName() {
        return wireName;
    }

    public Shape shape() {
        return shape;
    }

    /** {@link Shape#TEXT}: the most characters; {@link Shape#IDS}: the most ids; else 0. */
    public int max() {
        return max;
    }

    /** Why the field's {@code value} is refused, or null when its shape's bound holds. */
    public String outOfBounds(long value) {
        if (shape == Shape.POSITIVE && value <= 0) {
            return "must be > 0, was " + value;
        }
        if (shape == Shape.NON_NEGATIVE && value < 0) {
            return "must be >= 0, was " + value;
        }
        return null;
    }

    /** Why a text or an array of {@code length} is refused, or null when it is within the bound. */
    public String tooLong(int length) {
        if (length <= max) {
            return null;
        }
        return shape == Shape.IDS
                ? "more than " + max + " ids"
                : "longer than " + max + " characters";
    }

    /** The reason for a record that lacks the field. */
    public String missing() {
        return wireName + ": missing";
    }

    /** The reason, {@code problem} prefixed with the field's name. */
    public String refusal(String problem) {
        return wireName + ": " + problem;
    }
}
