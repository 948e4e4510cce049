package dev.unread.events;

/**
 * The known fields of the {@code chat-messages} or {@code chat-reads} record being parsed, as
 * {@link CompactRecordScan} or {@link JacksonRecordReader} filled them, and the checks {@link
 * EventParser} builds its events with. Bitmasks and arrays rather than a holder per record: the
 * parser is the hot path.
 *
 * <p>A field is in {@code seen} once named, in {@code present} once it holds a non-null value of
 * its type, in {@code invalid} once it holds a value of the wrong type, refused only if the
 * record's kind has the field. A value is meaningful only while its bit is set in {@code present}.
 */
final class RecordFields {

    // One bit per known field, for both the fields seen and those with a non-null value.
    static final int SENDER_ID = 1;
    static final int RECEIVER_ID = 1 << 1;
    static final int SENT_AT = 1 << 2;
    static final int CONVERSATION_ID = 1 << 3;
    static final int SEQ = 1 << 4;
    static final int USER_ID = 1 << 5;
    static final int READ_AT = 1 << 6;
    static final int READ_SEQ = 1 << 7;
    static final int TYPE = 1 << 8;
    static final int MESSAGE_ID = 1 << 9;
    static final int MENTIONED = 1 << 10;
    static final int COUNT_PREFERENCE = 1 << 11;
    static final int SET_AT = 1 << 12;
    static final int MARKED_AT = 1 << 13;
    static final int THREAD_SEQ = 1 << 14;
    static final int FOLLOWING = 1 << 15;
    static final int ROOT_SENDER_ID = 1 << 16;
    static final int EDITED_AT = 1 << 17;
    static final int MENTIONS_ALL = 1 << 18;
    static final int IGNORE_CHANNEL_MENTIONS = 1 << 19;
    static final int ERASED_AT = 1 << 20;

    /** Bits of the fields; the array slots per field. */
    private static final int FIELDS = 21;

    /** The known names, at the index of their field's bit. */
    static final String[] NAMES = {
        "senderId",
        "receiverId",
        "sentAt",
        "conversationId",
        "seq",
        "userId",
        "readAt",
        "readSeq",
        "type",
        "messageId",
        "mentioned",
        "countPreference",
        "setAt",
        "markedAt",
        "threadSeq",
        "following",
        "rootSenderId",
        "editedAt",
        "mentionsAll",
        "ignoreChannelMentions",
        "erasedAt"
    };

    int seen;
    int present;
    int invalid;

    /** Why, for each bit set in invalid: constants, so that a refusal costs no string. */
    private final String[] problems = new String[FIELDS];

    /**
     * Indexed by the field's bit number: integers as they are, flags ({@code mentioned}, {@code
     * mentionsAll}, ...) as 1 or 0, {@code countPreference} as ChatEvent's value for it.
     */
    final long[] values = new long[FIELDS];

    ChatEvent.Kind readKind;

    /** The text of a type the contract does not know, kept for the reason only. */
    String unknownType;

    void clear() {
        seen = 0;
        present = 0;
        invalid = 0;
        readKind = null;
        unknownType = null;
    }

    /** The field's bit for {@code name}, 0 for a name the contract does not know. */
    static int field(String name) {
        switch (name) {
            case "senderId":
                return SENDER_ID;
            case "receiverId":
                return RECEIVER_ID;
            case "sentAt":
                return SENT_AT;
            case "conversationId":
                return CONVERSATION_ID;
            case "seq":
                return SEQ;
            case "userId":
                return USER_ID;
            case "readAt":
                return READ_AT;
            case "readSeq":
                return READ_SEQ;
            case "type":
                return TYPE;
            case "messageId":
                return MESSAGE_ID;
            case "mentioned":
                return MENTIONED;
            case "countPreference":
                return COUNT_PREFERENCE;
            case "setAt":
                return SET_AT;
            case "markedAt":
                return MARKED_AT;
            case "threadSeq":
                return THREAD_SEQ;
            case "following":
                return FOLLOWING;
            case "rootSenderId":
                return ROOT_SENDER_ID;
            case "editedAt":
                return EDITED_AT;
            case "mentionsAll":
                return MENTIONS_ALL;
            case "ignoreChannelMentions":
                return IGNORE_CHANNEL_MENTIONS;
            case "erasedAt":
                return ERASED_AT;
            default:
                return 0;
        }
    }

    static int bit(int field) {
        return Integer.numberOfTrailingZeros(field);
    }

    void set(int field, long value) {
        present |= field;
        values[bit(field)] = value;
    }

    void invalid(int field, String problem) {
        invalid |= field;
        problems[bit(field)] = problem;
    }

    InvalidRecordException refused(String name, int field) {
        return new InvalidRecordException(name + ": " + problems[bit(field)]);
    }

    /** An optional flag: false when absent, refused when not a boolean. */
    boolean flag(String name, int field) throws InvalidRecordException {
        if ((invalid & field) != 0) {
            throw refused(name, field);
        }
        return (present & field) != 0 && values[bit(field)] == 1;
    }

    long requirePositive(String name, int field) throws InvalidRecordException {
        long v = require(name, field);
        if (v <= 0) {
            throw new InvalidRecordException(name + ": must be > 0, was " + v);
        }
        return v;
    }

    long requireNonNegative(String name, int field) throws InvalidRecordException {
        long v = require(name, field);
        if (v < 0) {
            throw new InvalidRecordException(name + ": must be >= 0, was " + v);
        }
        return v;
    }

    long require(String name, int field) throws InvalidRecordException {
        if ((invalid & field) != 0) {
            throw refused(name, field);
        }
        if ((present & field) == 0) {
            throw new InvalidRecordException(name + ": missing");
        }
        return values[bit(field)];
    }
}
