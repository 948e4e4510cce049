package dev.unread.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.unread.contract.Count;
import dev.unread.contract.Count.Field;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

/**
 * One section of a user's counts as the API answers them (docs/contract.md, "GET
 * /api/users/{userId}/unread"): the counts of the catalog that share a {@link Count#section}, one
 * but for the totals. How a section is read from Redis, answered and documented in the OpenAPI
 * schema follows from its counts' shape and field alone, so a new {@link Count} needs no change
 * here.
 */
record CountSection(String name, List<Count> counts) {

    /** The catalog's sections in its order, which is the order of the answers' fields. */
    static final List<CountSection> ALL = sections();

    /** The sections' descriptions are openapi.json's; their types and the required list these. */
    static final String SCHEMA = "UserUnread";

    private static List<CountSection> sections() {
        Map<String, List<Count>> bySection = new LinkedHashMap<>();
        for (Count count : Count.values()) {
            bySection.computeIfAbsent(count.section(), name -> new ArrayList<>()).add(count);
        }
        List<CountSection> sections = new ArrayList<>();
        bySection.forEach((name, counts) -> sections.add(new CountSection(name, counts)));
        return List.copyOf(sections);
    }

    private Count first() {
        return counts.get(0);
    }

    /**
     * Queues the read of this section's key of {@code userId} on {@code pipeline}; the supplier
     * gives the section's value in the answer once the pipeline synced: a number, an object of
     * counts by field in numeric order of the ids (0 for an absent total), or a set's members in
     * that order.
     *
     * <p>The supplier throws {@link redis.clients.jedis.exceptions.JedisDataException} when the key
     * is of another type and {@link NumberFormatException} for a field or value that is not the
     * job's.
     */
    Supplier<Object> read(AbstractPipeline pipeline, String keyPrefix, long userId) {
        String key = first().key(keyPrefix, userId);
        return switch (first().shape()) {
            case STRING -> {
                Response<String> value = pipeline.get(key);
                yield () -> value.get() == null ? 0L : Long.parseLong(value.get());
            }
            case HASH -> {
                Response<Map<String, String>> hash = pipeline.hgetAll(key);
                yield () ->
                        first().fieldKind() == Field.TOTAL ? totals(hash.get()) : byId(hash.get());
            }
            case SET -> {
                Response<Set<String>> members = pipeline.smembers(key);
                yield () -> members(members.get());
            }
        };
    }

    /**
     * The section's value in a stream's snapshot: as in the answer, but a set's members map to
     * true, as UNREAD_CHANGED carries them, so that a client applies both alike.
     */
    Object inSnapshot(Object answered) {
        if (first().shape() != Count.Shape.SET) {
            return answered;
        }
        Map<String, Boolean> marks = new LinkedHashMap<>();
        ((List<?>) answered).forEach(member -> marks.put(member.toString(), true));
        return marks;
    }

    /**
     * The section's value in a stream's snapshot after the job's UNREAD_CHANGED {@code change} of
     * it ({@code held} before): absolute values, 0 (false for a mark) for what went away, in the
     * order a read gives them, so that a stream merging the job's changes holds what a read would.
     *
     * @throws IllegalArgumentException for a change that is not the job's
     */
    Object merged(Object held, JsonNode change) {
        if (first().shape() == Count.Shape.STRING) {
            return count(change);
        }
        if (!change.isObject()) {
            throw new IllegalArgumentException("not an object");
        }
        if (first().fieldKind() == Field.TOTAL) {
            Map<String, Object> totals = new LinkedHashMap<>();
            ((Map<?, ?>) held).forEach((field, value) -> totals.put((String) field, value));
            for (Count count : counts) {
                JsonNode value = change.get(count.totalField());
                if (value != null) {
                    totals.put(count.totalField(), count(value));
                }
            }
            return totals;
        }
        Map<Id, Object> byId = new TreeMap<>();
        ((Map<?, ?>) held)
                .forEach(
                        (field, value) ->
                                byId.put(Id.of(first().fieldKind(), (String) field), value));
        change.fields()
                .forEachRemaining(
                        entry -> {
                            Id id = Id.of(first().fieldKind(), entry.getKey());
                            Object value = value(entry.getValue());
                            if (value.equals(0L) || value.equals(false)) {
                                byId.remove(id);
                            } else {
                                byId.put(id, value);
                            }
                        });
        Map<String, Object> merged = new LinkedHashMap<>();
        byId.forEach(
                (id, value) -> merged.put(first().field(id.conversationId, id.threadSeq), value));
        return merged;
    }

