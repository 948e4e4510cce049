package dev.unread.events;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.DupDetector;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Parses and validates the two input topics exactly as "Input" in docs/contract.md says. A
 * streaming parser rather than a tree: it is the hot path, and it lets unknown fields be skipped
 * unread.
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

    // One bit per known field, for both the fields seen and those with a non-null value.
    private static final int SENDER_ID = 1;
    private static final int RECEIVER_ID = 1 << 1;
    private static final int SENT_AT = 1 << 2;
    private static final int CONVERSATION_ID = 1 << 3;
    private static final int SEQ = 1 << 4;
    private static final int USER_ID = 1 << 5;
    private static final int READ_AT = 1 << 6;
    private static final int READ_SEQ = 1 << 7;
    private static final int TYPE = 1 << 8;
    private static final int MESSAGE_ID = 1 << 9;
    private static final int MENTIONED = 1 << 10;
    private static final int COUNT_PREFERENCE = 1 << 11;
    private static final int SET_AT = 1 << 12;
    private static final int MARKED_AT = 1 << 13;
    private static final int THREAD_SEQ = 1 << 14;
    private static final int FOLLOWING = 1 << 15;

    /** Bits of the fields; the array slots per field. */
    private static final int FIELDS = 16;

    private static final char[] INBOX_OPENED =
            dev.unread.contract.EventJson.INBOX_OPENED.toCharArray();
    private static final char[] CONVERSATION_READ =
            dev.unread.contract.EventJson.CONVERSATION_READ.toCharArray();
    private static final char[] CONVERSATION_PREFERENCE =
            dev.unread.contract.EventJson.CONVERSATION_PREFERENCE.toCharArray();
    private static final char[] CONVERSATION_MARKED_UNREAD =
            dev.unread.contract.EventJson.CONVERSATION_MARKED_UNREAD.toCharArray();
    private static final char[] THREAD_READ =
            dev.unread.contract.EventJson.THREAD_READ.toCharArray();
    private static final char[] THREAD_FOLLOWED =
            dev.unread.contract.EventJson.THREAD_FOLLOWED.toCharArray();

    /** The count preferences, at their value's index (ChatEvent.ALL, MENTIONS, NONE). */
    private static final char[][] PREFERENCES = {
        dev.unread.contract.EventJson.ALL.toCharArray(),
        dev.unread.contract.EventJson.MENTIONS.toCharArray(),
        dev.unread.contract.EventJson.NONE.toCharArray()
    };

    /** The known names in UTF-8, at the index of their field's bit. */
    private static final byte[][] NAMES =
            utf8(
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
                    "following");

    private static final byte[] INBOX_OPENED_UTF8 =
            utf8(dev.unread.contract.EventJson.INBOX_OPENED)[0];
    private static final byte[] CONVERSATION_READ_UTF8 =
            utf8(dev.unread.contract.EventJson.CONVERSATION_READ)[0];

    /** Longer runs of digits may not fit a long; Jackson decides those. */
    private static final int MAX_COMPACT_DIGITS = 18;

    /*
     * Most records never reach Jackson (see scanCompact). For those that do, Jackson's own
     * duplicate detection is off: it keeps a HashSet per object, a quarter of the parse. The known
     * fields are checked by a bitmask instead, and only unknown names, which valid traffic rarely
     * has, go through a DupDetector; any duplicate is refused with the reason Jackson gave, as
     * the contract refuses duplicate fields of any name.
     */
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

    private final JsonFactory json =
            JsonFactory.builder().streamReadConstraints(WITHIN_ONE_RECORD).build();

    /** False only in tests, which compare the compact scan with Jackson's parse. */
    private final boolean scanCompact;

    /** The unknown top-level names of the record being parsed. */
    private final DupDetector unknownNames = DupDetector.rootDetector((JsonParser) null);

    // The record being parsed: which fields it has named, which of them are not null, which of
    // those have a value of the wrong type (refused only if the record's kind has the field), and
    // their values. A value is meaningful only while its bit is set in present.
    private int seen;
    private int present;
    private int invalid;

    /** Why, for each bit set in invalid: constants, so that a refusal costs no string. */
    private final String[] problems = new String[FIELDS];

    /**
     * Indexed by the field's bit number: integers as they are, {@code mentioned} as 1 or 0, {@code
     * countPreference} as ChatEvent's value for it.
     */
    private final long[] values = new long[FIELDS];

    private ChatEvent.Kind readKind;

    /** The text of a type the contract does not know, kept for the reason only. */
    private String unknownType;

    public EventParser() {
        this(true);
    }

    EventParser(boolean scanCompact) {
        this.scanCompact = scanCompact;
    }

    /** A {@code chat-messages} value. */
    public ChatEvent parseMessage(byte[] value) throws InvalidRecordException {
        read(value);
        long senderId = requirePositive("senderId", SENDER_ID);
        long receiverId = requirePositive("receiverId", RECEIVER_ID);
        long sentAt = requirePositive("sentAt", SENT_AT);
        if ((invalid & MESSAGE_ID) != 0) {
            throw refused("messageId", MESSAGE_ID);
        }
        if ((invalid & MENTIONED) != 0) {
            throw refused("mentioned", MENTIONED);
        }
        int given = present | invalid;
        boolean conversation = (given & CONVERSATION_ID) != 0;
        if (conversation != ((given & SEQ) != 0)) {
            throw new InvalidRecordException("conversationId and seq must come together");
        }
        if (!conversation) {
            if (((present | invalid) & THREAD_SEQ) != 0) {
                throw new InvalidRecordException("threadSeq: needs conversationId and seq");
            }
            return ChatEvent.message(senderId, receiverId, sentAt);
        }
        long conversationId = requirePositive("conversationId", CONVERSATION_ID);
        long seq = requirePositive("seq", SEQ);
        ChatEvent message = ChatEvent.message(senderId, receiverId, conversationId, seq, sentAt);
        message.mentioned = (present & MENTIONED) != 0 && values[bit(MENTIONED)] == 1;
        if (((present | invalid) & THREAD_SEQ) != 0) {
            message.threadSeq = threadSeq(requirePositive("threadSeq", THREAD_SEQ), seq);
        }
        return message;
    }

    /** A {@code chat-reads} value. */
    public ChatEvent parseRead(byte[] value) throws InvalidRecordException {
        read(value);
        if ((invalid & TYPE) != 0) {
            throw refused("type", TYPE);
        }
        if ((present & TYPE) == 0) {
            throw new InvalidRecordException("type: missing");
        }
        if (readKind == ChatEvent.Kind.INBOX_OPENED) {
            return ChatEvent.inboxOpened(
                    requirePositive("userId", USER_ID), requirePositive("readAt", READ_AT));
        }
        if (readKind == ChatEvent.Kind.CONVERSATION_READ) {
            long userId = requirePositive("userId", USER_ID);
            long conversationId = requirePositive("conversationId", CONVERSATION_ID);
            long readSeq = requireNonNegative("readSeq", READ_SEQ);
            long readAt = requirePositive("readAt", READ_AT);
            return ChatEvent.conversationRead(userId, conversationId, readSeq, readAt);
        }
        if (readKind == ChatEvent.Kind.CONVERSATION_PREFERENCE) {
            long userId = requirePositive("userId", USER_ID);
            long conversationId = requirePositive("conversationId", CONVERSATION_ID);
            long preference = require("countPreference", COUNT_PREFERENCE);
            long setAt = requirePositive("setAt", SET_AT);
            return ChatEvent.preference(userId, conversationId, preference, setAt);
        }
        if (readKind == ChatEvent.Kind.CONVERSATION_MARKED_UNREAD) {
            long userId = requirePositive("userId", USER_ID);
            long conversationId = requirePositive("conversationId", CONVERSATION_ID);
            long markedAt = requirePositive("markedAt", MARKED_AT);
            return ChatEvent.markedUnread(userId, conversationId, markedAt);
        }
        if (readKind == ChatEvent.Kind.THREAD_READ) {
            long userId = requirePositive("userId", USER_ID);
            long conversationId = requirePositive("conversationId", CONVERSATION_ID);
            long threadSeq = requirePositive("threadSeq", THREAD_SEQ);
            long readSeq = requireNonNegative("readSeq", READ_SEQ);
            long readAt = requirePositive("readAt", READ_AT);
            return ChatEvent.threadRead(userId, conversationId, threadSeq, readSeq, readAt);
        }
        if (readKind == ChatEvent.Kind.THREAD_FOLLOWED) {
            long userId = requirePositive("userId", USER_ID);
            long conversationId = requirePositive("conversationId", CONVERSATION_ID);
            long threadSeq = requirePositive("threadSeq", THREAD_SEQ);
            long following = require("following", FOLLOWING);
            long setAt = requirePositive("setAt", SET_AT);
            return ChatEvent.threadFollowed(
                    userId, conversationId, threadSeq, following == 1, setAt);
        }
        throw new InvalidRecordException("type: unknown " + clip(unknownType));
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
        clear();
        if (scanCompact && scanCompact(value)) {
            return;
        }
        // The scan accepts ASCII only, so only what Jackson reads needs the check; Jackson's own
        // decoding takes overlong forms and surrogates, and guesses UTF-16 and UTF-32.
        Utf8.check(value);
        // The scan may have filled some fields before it handed the record over.
        clear();
        readWithJackson(value);
    }

    private void readWithJackson(byte[] value) throws InvalidRecordException {
        try (JsonParser p = json.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new InvalidRecordException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                // Jackson canonicalizes field names: a known name costs a lookup, not a String.
                String name = p.currentName();
                int field = field(name);
                if (field == 0 ? unknownNames.isDup(name) : (seen & field) != 0) {
                    throw duplicate(name);
                }
                seen |= field;
                JsonToken token = p.nextToken();
                if (field == TYPE) {
                    readType(p, token);
                } else if (field == MESSAGE_ID) {
                    checkMessageId(p, token);
                } else if (field == MENTIONED || field == FOLLOWING) {
                    readFlag(field, p, token);
                } else if (field == COUNT_PREFERENCE) {
                    readPreference(p, token);
                } else if (field != 0) {
                    readLong(field, p, token);
                } else {
                    // Unknown fields are allowed by the contract; skip them unread.
                    skip(p, token);
                }
            }
            if (p.nextToken() != null) {
                throw new InvalidRecordException("trailing data after the JSON object");
            }
        } catch (IOException | RuntimeException e) {
            // Jackson reports most bad input as IOException, a few corner cases unchecked; input
            // must never fail the job, so both are a refused record.
            throw new InvalidRecordException("malformed JSON: " + detail(e));
        }
    }

    private void clear() {
        seen = 0;
        present = 0;
        invalid = 0;
        readKind = null;
        unknownType = null;
        unknownNames.reset();
    }

    /**
     * Reads the record without Jackson if it is in the compact form producers write (EventJson's):
     * known names only, each once, integers of plain digits, type and message id in ASCII without
     * escapes, no whitespace, nothing after the object. Anything else, valid or not, returns false
     * for Jackson to decide, so this only ever accepts what Jackson parses to the same fields; it
     * is the common case, and it skips creating a Jackson parser per record.
     */
    private boolean scanCompact(byte[] v) {
        int n = v.length;
        if (v[0] != '{') {
            return false;
        }
        int i = 1;
        while (true) {
            if (i >= n || v[i] != '"') {
                return false;
            }
            int start = ++i;
            while (i < n && isNameByte(v[i])) {
                i++;
            }
            if (i + 1 >= n || v[i] != '"' || v[i + 1] != ':') {
                return false;
            }
            int field = knownField(v, start, i);
            if (field == 0 || (seen & field) != 0) {
                return false;
            }
            seen |= field;
            i += 2;
            if (field == TYPE || field == MESSAGE_ID) {
                if (i >= n || v[i] != '"') {
                    return false;
                }
                start = ++i;
                while (i < n && isPlainTextByte(v[i])) {
                    i++;
                }
                if (i >= n || v[i] != '"') {
                    return false;
                }
                if (field == TYPE) {
                    int length = i - start;
                    if (length == INBOX_OPENED.length && equalBytes(v, start, INBOX_OPENED_UTF8)) {
                        readKind = ChatEvent.Kind.INBOX_OPENED;
                    } else if (length == CONVERSATION_READ.length
                            && equalBytes(v, start, CONVERSATION_READ_UTF8)) {
                        readKind = ChatEvent.Kind.CONVERSATION_READ;
                    } else {
                        return false;
                    }
                    present |= TYPE;
                } else if (i - start > MAX_MESSAGE_ID_CHARS) {
                    return false;
                }
                i++;
            } else {
                start = i;
                long value = 0;
                while (i < n && v[i] >= '0' && v[i] <= '9') {
                    value = value * 10 + (v[i] - '0');
                    i++;
                }
                int digits = i - start;
                // JSON has no leading zeros; Jackson refuses them, so they are its to word.
                if (digits == 0 || digits > MAX_COMPACT_DIGITS || (v[start] == '0' && digits > 1)) {
                    return false;
                }
                present |= field;
                values[Integer.numberOfTrailingZeros(field)] = value;
            }
            if (i >= n) {
                return false;
            }
            if (v[i] == '}') {
                return i + 1 == n;
            }
            if (v[i] != ',') {
                return false;
            }
            i++;
        }
    }

    private static boolean isNameByte(byte b) {
        return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
    }

    /** Printable ASCII that a JSON string holds as itself: not a quote, not an escape. */
    private static boolean isPlainTextByte(byte b) {
        return b >= 0x20 && b < 0x7F && b != '"' && b != '\\';
    }

    /** The name's length and first letter pick the one candidate, then its bytes are compared. */
    private static int knownField(byte[] v, int from, int to) {
        int bit;
        switch (to - from) {
            case 3:
                bit = 4;
                break;
            case 4:
                bit = 8;
                break;
            case 6:
                bit = v[from] == 's' ? 2 : v[from] == 'u' ? 5 : 6;
                break;
            case 7:
                bit = 7;
                break;
            case 8:
                bit = 0;
                break;
            case 9:
                bit = v[from] == 'm' ? 9 : v[from] == 't' ? 14 : 15;
                break;
            case 10:
                bit = 1;
                break;
            case 14:
                bit = 3;
                break;
            default:
                return 0;
        }
        return equalBytes(v, from, NAMES[bit]) ? 1 << bit : 0;
    }

    /** Whether {@code v} holds {@code expected} at {@code from}; the caller checked the length. */
    private static boolean equalBytes(byte[] v, int from, byte[] expected) {
        for (int i = 0; i < expected.length; i++) {
            if (v[from + i] != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private static byte[][] utf8(String... texts) {
        byte[][] bytes = new byte[texts.length][];
        for (int i = 0; i < texts.length; i++) {
            bytes[i] = texts[i].getBytes(StandardCharsets.UTF_8);
        }
        return bytes;
    }

    private static int field(String name) {
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
            default:
                return 0;
        }
    }

    /**
     * Stores an integer field's value and sets its present bit; null leaves the field absent, and a
     * value that is no long is noted, for the record's kind to refuse if the field is its own.
     */
    private void readLong(int field, JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token != JsonToken.VALUE_NUMBER_INT) {
            invalid(field, "must be an integer");
            skip(p, token);
            return;
        }
        JsonParser.NumberType type = p.getNumberType();
        if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
            invalid(field, "out of range (1..2^63-1)");
            return;
        }
        present |= field;
        values[Integer.numberOfTrailingZeros(field)] = p.getLongValue();
    }

    private void invalid(int field, String problem) {
        invalid |= field;
        problems[Integer.numberOfTrailingZeros(field)] = problem;
    }

    private InvalidRecordException refused(String name, int field) {
        return new InvalidRecordException(
                name + ": " + problems[Integer.numberOfTrailingZeros(field)]);
    }

    /** Compares the type's characters in Jackson's buffer, so that a known type makes no String. */
    private void readType(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token != JsonToken.VALUE_STRING) {
            invalid(TYPE, "must be text");
            skip(p, token);
            return;
        }
        present |= TYPE;
        char[] chars = p.getTextCharacters();
        int offset = p.getTextOffset();
        int length = p.getTextLength();
        if (matches(INBOX_OPENED, chars, offset, length)) {
            readKind = ChatEvent.Kind.INBOX_OPENED;
        } else if (matches(CONVERSATION_READ, chars, offset, length)) {
            readKind = ChatEvent.Kind.CONVERSATION_READ;
        } else if (matches(CONVERSATION_PREFERENCE, chars, offset, length)) {
            readKind = ChatEvent.Kind.CONVERSATION_PREFERENCE;
        } else if (matches(CONVERSATION_MARKED_UNREAD, chars, offset, length)) {
            readKind = ChatEvent.Kind.CONVERSATION_MARKED_UNREAD;
        } else if (matches(THREAD_READ, chars, offset, length)) {
            readKind = ChatEvent.Kind.THREAD_READ;
        } else if (matches(THREAD_FOLLOWED, chars, offset, length)) {
            readKind = ChatEvent.Kind.THREAD_FOLLOWED;
        } else {
            unknownType = new String(chars, offset, length);
        }
    }

    private static boolean matches(char[] expected, char[] chars, int offset, int length) {
        return length == expected.length
                && Arrays.equals(expected, 0, length, chars, offset, offset + length);
    }

    /** {@code mentioned} or {@code following}: true or false; null leaves it absent. */
    private void readFlag(int field, JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token != JsonToken.VALUE_TRUE && token != JsonToken.VALUE_FALSE) {
            invalid(field, "must be true or false");
            skip(p, token);
            return;
        }
        present |= field;
        values[bit(field)] = token == JsonToken.VALUE_TRUE ? 1 : 0;
    }

    /** {@code countPreference}: one of the contract's three names, exactly. */
    private void readPreference(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token == JsonToken.VALUE_STRING) {
            char[] chars = p.getTextCharacters();
            int offset = p.getTextOffset();
            int length = p.getTextLength();
            for (int i = 0; i < PREFERENCES.length; i++) {
                if (matches(PREFERENCES[i], chars, offset, length)) {
                    present |= COUNT_PREFERENCE;
                    values[bit(COUNT_PREFERENCE)] = i;
                    return;
                }
            }
        }
        invalid(COUNT_PREFERENCE, "must be \"ALL\", \"MENTIONS\" or \"NONE\"");
        skip(p, token);
    }

    private static int bit(int field) {
        return Integer.numberOfTrailingZeros(field);
    }

    /** The message id is only checked, never kept: its length is known once Jackson decoded it. */
    private void checkMessageId(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token != JsonToken.VALUE_STRING) {
            invalid(MESSAGE_ID, "must be text");
            skip(p, token);
        } else if (p.getTextLength() > MAX_MESSAGE_ID_CHARS) {
            invalid(MESSAGE_ID, "longer than " + MAX_MESSAGE_ID_CHARS + " characters");
        }
    }

    /**
     * Skips a value unread, refusing duplicate names in the objects inside it. Jackson's duplicate
     * detection is turned on here, where the parser has just entered the value: it then covers this
     * value and every one skipped after it (each level's context is reused, detector and all), and
     * never the record's own level, which the bitmask and unknownNames check.
     */
    private static void skip(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
            p.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
            p.skipChildren();
        }
    }

    /** Worded as Jackson's strict duplicate detection worded it, which the reasons kept. */
    private static InvalidRecordException duplicate(String name) {
        return new InvalidRecordException(
                "malformed JSON: " + clip("Duplicate field '" + name + "'"));
    }

    private long requirePositive(String name, int field) throws InvalidRecordException {
        long v = require(name, field);
        if (v <= 0) {
            throw new InvalidRecordException(name + ": must be > 0, was " + v);
        }
        return v;
    }

    private long requireNonNegative(String name, int field) throws InvalidRecordException {
        long v = require(name, field);
        if (v < 0) {
            throw new InvalidRecordException(name + ": must be >= 0, was " + v);
        }
        return v;
    }

    private long require(String name, int field) throws InvalidRecordException {
        if ((invalid & field) != 0) {
            throw refused(name, field);
        }
        if ((present & field) == 0) {
            throw new InvalidRecordException(name + ": missing");
        }
        return values[Integer.numberOfTrailingZeros(field)];
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
