package dev.unread.events;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;

/**
 * Parses and validates the two input topics exactly as DESIGN.md's input section says. A streaming
 * parser rather than a tree: it is the hot path, and it lets unknown fields be skipped unread.
 *
 * <p>Thread-safe: the {@link JsonFactory} is, and each call has its own parser.
 */
public final class EventParser {

    /** Records larger than this are refused before parsing. */
    public static final int MAX_RECORD_BYTES = 64 * 1024;

    public static final int MAX_MESSAGE_ID_CHARS = 128;

    /** Deep nesting is never valid input; refusing it early bounds the parser's work. */
    private static final int MAX_NESTING_DEPTH = 32;

    private static final int MAX_REASON_DETAIL_CHARS = 160;

    private final JsonFactory json =
            JsonFactory.builder()
                    .streamReadConstraints(
                            StreamReadConstraints.builder()
                                    .maxNestingDepth(MAX_NESTING_DEPTH)
                                    .build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .build();

    /** A {@code chat-messages} value. */
    public ChatEvent parseMessage(byte[] value) throws InvalidRecordException {
        Fields f = read(value);
        long senderId = f.requirePositive("senderId", f.senderId);
        long receiverId = f.requirePositive("receiverId", f.receiverId);
        long sentAt = f.requirePositive("sentAt", f.sentAt);
        if (f.conversationId.present != f.seq.present) {
            throw new InvalidRecordException("conversationId and seq must come together");
        }
        if (!f.conversationId.present) {
            return ChatEvent.message(senderId, receiverId, sentAt);
        }
        long conversationId = f.requirePositive("conversationId", f.conversationId);
        long seq = f.requirePositive("seq", f.seq);
        return ChatEvent.message(senderId, receiverId, conversationId, seq, sentAt);
    }

    /** A {@code chat-reads} value. */
    public ChatEvent parseRead(byte[] value) throws InvalidRecordException {
        Fields f = read(value);
        if (f.type == null) {
            throw new InvalidRecordException("type: missing");
        }
        switch (f.type) {
            case "INBOX_OPENED":
                return ChatEvent.inboxOpened(
                        f.requirePositive("userId", f.userId), f.requirePositive("readAt", f.readAt));
            case "CONVERSATION_READ":
                long userId = f.requirePositive("userId", f.userId);
                long conversationId = f.requirePositive("conversationId", f.conversationId);
                long readSeq = f.requireNonNegative("readSeq", f.readSeq);
                long readAt = f.requirePositive("readAt", f.readAt);
                return ChatEvent.conversationRead(userId, conversationId, readSeq, readAt);
            default:
                throw new InvalidRecordException("type: unknown " + clip(f.type));
        }
    }

    private Fields read(byte[] value) throws InvalidRecordException {
        if (value == null || value.length == 0) {
            throw new InvalidRecordException("empty record");
        }
        if (value.length > MAX_RECORD_BYTES) {
            throw new InvalidRecordException(
                    "record of " + value.length + " bytes exceeds " + MAX_RECORD_BYTES);
        }
        Fields f = new Fields();
        try (JsonParser p = json.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new InvalidRecordException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken token = p.nextToken();
                switch (name) {
                    case "senderId":
                        f.senderId.read(name, p, token);
                        break;
                    case "receiverId":
                        f.receiverId.read(name, p, token);
                        break;
                    case "sentAt":
                        f.sentAt.read(name, p, token);
                        break;
                    case "conversationId":
                        f.conversationId.read(name, p, token);
                        break;
                    case "seq":
                        f.seq.read(name, p, token);
                        break;
                    case "userId":
                        f.userId.read(name, p, token);
                        break;
                    case "readAt":
                        f.readAt.read(name, p, token);
                        break;
                    case "readSeq":
                        f.readSeq.read(name, p, token);
                        break;
                    case "type":
                        f.type = readText(name, p, token, Integer.MAX_VALUE);
                        break;
                    case "messageId":
                        readText(name, p, token, MAX_MESSAGE_ID_CHARS);
                        break;
                    default:
                        // Unknown fields are allowed by the contract; skip them unread.
                        p.skipChildren();
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
        return f;
    }

    private static String readText(String name, JsonParser p, JsonToken token, int maxChars)
            throws IOException, InvalidRecordException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        if (token != JsonToken.VALUE_STRING) {
            throw new InvalidRecordException(name + ": must be text");
        }
        String text = p.getText();
        if (text.length() > maxChars) {
            throw new InvalidRecordException(name + ": longer than " + maxChars + " characters");
        }
        return text;
    }

    private static String detail(Exception e) {
        String message =
                e instanceof com.fasterxml.jackson.core.JsonProcessingException
                        ? ((com.fasterxml.jackson.core.JsonProcessingException) e).getOriginalMessage()
                        : e.getMessage();
        return clip(String.valueOf(message));
    }

    private static String clip(String s) {
        return s.length() <= MAX_REASON_DETAIL_CHARS ? s : s.substring(0, MAX_REASON_DETAIL_CHARS) + "...";
    }

    /** One integer field: absent, or a value that fits a signed 64-bit long. */
    private static final class LongField {
        boolean present;
        long value;

        void read(String name, JsonParser p, JsonToken token) throws IOException, InvalidRecordException {
            if (token == JsonToken.VALUE_NULL) {
                return;
            }
            if (token != JsonToken.VALUE_NUMBER_INT) {
                throw new InvalidRecordException(name + ": must be an integer");
            }
            JsonParser.NumberType type = p.getNumberType();
            if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
                throw new InvalidRecordException(name + ": out of range (1..2^63-1)");
            }
            present = true;
            value = p.getLongValue();
        }
    }

    private static final class Fields {
        final LongField senderId = new LongField();
        final LongField receiverId = new LongField();
        final LongField sentAt = new LongField();
        final LongField conversationId = new LongField();
        final LongField seq = new LongField();
        final LongField userId = new LongField();
        final LongField readAt = new LongField();
        final LongField readSeq = new LongField();
        String type;

        long requirePositive(String name, LongField field) throws InvalidRecordException {
            long v = require(name, field);
            if (v <= 0) {
                throw new InvalidRecordException(name + ": must be > 0, was " + v);
            }
            return v;
        }

        long requireNonNegative(String name, LongField field) throws InvalidRecordException {
            long v = require(name, field);
            if (v < 0) {
                throw new InvalidRecordException(name + ": must be >= 0, was " + v);
            }
            return v;
        }

        private static long require(String name, LongField field) throws InvalidRecordException {
            if (!field.present) {
                throw new InvalidRecordException(name + ": missing");
            }
            return field.value;
        }
    }
}
