package dev.unread.events;

import dev.unread.contract.InputField;
import dev.unread.contract.InputKind;

/**
 * Reads a record without Jackson if it is in the compact form producers write (EventJson's): names
 * its topic knows only, each once, integers of plain digits, a known type and text in ASCII without
 * escapes, no whitespace, nothing after the object. Anything else, valid or not, is handed to
 * Jackson, so this only ever accepts what Jackson parses to the same fields; it is the common case,
 * and it skips creating a Jackson parser per record.
 */
final class CompactRecordScan {

    /** Longer runs of digits may not fit a long; Jackson decides those. */
    private static final int MAX_COMPACT_DIGITS = 18;

    /** What the scan reads at each field's bit: bytes here rather than a look at its shape. */
    private static final byte OTHER = 0, INTEGER = 1, TEXT = 2, TYPE = 3;

    private static final byte[] READ = new byte[TopicFields.FIELDS.length];

    /** The most characters of each text field, at its bit. */
    private static final int[] MAX = new int[TopicFields.FIELDS.length];

    static {
        for (InputField field : TopicFields.FIELDS) {
            InputField.Shape shape = field.shape();
            READ[field.ordinal()] =
                    shape.integer()
                            ? INTEGER
                            : shape == InputField.Shape.TEXT
                                    ? TEXT
                                    : shape == InputField.Shape.TYPE ? TYPE : OTHER;
            MAX[field.ordinal()] = field.max();
        }
    }

    private CompactRecordScan() {}

    /**
     * Whether {@code v} was in the compact form and read into {@code fields} by {@code table}'s
     * names; if not, {@code fields} may hold part of it.
     */
    static boolean read(byte[] v, TopicFields table, RecordFields fields) {
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
            int bit = table.bit(v, start, i);
            if (bit < 0 || (fields.seen & (1L << bit)) != 0) {
                return false;
            }
            fields.seen |= 1L << bit;
            i += 2;
            byte read = READ[bit];
            if (read == TYPE || read == TEXT) {
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
                if (read == TYPE) {
                    InputKind kind = table.kind(v, start, i);
                    if (kind == null) {
                        return false;
                    }
                    fields.kind = kind;
                    fields.present |= 1L << bit;
                } else if (i - start > MAX[bit]) {
                    return false;
                }
                i++;
            } else if (read == INTEGER) {
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
                fields.set(bit, value);
            } else {
                return false;
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
}
