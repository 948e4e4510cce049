package dev.unread.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import java.util.regex.Pattern;

/** Parses ids and bodies; anything malformed becomes a 400 saying what was expected. */
final class Params {

    /** Users per {@code GET /api/unread}: one pipeline of 1000 commands at most. */
    static final int MAX_BATCH = 500;

    /** Decimal digits only: no sign, no spaces, no exponent; at most Long.MAX_VALUE's 19. */
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,19}");

    private Params() {}

    /** An id path or query value: an integer from 1 to 2^63-1. */
    static long id(String name, String text) {
        if (text != null && DIGITS.matcher(text).matches()) {
            try {
                long value = Long.parseLong(text);
                if (value > 0) {
                    return value;
                }
            } catch (NumberFormatException tooLarge) {
                // Nineteen digits above Long.MAX_VALUE: reported below like any other bad id.
            }
        }
        throw ApiError.badRequest(name + " must be an integer from 1 to " + Long.MAX_VALUE);
    }

    /** A query parameter given once, an integer from 1 to 2^63-1. */
    static long queryId(String name, List<String> values) {
        return id(name, once(name, values));
    }

    private static String once(String name, List<String> values) {
        if (values.size() != 1) {
            throw ApiError.badRequest(
                    values.isEmpty()
                            ? "query parameter " + name + " is required"
                            : "query parameter " + name + " must be given once");
        }
        return values.get(0);
    }

    /** {@code userIds=1,2,3}: given once, 1 to {@link #MAX_BATCH} ids, in the order given. */
    static long[] idList(String name, List<String> values) {
        String text = once(name, values);
        if (text.isEmpty()) {
            throw ApiError.badRequest(name + " must list at least one id");
        }
        // Split with a limit so that a huge list is refused without being split whole.
        String[] parts = text.split(",", MAX_BATCH + 1);
        if (parts.length > MAX_BATCH) {
            throw ApiError.badRequest(name + " may list at most " + MAX_BATCH + " ids");
        }
        long[] ids = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            ids[i] = id(name + " entries", parts[i]);
        }
        return ids;
    }

    /** The body as a JSON object; 400 for anything else (including trailing garbage). */
    static JsonNode jsonObject(ObjectMapper json, byte[] body) {
        JsonNode node;
        try {
            node = body.length == 0 ? null : json.readTree(body);
        } catch (IOException e) {
            node = null;
        }
        if (node == null || !node.isObject()) {
            throw ApiError.badRequest("body must be a JSON object");
        }
        return node;
    }

    /** A required integer field of {@code body}, at least {@code min}. */
    static long longField(JsonNode body, String name, long min) {
        JsonNode field = body.get(name);
        if (field == null || field.isNull()) {
            throw ApiError.badRequest("field " + name + " is required");
        }
        if (!field.isIntegralNumber() || !field.canConvertToLong() || field.longValue() < min) {
            throw ApiError.badRequest(
                    "field " + name + " must be an integer from " + min + " to " + Long.MAX_VALUE);
        }
        return field.longValue();
    }

    /** Whether {@code body} has the field with a value other than null. */
    static boolean has(JsonNode body, String name) {
        JsonNode field = body.get(name);
        return field != null && !field.isNull();
    }

    /** A required field of {@code body}, {@code true} or {@code false} (JSON booleans only). */
    static boolean booleanField(JsonNode body, String name) {
        JsonNode field = body.get(name);
        if (field == null || field.isNull()) {
            throw ApiError.badRequest("field " + name + " is required");
        }
        if (!field.isBoolean()) {
            throw ApiError.badRequest("field " + name + " must be true or false");
        }
        return field.booleanValue();
    }

    /** A required text field of {@code body}, exactly one of {@code allowed}. */
    static String oneOf(JsonNode body, String name, List<String> allowed) {
        JsonNode field = body.get(name);
        if (field == null || field.isNull()) {
            throw ApiError.badRequest("field " + name + " is required");
        }
        if (!field.isTextual() || !allowed.contains(field.textValue())) {
            throw ApiError.badRequest(
                    "field " + name + " must be one of " + String.join(", ", allowed));
        }
        return field.textValue();
    }
}
