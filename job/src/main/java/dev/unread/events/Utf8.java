package dev.unread.events;

/**
 * The strict UTF-8 check of the input contract (RFC 3629): every sequence well-formed, shortest
 * form, no surrogates, nothing past U+10FFFF. Also refused, though well-formed UTF-8: a leading
 * byte-order mark (RFC 8259 forbids senders to add one; a record has exactly one reading) and a NUL
 * byte, which JSON never holds raw and which is how UTF-16 and UTF-32 text looks.
 */
final class Utf8 {

    private Utf8() {}

    static void check(byte[] v) throws InvalidRecordException {
        if (v.length >= 3
                && (v[0] & 0xFF) == 0xEF
                && (v[1] & 0xFF) == 0xBB
                && (v[2] & 0xFF) == 0xBF) {
            throw new InvalidRecordException(
                    "UTF-8 byte-order mark: the record must start with the JSON object");
        }
        int i = 0;
        int n = v.length;
        while (i < n) {
            int b = v[i];
            if (b > 0) {
                i++;
                continue;
            }
            if (b == 0) {
                throw refused("NUL byte", i, " (UTF-16 or UTF-32?)");
            }
            b &= 0xFF;
            int length;
            int min;
            int max;
            // The second byte's range decides overlong forms, surrogates and the upper bound.
            if (b >= 0xC2 && b <= 0xDF) {
                length = 2;
                min = 0x80;
                max = 0xBF;
            } else if (b >= 0xE0 && b <= 0xEF) {
                length = 3;
                min = b == 0xE0 ? 0xA0 : 0x80;
                max = b == 0xED ? 0x9F : 0xBF;
            } else if (b >= 0xF0 && b <= 0xF4) {
                length = 4;
                min = b == 0xF0 ? 0x90 : 0x80;
                max = b == 0xF4 ? 0x8F : 0xBF;
            } else if (b == 0xC0 || b == 0xC1) {
                throw refused("overlong encoding", i, "");
            } else {
                throw refused(String.format("invalid byte 0x%02X", b), i, "");
            }
            for (int k = 1; k < length; k++) {
                if (i + k >= n || (v[i + k] & 0xC0) != 0x80) {
                    throw refused("truncated sequence", i, "");
                }
            }
            int second = v[i + 1] & 0xFF;
            if (second < min) {
                throw refused("overlong encoding", i, "");
            }
            if (second > max) {
                throw refused(b == 0xED ? "surrogate" : "beyond U+10FFFF", i, "");
            }
            i += length;
        }
    }

    private static InvalidRecordException refused(String what, int at, String hint) {
        return new InvalidRecordException("not UTF-8: " + what + " at byte " + at + hint);
    }
}
