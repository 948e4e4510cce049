package dev.unread.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded corpus of records that break the input contract, one of each {@link Kind} in turn:
 * what a buggy or hostile producer could publish. Each must end up, once, in the dead-letter
 * topic, and none may change a count.
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
        INVALID_UTF8
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
        String valid = toMessages
                ? "{\"senderId\":" + id + ",\"receiverId\":" + (id + 1) + ",\"sentAt\":1767225600000}"
                : "{\"type\":\"INBOX_OPENED\",\"userId\":" + id + ",\"readAt\":1767225600000}";
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
                int depth = 100 + random.nextInt(2000);
                return utf8("{\"x\":" + "[".repeat(depth) + "]".repeat(depth) + "}");
            case WRONG_TYPES:
                return utf8(toMessages
                        ? "{\"senderId\":\"" + id + "\",\"receiverId\":" + id + ",\"sentAt\":1}"
                        : "{\"type\":\"INBOX_OPENED\",\"userId\":" + id + ",\"readAt\":1.5}");
            case BEYOND_LONG:
                return utf8(toMessages
                        ? "{\"senderId\":9223372036854775808" + random.nextInt(10)
                                + ",\"receiverId\":" + id + ",\"sentAt\":1}"
                        : "{\"type\":\"CONVERSATION_READ\",\"userId\":" + id
                                + ",\"conversationId\":1,\"readSeq\":99999999999999999999,\"readAt\":1}");
            case ZERO_OR_NEGATIVE_ID:
                return utf8(toMessages
                        ? "{\"senderId\":" + id + ",\"receiverId\":" + -random.nextInt(3) + ",\"sentAt\":1}"
                        : "{\"type\":\"INBOX_OPENED\",\"userId\":0,\"readAt\":1}");
            case WRONG_SHAPE:
                return utf8(random.nextBoolean() ? "[" + valid + "]" : "\"" + id + "\"");
            case UNKNOWN_TYPE:
                return utf8(toMessages
                        ? "{\"senderId\":" + id + ",\"receiverId\":" + id + ",\"sentAt\":1,\"seq\":5}"
                        : "{\"type\":\"INBOX_CLOSED\",\"userId\":" + id + ",\"readAt\":1}");
            case MISSING_FIELD:
                return utf8(toMessages
                        ? "{\"senderId\":" + id + ",\"sentAt\":1}"
                        : "{\"type\":\"CONVERSATION_READ\",\"userId\":" + id + ",\"readAt\":1}");
            case EMPTY:
                return new byte[0];
            case OVERSIZED:
                String padding = "x".repeat(Math.max(0, oversizedBytes - valid.length() - 16));
                return utf8(valid.substring(0, valid.length() - 1) + ",\"pad\":\"" + padding + "\"}");
            case TRAILING_DATA:
                // A valid record and then more: two records glued together, or garbage after one.
                return utf8(valid + (random.nextBoolean() ? valid : " x"));
            case DUPLICATE_FIELD:
                // Which of the two values counts is up to the parser: refused, not guessed.
                return utf8(valid.substring(0, valid.length() - 1)
                        + (toMessages ? ",\"receiverId\":" : ",\"userId\":") + (id + 7) + "}");
            case HALF_CONVERSATION:
                return utf8(toMessages
                        ? "{\"senderId\":" + id + ",\"receiverId\":" + (id + 1)
                                + ",\"sentAt\":1767225600000,"
                                + (random.nextBoolean()
                                        ? "\"seq\":3}"
                                        : "\"conversationId\":80001}")
                        : "{\"type\":\"CONVERSATION_READ\",\"userId\":" + id
                                + ",\"readSeq\":3,\"readAt\":1767225600000}");
            case LONG_MESSAGE_ID:
                return utf8(toMessages
                        ? "{\"messageId\":\"" + "m".repeat(129) + "\",\"senderId\":" + id
                                + ",\"receiverId\":" + (id + 1) + ",\"sentAt\":1767225600000}"
                        : "{\"type\":\"" + "T".repeat(129) + "\",\"userId\":" + id
                                + ",\"readAt\":1767225600000}");
            case INVALID_UTF8:
                // Bytes that are not UTF-8 inside a text field the parser reads.
                byte[] text = utf8(toMessages
                        ? "{\"messageId\":\"m-??\",\"senderId\":" + id + ",\"receiverId\":"
                                + (id + 1) + ",\"sentAt\":1767225600000}"
                        : "{\"type\":\"INBOX_OPENED??\",\"userId\":" + id
                                + ",\"readAt\":1767225600000}");
                int at = new String(text, StandardCharsets.UTF_8).indexOf("??");
                text[at] = (byte) 0xC3;
                text[at + 1] = (byte) 0x28;
                return text;
            default:
                throw new IllegalArgumentException(kind.name());
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
