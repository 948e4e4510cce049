package dev.unread.events;

import static dev.unread.events.RecordFields.COUNT_PREFERENCE;
import static dev.unread.events.RecordFields.FOLLOWING;
import static dev.unread.events.RecordFields.IGNORE_CHANNEL_MENTIONS;
import static dev.unread.events.RecordFields.MENTIONED;
import static dev.unread.events.RecordFields.MENTIONS_ALL;
import static dev.unread.events.RecordFields.MESSAGE_ID;
import static dev.unread.events.RecordFields.TYPE;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.DupDetector;
import java.io.IOException;
import java.util.Arrays;

/**
 * Reads, with Jackson's streaming parser, the records {@link CompactRecordScan} hands over: any
 * valid JSON, and every kind of bad input, refused with Jackson's reason. A streaming parser rather
 * than a tree lets unknown fields be skipped unread.
 *
 * <p>Jackson's own duplicate detection is off: it keeps a HashSet per object, a quarter of the
 * parse. The known fields are checked by {@link RecordFields#seen} instead, and only unknown names,
 * which valid traffic rarely has, go through a DupDetector; any duplicate is refused with the
 * reason Jackson gave, as the contract refuses duplicate fields of any name.
 *
 * <p>Not thread-safe, as {@link EventParser} is not.
 */
final class JacksonRecordReader {

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
    private static final char[] MESSAGE_EDITED =
            dev.unread.contract.EventJson.MESSAGE_EDITED.toCharArray();
    private static final char[] ALL_READ = dev.unread.contract.EventJson.ALL_READ.toCharArray();
    private static final char[] USER_ERASED =
            dev.unread.contract.EventJson.USER_ERASED.toCharArray();

    /** The count preferences, at their value's index (ChatEvent.ALL, MENTIONS, NONE). */
    private static final char[][] PREFERENCES = {
        dev.unread.contract.EventJson.ALL.toCharArray(),
        dev.unread.contract.EventJson.MENTIONS.toCharArray(),
        dev.unread.contract.EventJson.NONE.toCharArray()
    };

    private final JsonFactory json =
            JsonFactory.builder().streamReadConstraints(EventParser.WITHIN_ONE_RECORD).build();

    /** The unknown top-level names of the record being read. */
    private final DupDetector unknownNames = DupDetector.rootDetector((JsonParser) null);

