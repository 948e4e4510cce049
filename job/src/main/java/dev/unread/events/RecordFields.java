package dev.unread.events;

import dev.unread.contract.InputField;
import dev.unread.contract.InputKind;

/**
 * The catalog's fields ({@link InputField}) of the record being parsed, as {@link
 * CompactRecordScan} or {@link JacksonRecordReader} filled them, and the checks the parsers build
 * their events with; every reason names the field and words its problem as the catalog does.
 * Bitmasks and arrays rather than a holder per record: the parser is the hot path.
 *
 * <p>A field's bit is {@code 1L << ordinal}. A field is in {@code seen} once named, in {@code
 * present} once it holds a non-null value of its shape, in {@code invalid} once it holds a value of
 * another, refused only if the record's kind has the field. A value is meaningful only while its
 * bit is set in {@code present}.
 */
final class RecordFields {

    long seen;
    long present;
    long invalid;

    /** Why, for each bit set in invalid: constants or the catalog's words, never the input's. */
    private final String[] problems = new String[TopicFields.FIELDS.length];

    /**
     * Indexed by the field's ordinal: integers as they are, flags as 1 or 0, {@code
     * countPreference} as the ordinal of its {@link InputField.CountPreference}.
     */
    final long[] values = new long[TopicFields.FIELDS.length];

    /** The ids of the one {@link InputField.Shape#IDS} field, {@code mentions}. */
    long[] ids = NO_IDS;

    /** The kind the record's type names, among its topic's; null while none does. */
    InputKind kind;

    /** The text of a type the topic does not know, kept for the reason only. */
    String unknownType;

    static final long[] NO_IDS = new long[0];

    /** Indexed by an {@link InputKind}'s ordinal: the bits of its optional fields. */
    private static final long[] OPTIONAL = optionalBits();

    private static long[] optionalBits() {
        InputKind[] kinds = InputKind.values();
        long[] bits = new long[kinds.length];
        for (InputKind kind : kinds) {
            for (InputField field : kind.optional()) {
                bits[kind.ordinal()] |= bit(field);
            }
        }
        return bits;
    }

    void clear() {
        seen = 0;
        present = 0;
        invalid = 0;
        ids = NO_IDS;
        kind = null;
        unknownType = null;
    }

    static long bit(InputField field) {
        return 1L << field.ordinal();
    }

    void set(int bit, long value) {
        present |= 1L << bit;
        values[bit] = value;
    }

    void invalid(InputField field, String problem) {
        invalid |= bit(field);
        problems[field.ordinal()] = problem;
    }

    /** Named, with a value of its shape or not: the record gives the field. */
    boolean given(InputField field) {
        return ((present | invalid) & bit(field)) != 0;
    }

    boolean has(InputField field) {
        return (present & bit(field)) != 0;
    }

    /** Refuses the record when the field holds a value of another shape. */
    void check(InputField field) throws InvalidRecordException {
        if ((invalid & bit(field)) != 0) {
            throw new InvalidRecordException(field.refusal(problems[field.ordinal()]));
        }
    }

    /**
     * The bits of the optional fields of {@code kind} the record gives, each checked: refused when
     * of another shape or, an integer, out of its bounds. The parsers check the fields they know
     * first, in the order their reasons have always come; this checks any other, in the catalog's
     * order, after them. The event keeps these bits' values, each in its slot.
     */
    long optional(InputKind kind) throws InvalidRecordException {
        long given = (present | invalid) & OPTIONAL[kind.ordinal()];
        for (long rest = given; rest != 0; rest &= rest - 1) {
            InputField field = TopicFields.FIELDS[Long.numberOfTrailingZeros(rest)];
            if (field.shape().integer()) {
                require(field);
            } else {
                check(field);
            }
        }
        return given;
    }

    /** A field the record must have, within its shape's bounds. */
    long require(InputField field) throws InvalidRecordException {
        int i = field.ordinal();
        long bit = 1L << i;
        if ((present & bit) == 0 || (invalid & bit) != 0) {
            check(field);
            throw new InvalidRecordException(field.missing());
        }
        long v = values[i];
        // Both integer shapes' bounds hold for every positive value, the common case.
        if (v <= 0) {
            String problem = field.outOfBounds(v);
            if (problem != null) {
                throw new InvalidRecordException(field.refusal(problem));
            }
        }
        return v;
    }
}
