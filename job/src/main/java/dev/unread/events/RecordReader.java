package dev.unread.events;

import dev.unread.contract.InputKind;

/**
 * Reads one record of an input topic into its {@link RecordFields}, under the rules of every topic
 * (docs/contract.md, "Rules for both topics"): a size limit, strict UTF-8, one JSON object. The
 * compact scan first, Jackson for whatever it hands over.
 *
 * <p>Not thread-safe: the fields of the record being read live in the instance, so that a record
 * costs no holder objects.
 */
final class RecordReader {

    private final JacksonRecordReader jackson = new JacksonRecordReader();

    /** False only in tests, which compare the compact scan with Jackson's parse. */
    private final boolean scanCompact;

    final RecordFields fields = new RecordFields();

    RecordReader(boolean scanCompact) {
        this.scanCompact = scanCompact;
    }

    /** Reads {@code value}, a record of {@code topic}, into {@link #fields}. */
    RecordFields read(byte[] value, InputKind.Topic topic) throws InvalidRecordException {
        if (value == null || value.length == 0) {
            throw new InvalidRecordException("empty record");
        }
        if (value.length > EventParser.MAX_RECORD_BYTES) {
            throw new InvalidRecordException(
                    "record of " + value.length + " bytes exceeds " + EventParser.MAX_RECORD_BYTES);
        }
        TopicFields table = TopicFields.of(topic);
        fields.clear();
        if (scanCompact && CompactRecordScan.read(value, table, fields)) {
            return fields;
        }
        // The scan accepts ASCII only, so only what Jackson reads needs the check; Jackson's own
        // decoding takes overlong forms and surrogates, and guesses UTF-16 and UTF-32.
        Utf8.check(value);
        // The scan may have filled some fields before it handed the record over.
        fields.clear();
        jackson.read(value, table, fields);
        return fields;
    }

    /** The reason for a record whose type its topic does not know. */
    static InvalidRecordException unknownType(RecordFields fields) {
        return new InvalidRecordException("type: unknown " + EventParser.clip(fields.unknownType));
    }
}
