package dev.unread.events;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.DupDetector;
import dev.unread.contract.InputField;
import dev.unread.contract.InputKind;
import java.io.IOException;
import java.util.Arrays;

/**
 * Reads, with Jackson's streaming parser, the records {@link CompactRecordScan} hands over: any
 * valid JSON, and every kind of bad input, refused with Jackson's reason; each known field by its
 * {@link InputField.Shape}. A streaming parser rather than a tree lets unknown fields be skipped
 * unread.
 *
 * <p>Jackson's own duplicate detection is off: it keeps a HashSet per object, a quarter of the
 * parse. The known fields are checked by {@link RecordFields#seen} instead, and only unknown names,
 * which valid traffic rarely has, go through a DupDetector; any duplicate is refused with the
 * reason Jackson gave, as the contract refuses duplicate fields of any name.
 *
 * <p>Not thread-safe, as the parsers are not.
 */
final class JacksonRecordReader {

    /** The count preferences' names, at their ordinal. */
    private static final char[][] PREFERENCES =
            Arrays.stream(InputField.CountPreference.values())
                    .map(preference -> preference.name().toCharArray())
                    .toArray(char[][]::new);

    private final JsonFactory json =
            JsonFactory.builder().streamReadConstraints(EventParser.WITHIN_ONE_RECORD).build();

    /**
     * For {@code chat-conversations}, read with Jackson's own detection on throughout, as that
     * topic always was: it words a duplicate name before a malformed value after it, where the
     * checks here find the value first, and the topic's reasons stay as they were.
     */
    private final JsonFactory strictJson =
            JsonFactory.builder()
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .streamReadConstraints(EventParser.WITHIN_ONE_RECORD)
                    .build();

    /** The unknown top-level names of the record being read. */
    private final DupDetector unknownNames = DupDetector.rootDetector((JsonParser) null);

    /**
     * Reads {@code value}, which {@code fields} holds nothing of yet, into {@code fields} by {@code
     * table}'s names.
     */
    void read(byte[] value, TopicFields table, RecordFields fields) throws InvalidRecordException {
        unknownNames.reset();
        JsonFactory factory = table.topic == InputKind.Topic.CONVERSATIONS ? strictJson : json;
        try (JsonParser p = factory.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new InvalidRecordException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                // Jackson canonicalizes field names: a known name costs a lookup, not a String.
                String name = p.currentName();
                InputField field = table.field(name);
                if (field == null ? unknownNames.isDup(name) : (fields.seen & bit(field)) != 0) {
                    throw duplicate(name);
                }
                JsonToken token = p.nextToken();
                if (field == null) {
                    // Unknown fields are allowed by the contract; skip them unread.
                    skip(p, token);
                    continue;
                }
                fields.seen |= bit(field);
                if (token == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (field.shape()) {
                    case POSITIVE, NON_NEGATIVE -> readLong(fields, field, p, token);
                    case FLAG -> readFlag(fields, field, p, token);
                    case TEXT -> checkText(fields, field, p, token);
                    case TYPE -> readType(fields, field, table, p, token);
                    case PREFERENCE -> readPreference(fields, field, p, token);
                    case IDS -> readIds(fields, field, p, token);
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

    private static long bit(InputField field) {
        return RecordFields.bit(field);
    }

    /**
     * Stores an integer field's value and sets its present bit; a value that is no long is noted,
     * for the record's kind to refuse if the field is its own.
     */
    private static void readLong(
            RecordFields fields, InputField field, JsonParser p, JsonToken token)
            throws IOException {
        if (token != JsonToken.VALUE_NUMBER_INT) {
            wrongType(fields, field, p, token);
            return;
        }
        if (!fitsLong(p)) {
            fields.invalid(field, InputField.OUT_OF_RANGE);
            return;
        }
        fields.set(field.ordinal(), p.getLongValue());
    }

    private static boolean fitsLong(JsonParser p) throws IOException {
        JsonParser.NumberType type = p.getNumberType();
        return type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG;
    }

    /** Compares the type's characters in Jackson's buffer, so that a known type makes no String. */
    private static void readType(
            RecordFields fields, InputField field, TopicFields table, JsonParser p, JsonToken token)
            throws IOException {
        if (token != JsonToken.VALUE_STRING) {
            wrongType(fields, field, p, token);
            return;
        }
        fields.present |= bit(field);
        char[] chars = p.getTextCharacters();
        int offset = p.getTextOffset();
        int length = p.getTextLength();
        fields.kind = table.kind(chars, offset, length);
        if (fields.kind == null) {
            fields.unknownType = new String(chars, offset, length);
        }
    }

    /** A flag ({@code mentioned}, {@code following}, ...): true or false. */
    private static void readFlag(
            RecordFields fields, InputField field, JsonParser p, JsonToken token)
            throws IOException {
        if (token != JsonToken.VALUE_TRUE && token != JsonToken.VALUE_FALSE) {
            wrongType(fields, field, p, token);
            return;
        }
        fields.set(field.ordinal(), token == JsonToken.VALUE_TRUE ? 1 : 0);
    }

    /** {@code countPreference}: one of the contract's names, exactly. */
    private static void readPreference(
            RecordFields fields, InputField field, JsonParser p, JsonToken token)
            throws IOException {
        if (token == JsonToken.VALUE_STRING) {
            char[] chars = p.getTextCharacters();
            int offset = p.getTextOffset();
            int length = p.getTextLength();
            for (int i = 0; i < PREFERENCES.length; i++) {
                if (length == PREFERENCES[i].length
                        && Arrays.equals(
                                PREFERENCES[i], 0, length, chars, offset, offset + length)) {
                    fields.set(field.ordinal(), i);
                    return;
                }
            }
        }
        wrongType(fields, field, p, token);
    }

    /** Text is only checked, never kept: its length is known once Jackson decoded it. */
    private static void checkText(
            RecordFields fields, InputField field, JsonParser p, JsonToken token)
            throws IOException {
        if (token != JsonToken.VALUE_STRING) {
            wrongType(fields, field, p, token);
            return;
        }
        String tooLong = field.tooLong(p.getTextLength());
        if (tooLong != null) {
            fields.invalid(field, tooLong);
        }
    }

    /** An array of user ids, at most the field's {@link InputField#max()}. */
    private static void readIds(
            RecordFields fields, InputField field, JsonParser p, JsonToken token)
            throws IOException {
        if (token != JsonToken.START_ARRAY) {
            wrongType(fields, field, p, token);
            return;
        }
        long[] ids = new long[16];
        int n = 0;
        String problem = null;
        JsonToken next;
        while ((next = p.nextToken()) != JsonToken.END_ARRAY && next != null) {
            if (problem != null) {
                skip(p, next);
            } else if (next != JsonToken.VALUE_NUMBER_INT
                    || !fitsLong(p)
                    || p.getLongValue() <= 0) {
                problem = InputField.NOT_AN_ID;
                skip(p, next);
            } else if (n == field.max()) {
                problem = field.tooLong(n + 1);
            } else {
                if (n == ids.length) {
                    ids = Arrays.copyOf(ids, 2 * n);
                }
                ids[n++] = p.getLongValue();
            }
        }
        if (problem != null) {
            fields.invalid(field, problem);
        } else {
            fields.present |= bit(field);
            fields.ids = Arrays.copyOf(ids, n);
        }
    }

    /** Notes the shape's reason and skips the value. */
    private static void wrongType(
            RecordFields fields, InputField field, JsonParser p, JsonToken token)
            throws IOException {
        fields.invalid(field, field.shape().wrongType());
        skip(p, token);
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
