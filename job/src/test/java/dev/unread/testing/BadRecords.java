package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A seeded corpus of records that break the input contract, one of each {@link Kind} in turn: what
 * a buggy or hostile producer could publish. Each must end up, once, in the dead-letter topic, and
 * none may change a count. Its counterpart, {@link #unusualButValid}, writes valid events the way a
 * careless producer may, which must count as any other.
 */
public final class BadRecords {

    /** The classes of bad input; {@link #of} cycles through them. */
    public enum Kind {
        RANDOM_BYTES,
        TRUNCATED_JSON,
        DEEPLY_NESTED,
        WRONG_TYPES,
        BEYOND_LONG,
        ZERO_OR_NEGATIVE_ID,
        WRONG_SHAPE,
        UNKNOWN_TYPE,
        MISSING_FIELD,
        EMPTY,
        OVERSIZED,
        TRAILING_DATA,
        DUPLICATE_FIELD,
        HALF_CONVERSATION,
        LONG_MESSAGE_ID,
        INVALID_UTF8,
        NOT_UTF8,
        FAR_FUTURE_TIME
    }

    /** A bad record and the topic it goes to: {@code toMessages} or the reads topic. */
    public record Bad(Kind kind, boolean toMessages, byte[] value) {}

    /** Sizes past the contract's 64 KiB limit go up to this; 1 MiB by default. */
    private final int oversizedBytes;

    private final Random random;

    public BadRecords(long seed) {
        this(seed, 1024 * 1024);
    }

    public BadRecords(long seed, int oversizedBytes) {
        this.random = new Random(seed);
        this.oversizedBytes = oversizedBytes;
    }

    /** {@code n} bad records, the kinds in turn, topics at random. */
    public List<Bad> of(int n) {
        List<Bad> bad = new ArrayList<>(n);
        Kind[] kinds = Kind.values();
        for (int i = 0; i < n; i++) {
            Kind kind = kinds[i % kinds.length];
            boolean toMessages = random.nextBoolean();
            bad.add(new Bad(kind, toMessages, value(kind, toMessages)));
        }
        return bad;
    }

    private byte[] value(Kind kind, boolean toMessages) {
        long id = 1 + random.nextInt(1_000_000);
        String valid =
                toMessages
                        ? "{\"senderId\":"
                                + id
                                + ",\"receiverId\":"
                                + (id + 1)
                                + ",\"sentAt\":1767225600000}"
                        : "{\"type\":\"INBOX_OPENED\",\"userId\":"
                                + id
                                + ",\"readAt\":1767225600000}";
        switch (kind) {
            case RANDOM_BYTES:
                byte[] bytes = new byte[1 + random.nextInt(200)];
                random.nextBytes(bytes);
                // A leading '{' and '[' would make some random bytes look like JSON at first.
                bytes[0] = (byte) ('a' + random.nextInt(26));
                return bytes;
            case TRUNCATED_JSON:
                return utf8(valid.substring(0, 1 + random.nextInt(valid.length() - 1)));
            case DEEPLY_NESTED:
                // Nesting itself is valid at any depth; what lies at the bottom is not.
                int depth = 100 + random.nextInt(20_000);
                String bottom = random.nextBoolean() ? "{\"d\":1,\"d\":2}" : "{\"d\":";
                return utf8(
                        valid.substring(0, valid.length() - 1)
                                + ",\"x\":"
                                + "[".repeat(depth)
                                + bottom
                                + "]".repeat(depth)
                                + "}");
            case WRONG_TYPES:
                return utf8(
                        toMessages
                                ? "{\"senderId\":\""
                                        + id
                                        + "\",\"receiverId\":"
                                        + id
                                        + ",\"sentAt\":1}"
                                : id % 2 == 0
                                        ? "{\"type\":\"ALL_READ\",\"userId\":"
                                                + id
                                                + ",\"readAt\":\"2026-01-01T00:00:00Z\"}"
                                        : "{\"type\":\"INBOX_OPENED\",\"userId\":"
                                                + id
                                                + ",\"readAt\":1.5}");
            case BEYOND_LONG:
                return utf8(
                        toMessages
                                ? "{\"senderId\":9223372036854775808"
                                        + random.nextInt(10)
                                        + ",\"receiverId\":"
                                        + id
                                        + ",\"sentAt\":1}"
                                : "{\"type\":\"CONVERSATION_READ\",\"userId\":"
                                        + id
                                        + ",\"conversationId\":1,\"readSeq\":99999999999999999999,\"readAt\":1}");
            case ZERO_OR_NEGATIVE_ID:
                return utf8(
                        toMessages
                                ? "{\"senderId\":"
                                        + id
                                        + ",\"receiverId\":"
                                        + -random.nextInt(3)
                                        + ",\"sentAt\":1}"
                                : "{\"type\":\"INBOX_OPENED\",\"userId\":0,\"readAt\":1}");
            case WRONG_SHAPE:
                return utf8(random.nextBoolean() ? "[" + valid + "]" : "\"" + id + "\"");
            case UNKNOWN_TYPE:
                return utf8(
                        toMessages
                                ? "{\"senderId\":"
                                        + id
                                        + ",\"receiverId\":"
                                        + id
                                        + ",\"sentAt\":1,\"seq\":5}"
                                : "{\"type\":\"INBOX_CLOSED\",\"userId\":" + id + ",\"readAt\":1}");
            case MISSING_FIELD:
                return utf8(
                        toMessages
                                ? "{\"senderId\":" + id + ",\"sentAt\":1}"
                                : id % 2 == 0
                                        ? "{\"type\":\"ALL_READ\",\"userId\":" + id + "}"
                                        : "{\"type\":\"CONVERSATION_READ\",\"userId\":"
                                                + id
                                                + ",\"readAt\":1}");
            case EMPTY:
                return new byte[0];
            case OVERSIZED:
                String padding = "x".repeat(Math.max(0, oversizedBytes - valid.length() - 16));
                return utf8(
                        valid.substring(0, valid.length() - 1) + ",\"pad\":\"" + padding + "\"}");
            case TRAILING_DATA:
                // A valid record and then more: two records glued together, or garbage after one.
                return utf8(valid + (random.nextBoolean() ? valid : " x"));
            case DUPLICATE_FIELD:
                // Which of the two values counts is up to the parser: refused, not guessed.
                return utf8(
                        valid.substring(0, valid.length() - 1)
                                + (toMessages ? ",\"receiverId\":" : ",\"userId\":")
                                + (id + 7)
                                + "}");
            case HALF_CONVERSATION:
                return utf8(
                        toMessages
                                ? "{\"senderId\":"
                                        + id
                                        + ",\"receiverId\":"
                                        + (id + 1)
                                        + ",\"sentAt\":1767225600000,"
                                        + (random.nextBoolean()
                                                ? "\"seq\":3}"
                                                : "\"conversationId\":80001}")
                                : "{\"type\":\"CONVERSATION_READ\",\"userId\":"
                                        + id
                                        + ",\"readSeq\":3,\"readAt\":1767225600000}");
            case LONG_MESSAGE_ID:
                return utf8(
                        toMessages
                                ? "{\"messageId\":\""
                                        + "m".repeat(129)
                                        + "\",\"senderId\":"
                                        + id
                                        + ",\"receiverId\":"
                                        + (id + 1)
                                        + ",\"sentAt\":1767225600000}"
                                : "{\"type\":\""
                                        + "T".repeat(129)
                                        + "\",\"userId\":"
                                        + id
                                        + ",\"readAt\":1767225600000}");
            case INVALID_UTF8:
                // Bytes that are not UTF-8 inside a text field the parser reads.
                byte[] text =
                        utf8(
                                toMessages
                                        ? "{\"messageId\":\"m-??\",\"senderId\":"
                                                + id
                                                + ",\"receiverId\":"
                                                + (id + 1)
                                                + ",\"sentAt\":1767225600000}"
                                        : "{\"type\":\"INBOX_OPENED??\",\"userId\":"
                                                + id
                                                + ",\"readAt\":1767225600000}");
                int at = new String(text, StandardCharsets.UTF_8).indexOf("??");
                text[at] = (byte) 0xC3;
                text[at + 1] = (byte) 0x28;
                return text;
            case NOT_UTF8:
                return notUtf8(valid);
            case FAR_FUTURE_TIME:
                // The end of time, or milliseconds mistaken for microseconds: both years ahead
                // of the record's own timestamp.
                long time = random.nextBoolean() ? Long.MAX_VALUE : 1767225600000L * 1000;
                return utf8(valid.replace("1767225600000", String.valueOf(time)));
            default:
                throw new IllegalArgumentException(kind.name());
        }
    }

    /**
     * The valid record in another encoding (UTF-16 or UTF-32, with or without a byte-order mark),
     * after a UTF-8 byte-order mark, or with a sequence a lax decoder would take: an overlong
     * {@code e} in a name, a surrogate, a code point past U+10FFFF.
     */
    private byte[] notUtf8(String valid) {
        String[] charsets = {"UTF-16LE", "UTF-16BE", "UTF-16", "UTF-32BE", "UTF-32LE", "UTF-32"};
        int choice = random.nextInt(charsets.length + 4);
        if (choice < charsets.length) {
            return valid.getBytes(Charset.forName(charsets[choice]));
        }
        byte[] inserted;
        switch (choice - charsets.length) {
            case 0:
                return concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, utf8(valid));
            case 1:
                // "senderId" or "userId" with its 'e' overlong: the same name to a lax decoder.
                byte[] named = utf8(valid);
                int at = valid.indexOf('e', 2);
                return concat(
                        Arrays.copyOf(named, at),
                        new byte[] {(byte) 0xC1, (byte) 0xA5},
                        Arrays.copyOfRange(named, at + 1, named.length));
            case 2:
                inserted = new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80};
                break;
            default:
                inserted = new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80};
                break;
        }
        return concat(
                utf8(valid.substring(0, valid.length() - 1) + ",\"note\":\""),
                inserted,
                utf8("\"}"));
    }

    /**
     * {@code event} as a producer may validly write it: with fields of the other topic or the other
     * read type (of any type, unknown to this kind), unknown values nested thousands deep, text
     * beyond ASCII, long numbers and names, whitespace. Each must count as the plain record.
     */
    public static byte[] unusualButValid(ChatEvent event, Random random) {
        String plain = ChatEventJson.text(event);
        StringBuilder extra = new StringBuilder();
        switch (random.nextInt(6)) {
            case 0:
                extra.append(
                        event.kind == ChatEvent.Kind.MESSAGE
                                ? "\"type\":5,\"userId\":\"u-1\",\"readAt\":1.5,\"readSeq\":{\"x\":[1]}"
                                : event.kind == ChatEvent.Kind.MESSAGE_EDITED
                                        // An edit names no sender, no sentAt and no message id.
                                        ? "\"userId\":\"u-1\",\"readSeq\":{\"x\":[1]},\"senderId\":\"bob\","
                                                + "\"sentAt\":[1],\"messageId\":7"
                                        : "\"senderId\":\"bob\",\"sentAt\":[1],\"seq\":-1,\"messageId\":\""
                                                + "m".repeat(200)
                                                + "\"");
                if (event.kind == ChatEvent.Kind.INBOX_OPENED) {
                    extra.append(",\"conversationId\":\"c-9\",\"readSeq\":null");
                }
                break;
            case 1:
                // Rarely as deep as 64 KiB allows, usually a few hundred levels.
                int depth = random.nextInt(20) == 0 ? 30_000 : 1 + random.nextInt(500);
                extra.append("\"x\":")
                        .append("[".repeat(depth))
                        .append("{\"y\":[1,{}]}")
                        .append("]".repeat(depth));
                break;
            case 2:
                extra.append("\"caf\u00e9\":\"\u4e2d\u6587 \ud83d\ude00 \ufeff\\u0000\"");
                break;
            case 3:
                extra.append("\"n\":")
                        .append("9".repeat(2000))
                        .append(",\"")
                        .append("k".repeat(1000))
                        .append("\":true");
                break;
            case 4:
                return utf8(" \t\r\n" + plain.replace(",", " ,\n\t").replace(":", " : ") + " \n");
            default:
                extra.append("\"a\":{\"senderId\":\"x\",\"type\":[],\"a\":{\"a\":null}}");
                break;
        }
        return utf8("{" + extra + "," + plain.substring(1));
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
