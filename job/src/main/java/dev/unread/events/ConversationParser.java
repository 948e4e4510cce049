package dev.unread.events;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Parses and validates {@code chat-conversations} values as docs/contract.md says: the same
 * discipline as {@link EventParser} (size limit, one JSON object and nothing after it, no duplicate
 * field of any name, unknown fields ignored, {@code null} as absent), with the fields of the
 * record's own {@code type} checked. A separate class rather than more of EventParser: a
 * conversation record is published once per message, not once per receiver, so it is not the hot
 * path EventParser's hand-made scan is for, and it has an array field that scan does not read.
 *
 * <p>Not thread-safe; each {@link ParseConversations} instance keeps its own.
 */
public final class ConversationParser {

    /** At most this many ids in {@code mentions}. */
    public static final int MAX_MENTIONS = 1000;

    private static final Set<String> LONG_FIELDS =
            Set.of(
                    "conversationId",
                    "seq",
                    "userId",
                    "senderId",
                    "sentAt",
                    "deletedAt",
                    "threadSeq",
                    "rootSenderId",
                    "editedAt");

    private final JsonFactory json =
            JsonFactory.builder()
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .streamReadConstraints(EventParser.WITHIN_ONE_RECORD)
                    .build();

    // The record being parsed. A field whose value was of the wrong shape keeps its reason in
    // errors: it refuses the record only if the record's type has that field.
    private final Map<String, Long> longs = new HashMap<>();
    private final Map<String, String> errors = new HashMap<>();
    private final Set<String> present = new HashSet<>();
    private String type;
    private long[] mentions;
    private boolean mentionsAll;

    /** A {@code chat-conversations} value. */
    public ConversationEvent parse(byte[] value) throws InvalidRecordException {
        read(value);
        if (errors.containsKey("type")) {
            throw new InvalidRecordException(errors.get("type"));
        }
        if (type == null) {
            throw new InvalidRecordException("type: missing");
        }
        switch (type) {
            case dev.unread.contract.EventJson.MEMBER_JOINED:
            case dev.unread.contract.EventJson.MEMBER_LEFT:
                {
                    long conversationId = requirePositive("conversationId");
                    long userId = requirePositive("userId");
                    long seq = requirePositive("seq");
                    return type.equals(dev.unread.contract.EventJson.MEMBER_JOINED)
                            ? ConversationEvent.joined(conversationId, userId, seq)
                            : ConversationEvent.left(conversationId, userId, seq);
                }
            case dev.unread.contract.EventJson.MESSAGE:
                {
                    long conversationId = requirePositive("conversationId");
                    long seq = requirePositive("seq");
                    long senderId = requirePositive("senderId");
                    long sentAt = requirePositive("sentAt");
                    checkOptional("messageId");
                    checkOptional("mentions");
                    checkOptional("mentionsAll");
                    ConversationEvent message =
                            ConversationEvent.message(
                                    conversationId,
                                    seq,
                                    senderId,
                                    sentAt,
                                    mentions == null ? new long[0] : mentions);
                    message.mentionsAll = mentionsAll;
                    if (longs.containsKey("threadSeq") || errors.containsKey("threadSeq")) {
                        message.threadSeq =
                                EventParser.threadSeq(requirePositive("threadSeq"), seq);
                    }
                    if (longs.containsKey("rootSenderId") || errors.containsKey("rootSenderId")) {
                        if (message.threadSeq == 0) {
                            throw new InvalidRecordException(EventParser.NO_THREAD_FOR_ROOT_SENDER);
                        }
                        message.rootSenderId = requirePositive("rootSenderId");
                    }
                    return message;
                }
            case dev.unread.contract.EventJson.MESSAGE_DELETED:
                {
                    long conversationId = requirePositive("conversationId");
                    long seq = requirePositive("seq");
                    // Checked as the contract gives it, though no count depends on it.
                    requirePositive("deletedAt");
                    return ConversationEvent.deleted(conversationId, seq);
                }
            case dev.unread.contract.EventJson.MESSAGE_EDITED:
                {
                    long conversationId = requirePositive("conversationId");
                    long seq = requirePositive("seq");
                    long editedAt = requirePositive("editedAt");
                    checkOptional("mentions");
                    checkOptional("mentionsAll");
                    return ConversationEvent.edited(
                            conversationId,
                            seq,
                            editedAt,
                            mentionsAll,
                            mentions == null ? new long[0] : mentions);
                }
            default:
                throw new InvalidRecordException("type: unknown " + EventParser.clip(type));
        }
    }

