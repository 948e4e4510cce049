package dev.unread.events;

import static dev.unread.events.RecordFields.MESSAGE_ID;
import static dev.unread.events.RecordFields.TYPE;

import java.nio.charset.StandardCharsets;

/**
 * Reads a record without Jackson if it is in the compact form producers write (EventJson's): known
 * names only, each once, integers of plain digits, type and message id in ASCII without escapes, no
 * whitespace, nothing after the object. Anything else, valid or not, is handed to Jackson, so this
 * only ever accepts what Jackson parses to the same fields; it is the common case, and it skips
 * creating a Jackson parser per record.
 */
final class CompactRecordScan {

    /** The known names in UTF-8, at the index of their field's bit. */
    private static final byte[][] NAMES = utf8(RecordFields.NAMES);

    private static final byte[] INBOX_OPENED = utf8(dev.unread.contract.EventJson.INBOX_OPENED)[0];
    private static final byte[] CONVERSATION_READ =
            utf8(dev.unread.contract.EventJson.CONVERSATION_READ)[0];

    /** Longer runs of digits may not fit a long; Jackson decides those. */
    private static final int MAX_COMPACT_DIGITS = 18;

    private CompactRecordScan() {}

    /**
     * Whether {@code v} was in the compact form and read into {@code fields}; if not, {@code
     * fields} may hold part of it.
     */
    static boolean read(byte[] v, RecordFields fields) {
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
            if (field == 0 || (fields.seen & field) != 0) {
                return false;
            }
            fields.seen |= field;
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
                    if (length == INBOX_OPENED.length && equalBytes(v, start, INBOX_OPENED)) {
                        fields.readKind = ChatEvent.Kind.INBOX_OPENED;
                    } else if (length == CONVERSATION_READ.length
                            && equalBytes(v, start, CONVERSATION_READ)) {
                        fields.readKind = ChatEvent.Kind.CONVERSATION_READ;
                    } else {
                        return false;
                    }
                    fields.present |= TYPE;
                } else if (i - start > EventParser.MAX_MESSAGE_ID_CHARS) {
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
                fields.set(field, value);
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

    /**
     * The name's length and first letter pick the one candidate, then its bytes are compared; the
     * candidates are bit numbers of {@link RecordFields}.
     */
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
            case 12:
                bit = 16;
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
}