    private Object value(JsonNode value) {
        if (first().shape() != Count.Shape.SET) {
            return count(value);
        }
        if (!value.isBoolean()) {
            throw new IllegalArgumentException("a mark that is not true or false");
        }
        return value.booleanValue();
    }

    private static long count(JsonNode value) {
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 0) {
            throw new IllegalArgumentException("not a count");
        }
        return value.longValue();
    }

    private Map<String, Long> totals(Map<String, String> hash) {
        Map<String, Long> totals = new LinkedHashMap<>();
        for (Count count : counts) {
            String value = hash.get(count.totalField());
            totals.put(count.totalField(), value == null ? 0 : Long.parseLong(value));
        }
        return totals;
    }

    private Map<String, Long> byId(Map<String, String> hash) {
        Map<Id, Long> sorted = new TreeMap<>();
        hash.forEach(
                (field, n) -> sorted.put(Id.of(first().fieldKind(), field), Long.parseLong(n)));
        Map<String, Long> counts = new LinkedHashMap<>();
        sorted.forEach((id, n) -> counts.put(first().field(id.conversationId, id.threadSeq), n));
        return counts;
    }

    /** A conversation's id as a number, a thread's as its field. */
    private List<Object> members(Set<String> set) {
        List<Id> ids = new ArrayList<>(set.size());
        set.forEach(member -> ids.add(Id.of(first().fieldKind(), member)));
        ids.sort(null);
        List<Object> members = new ArrayList<>(ids.size());
        for (Id id : ids) {
            members.add(
                    first().fieldKind() == Field.CONVERSATION
                            ? (Object) id.conversationId
                            : first().field(id.conversationId, id.threadSeq));
        }
        return members;
    }

    /** A field or member that names a conversation or a thread, in numeric order of its ids. */
    private record Id(long conversationId, long threadSeq) implements Comparable<Id> {

        /**
         * @throws NumberFormatException for a field of another form than the job's
         */
        static Id of(Field kind, String field) {
            if (kind == Field.CONVERSATION) {
                return new Id(Long.parseLong(field), 0);
            }
            int colon = field.indexOf(':');
            if (colon < 0) {
                throw new NumberFormatException("not a thread field");
            }
            return new Id(
                    Long.parseLong(field.substring(0, colon)),
                    Long.parseLong(field.substring(colon + 1)));
        }

        @Override
        public int compareTo(Id other) {
            return conversationId != other.conversationId
                    ? Long.compare(conversationId, other.conversationId)
                    : Long.compare(threadSeq, other.threadSeq);
        }
    }

    /**
     * Completes openapi.json's {@link #SCHEMA}: each section's type and the list of required fields
     * from the catalog, beside the descriptions the document gives them.
     *
     * @throws IllegalStateException when the document describes a section the catalog lacks
     */
    static void document(ObjectNode schema) {
        JsonNode described = schema.path("properties");
        ObjectNode properties = JsonNodeFactory.instance.objectNode();
        properties.set("userId", described.get("userId"));
        ArrayNode required = JsonNodeFactory.instance.arrayNode().add("userId");
        for (CountSection section : ALL) {
            ObjectNode property = section.schema();
            JsonNode description = described.path(section.name).path("description");
            if (description.isTextual()) {
                property.set("description", description);
            }
            properties.set(section.name, property);
            required.add(section.name);
        }
        described
                .fieldNames()
                .forEachRemaining(
                        name -> {
                            if (!properties.has(name)) {
                                throw new IllegalStateException(
                                        "openapi.json describes "
                                                + name
                                                + ", which no count of the catalog answers");
                            }
                        });
        schema.set("required", required);
        schema.set("properties", properties);
    }

    private ObjectNode schema() {
        ObjectNode schema = JsonNodeFactory.instance.objectNode();
        switch (first().shape()) {
            case STRING -> integer(schema);
            case HASH -> {
                schema.put("type", "object");
                if (first().fieldKind() == Field.TOTAL) {
                    ArrayNode required = schema.putArray("required");
                    ObjectNode totals = schema.putObject("properties");
                    for (Count count : counts) {
                        required.add(count.totalField());
                        integer(totals.putObject(count.totalField()));
                    }
                } else {
                    integer(schema.putObject("additionalProperties"));
                }
            }
            case SET -> {
                ObjectNode items = schema.put("type", "array").putObject("items");
                if (first().fieldKind() == Field.CONVERSATION) {
                    integer(items);
                } else {
                    items.put("type", "string");
                }
            }
        }
        return schema;
    }

    private static void integer(ObjectNode schema) {
        schema.put("type", "integer").put("format", "int64");
    }
}