    private void read(byte[] value) throws InvalidRecordException {
        if (value == null || value.length == 0) {
            throw new InvalidRecordException("empty record");
        }
        if (value.length > EventParser.MAX_RECORD_BYTES) {
            throw new InvalidRecordException(
                    "record of " + value.length + " bytes exceeds " + EventParser.MAX_RECORD_BYTES);
        }
        // The same strict UTF-8 as the other topics: Jackson alone accepts overlong forms and
        // guesses UTF-16 and UTF-32.
        Utf8.check(value);
        longs.clear();
        errors.clear();
        present.clear();
        type = null;
        mentions = null;
        mentionsAll = false;
        try (JsonParser p = json.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new InvalidRecordException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken token = p.nextToken();
                if (LONG_FIELDS.contains(name)) {
                    readLong(name, p, token);
                } else if (name.equals("type")) {
                    readType(p, token);
                } else if (name.equals("messageId")) {
                    checkMessageId(p, token);
                } else if (name.equals("mentions")) {
                    readMentions(p, token);
                } else if (name.equals("mentionsAll")) {
                    readMentionsAll(p, token);
                } else {
                    // Unknown fields are allowed by the contract; skip them unread.
                    p.skipChildren();
                }
            }
            if (p.nextToken() != null) {
                throw new InvalidRecordException("trailing data after the JSON object");
            }
        } catch (IOException | RuntimeException e) {
            // As in EventParser: input never fails the job, whatever Jackson throws.
            throw new InvalidRecordException("malformed JSON: " + EventParser.detail(e));
        }
    }

    private void readLong(String name, JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token != JsonToken.VALUE_NUMBER_INT) {
            errors.put(name, name + ": must be an integer");
            p.skipChildren();
            return;
        }
        JsonParser.NumberType type = p.getNumberType();
        if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
            errors.put(name, name + ": out of range (1..2^63-1)");
            return;
        }
        longs.put(name, p.getLongValue());
    }

    private void readType(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token != JsonToken.VALUE_STRING) {
            errors.put("type", "type: must be text");
            p.skipChildren();
            return;
        }
        type = p.getText();
    }

    private void checkMessageId(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        present.add("messageId");
        if (token != JsonToken.VALUE_STRING) {
            errors.put("messageId", "messageId: must be text");
            p.skipChildren();
        } else if (p.getTextLength() > EventParser.MAX_MESSAGE_ID_CHARS) {
            errors.put(
                    "messageId",
                    "messageId: longer than " + EventParser.MAX_MESSAGE_ID_CHARS + " characters");
        }
    }

    /** true or false; null leaves it absent (false). */
    private void readMentionsAll(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        if (token != JsonToken.VALUE_TRUE && token != JsonToken.VALUE_FALSE) {
            errors.put("mentionsAll", "mentionsAll: must be true or false");
            p.skipChildren();
            return;
        }
        mentionsAll = token == JsonToken.VALUE_TRUE;
    }

    /** An array of at most {@link #MAX_MENTIONS} user ids (integers > 0). */
    private void readMentions(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        present.add("mentions");
        if (token != JsonToken.START_ARRAY) {
            errors.put("mentions", "mentions: must be an array of user ids");
            p.skipChildren();
            return;
        }
        long[] ids = new long[16];
        int n = 0;
        JsonToken next;
        while ((next = p.nextToken()) != JsonToken.END_ARRAY && next != null) {
            if (errors.containsKey("mentions")) {
                p.skipChildren();
                continue;
            }
            if (next != JsonToken.VALUE_NUMBER_INT
                    || (p.getNumberType() != JsonParser.NumberType.INT
                            && p.getNumberType() != JsonParser.NumberType.LONG)
                    || p.getLongValue() <= 0) {
                errors.put("mentions", "mentions: must hold user ids (integers 1..2^63-1)");
                p.skipChildren();
            } else if (n == MAX_MENTIONS) {
                errors.put("mentions", "mentions: more than " + MAX_MENTIONS + " ids");
            } else {
                if (n == ids.length) {
                    ids = Arrays.copyOf(ids, 2 * n);
                }
                ids[n++] = p.getLongValue();
            }
        }
        mentions = Arrays.copyOf(ids, n);
    }

    private void checkOptional(String name) throws InvalidRecordException {
        String error = errors.get(name);
        if (error != null) {
            throw new InvalidRecordException(error);
        }
    }

    private long requirePositive(String name) throws InvalidRecordException {
        checkOptional(name);
        Long v = longs.get(name);
        if (v == null) {
            throw new InvalidRecordException(name + ": missing");
        }
        if (v <= 0) {
            throw new InvalidRecordException(name + ": must be > 0, was " + v);
        }
        return v;
    }
}
