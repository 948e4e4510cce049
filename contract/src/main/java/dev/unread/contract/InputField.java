package dev.unread.contract;

import java.util.Arrays;

/**
 * The fields of the input topics' records (docs/contract.md, "Input"), each named once with its
 * JSON shape and bounds; which records carry a field, and whether they require it, is {@link
 * InputKind}'s. The parsers' field tables and their reasons for refusing a value, and the writer's
 * formatting ({@link InputJson}), follow from these.
 */
public enum InputField {
    SENDER_ID("senderId", Shape.POSITIVE),
    RECEIVER_ID("receiverId", Shape.POSITIVE),
    SENT_AT("sentAt", Shape.POSITIVE),
    CONVERSATION_ID("conversationId", Shape.POSITIVE),
    SEQ("seq", Shape.POSITIVE),
    USER_ID("userId", Shape.POSITIVE),
    READ_AT("readAt", Shape.POSITIVE),
    READ_SEQ("readSeq", Shape.NON_NEGATIVE),
    TYPE("type", Shape.TYPE),
    /** Checked, never kept. */
    MESSAGE_ID("messageId", Shape.TEXT, 128),
    MENTIONED("mentioned", Shape.FLAG),
    COUNT_PREFERENCE("countPreference", Shape.PREFERENCE),
    SET_AT("setAt", Shape.POSITIVE),
    MARKED_AT("markedAt", Shape.POSITIVE),
    THREAD_SEQ("threadSeq", Shape.POSITIVE),
    FOLLOWING("following", Shape.FLAG),
    ROOT_SENDER_ID("rootSenderId", Shape.POSITIVE),
    EDITED_AT("editedAt", Shape.POSITIVE),
    MENTIONS_ALL("mentionsAll", Shape.FLAG),
    IGNORE_CHANNEL_MENTIONS("ignoreChannelMentions", Shape.FLAG),
    ERASED_AT("erasedAt", Shape.POSITIVE),
    /** Checked, never kept: no count depends on it. */
    DELETED_AT("deletedAt", Shape.POSITIVE),
    MENTIONS("mentions", Shape.IDS, 1000);

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

    InputField(String wireName, Shape shape) {
        this(wireName, shape, 0);
    }

    InputField(String wireName, Shape shape, int max) {
        this.wireName = wireName;
        this.shape = shape;
        this.max = max;
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