    /** Reads {@code value}, which {@code fields} holds nothing of yet, into {@code fields}. */
    void read(byte[] value, RecordFields fields) throws InvalidRecordException {
        unknownNames.reset();
        try (JsonParser p = json.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new InvalidRecordException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                // Jackson canonicalizes field names: a known name costs a lookup, not a String.
                String name = p.currentName();
                int field = RecordFields.field(name);
                if (field == 0 ? unknownNames.isDup(name) : (fields.seen & field) != 0) {
                    throw duplicate(name);
                }
                fields.seen |= field;
                JsonToken token = p.nextToken();
                if (field == TYPE) {
                    readType(fields, p, token);
                } else if (field == MESSAGE_ID) {
                    checkMessageId(fields, p, token);
                } else if (field == MENTIONED
                        || field == FOLLOWING
                        || field == MENTIONS_ALL
                        || field == IGNORE_CHANNEL_MENTIONS) {
                    readFlag(fields, field, p, token);
                } else if (field == COUNT_PREFERENCE) {
                    readPreference(fields, p, token);
                } else if (field != 0) {
                    readLong(fields, field, p, token);
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
            throw new InvalidRecordException("malformed JSON: " + EventParser.detail(e));
        }
    }

    /**
     * Stores an integer field's value and sets its present bit; null leaves the field absent, and a
     * value that is no long is noted, for the record's kind to refuse if the field is its own.
     */
    private static void readLong(RecordFields fields, int field, JsonParser p, JsonToken token)
            throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token != JsonToken.VALUE_NUMBER_INT) {
            fields.invalid(field, "must be an integer");
            skip(p, token);
            return;
        }
        JsonParser.NumberType type = p.getNumberType();
        if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
            fields.invalid(field, "out of range (1..2^63-1)");
            return;
        }
        fields.set(field, p.getLongValue());
    }

    /** Compares the type's characters in Jackson's buffer, so that a known type makes no String. */
    private static void readType(RecordFields fields, JsonParser p, JsonToken token)
            throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token != JsonToken.VALUE_STRING) {
            fields.invalid(TYPE, "must be text");
            skip(p, token);
            return;
        }
        fields.present |= TYPE;
        char[] chars = p.getTextCharacters();
        int offset = p.getTextOffset();
        int length = p.getTextLength();
        if (matches(INBOX_OPENED, chars, offset, length)) {
            fields.readKind = ChatEvent.Kind.INBOX_OPENED;
        } else if (matches(CONVERSATION_READ, chars, offset, length)) {
            fields.readKind = ChatEvent.Kind.CONVERSATION_READ;
        } else if (matches(CONVERSATION_PREFERENCE, chars, offset, length)) {
            fields.readKind = ChatEvent.Kind.CONVERSATION_PREFERENCE;
        } else if (matches(CONVERSATION_MARKED_UNREAD, chars, offset, length)) {
            fields.readKind = ChatEvent.Kind.CONVERSATION_MARKED_UNREAD;
        } else if (matches(THREAD_READ, chars, offset, length)) {
            fields.readKind = ChatEvent.Kind.THREAD_READ;
        } else if (matches(THREAD_FOLLOWED, chars, offset, length)) {
            fields.readKind = ChatEvent.Kind.THREAD_FOLLOWED;
        } else if (matches(MESSAGE_EDITED, chars, offset, length)) {
            fields.readKind = ChatEvent.Kind.MESSAGE_EDITED;
        } else if (matches(ALL_READ, chars, offset, length)) {
            fields.readKind = ChatEvent.Kind.ALL_READ;
        } else if (matches(USER_ERASED, chars, offset, length)) {
            fields.readKind = ChatEvent.Kind.USER_ERASED;
        } else {
            fields.unknownType = new String(chars, offset, length);
        }
    }

    private static boolean matches(char[] expected, char[] chars, int offset, int length) {
        return length == expected.length
                && Arrays.equals(expected, 0, length, chars, offset, offset + length);
    }

    /** A flag ({@code mentioned}, {@code following}, ...): true or false; null leaves it absent. */
    private static void readFlag(RecordFields fields, int field, JsonParser p, JsonToken token)
            throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token != JsonToken.VALUE_TRUE && token != JsonToken.VALUE_FALSE) {
            fields.invalid(field, "must be true or false");
            skip(p, token);
            return;
        }
        fields.set(field, token == JsonToken.VALUE_TRUE ? 1 : 0);
    }

    /** {@code countPreference}: one of the contract's three names, exactly. */
    private static void readPreference(RecordFields fields, JsonParser p, JsonToken token)
            throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token == JsonToken.VALUE_STRING) {
            char[] chars = p.getTextCharacters();
            int offset = p.getTextOffset();
            int length = p.getTextLength();
            for (int i = 0; i < PREFERENCES.length; i++) {
                if (matches(PREFERENCES[i], chars, offset, length)) {
                    fields.set(COUNT_PREFERENCE, i);
                    return;
                }
            }
        }
        fields.invalid(COUNT_PREFERENCE, "must be \"ALL\", \"MENTIONS\" or \"NONE\"");
        skip(p, token);
    }

    /** The message id is only checked, never kept: its length is known once Jackson decoded it. */
    private static void checkMessageId(RecordFields fields, JsonParser p, JsonToken token)
            throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token != JsonToken.VALUE_STRING) {
            fields.invalid(MESSAGE_ID, "must be text");
            skip(p, token);
        } else if (p.getTextLength() > EventParser.MAX_MESSAGE_ID_CHARS) {
            fields.invalid(
                    MESSAGE_ID, "longer than " + EventParser.MAX_MESSAGE_ID_CHARS + " characters");
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
                "malformed JSON: " + EventParser.clip("Duplicate field '" + name + "'"));
    }
}
