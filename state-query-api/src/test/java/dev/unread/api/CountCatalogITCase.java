package dev.unread.api;

import static dev.unread.api.Http.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.unread.contract.Count;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The count catalog ({@link Count}) drives what the API answers: a user with a count in every entry
 * of the catalog, written as the job's sink writes it, finds each in {@code GET
 * /api/users/{userId}/unread} and in the stream's snapshot, and the served OpenAPI schema documents
 * exactly these fields with the types they have. So a constant added to the catalog reaches the
 * answers and the schema with no change to the API, or this test fails.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CountCatalogITCase {

    private static final long CONVERSATION = 80001;
    private static final long THREAD = 1038;

    private TestStores stores;
    private StateQueryApi api;
    private Http http;

    @BeforeAll
    void startApi() throws Exception {
        stores = new TestStores();
        api = StateQueryApi.start(stores.config(KafkaBroker.createTopic()).build());
        http = new Http(api);
    }

    @AfterAll
    void stopApi() throws Exception {
        if (api != null) {
            api.close();
        }
        stores.close();
    }

    @Test
    void everyCountOfTheCatalogIsAnsweredStreamedAndDocumented() throws Exception {
        long user = 901;
        for (Count count : Count.values()) {
            String key = count.key(stores.keyPrefix, user);
            switch (count.shape()) {
                case STRING -> stores.redis.set(key, Long.toString(value(count)));
                case HASH -> stores.redis.hset(key, field(count), Long.toString(value(count)));
                case SET -> stores.redis.sadd(key, field(count));
            }
        }
        List<String> fields = new ArrayList<>(List.of("userId"));
        for (Count count : Count.values()) {
            if (!fields.contains(count.section())) {
                fields.add(count.section());
            }
        }

        JsonNode answer = json(http.get("/api/users/" + user + "/unread"));
        JsonNode schema = json(http.get("/openapi.json")).at("/components/schemas/UserUnread");

        assertThat(names(answer)).containsExactlyElementsOf(fields);
        assertThat(names(schema.get("properties"))).containsExactlyElementsOf(fields);
        assertThat(schema.get("required")).extracting(JsonNode::asText).isEqualTo(fields);
        for (String field : fields) {
            assertConforms(field, answer.get(field), schema.get("properties").get(field));
        }
        for (Count count : Count.values()) {
            JsonNode section = answer.get(count.section());
            switch (count.shape()) {
                case STRING ->
                        assertThat(section.asLong()).as(count.name()).isEqualTo(value(count));
                case HASH ->
                        assertThat(section.get(field(count)).asLong())
                                .as(count.name())
                                .isEqualTo(value(count));
                case SET ->
                        assertThat(section)
                                .extracting(JsonNode::asText)
                                .as(count.name())
                                .containsExactly(field(count));
            }
        }

        String events = "http://127.0.0.1:" + api.port() + "/api/users/" + user + "/events";
        try (LiveClient sse = LiveClient.sse(events)) {
            JsonNode snapshot = sse.next();
            List<String> streamed = new ArrayList<>(List.of("type", "userId", "version"));
            streamed.addAll(fields.subList(1, fields.size()));
            assertThat(names(snapshot)).containsExactlyElementsOf(streamed);
            for (Count count : Count.values()) {
                JsonNode expected = answer.get(count.section());
                JsonNode section = snapshot.get(count.section());
                if (count.shape() == Count.Shape.SET) {
                    // As UNREAD_CHANGED carries a mark.
                    assertThat(section)
                            .isEqualTo(Http.JSON.valueToTree(Map.of(field(count), true)));
                } else {
                    assertThat(section).as(count.name()).isEqualTo(expected);
                }
            }
        }
    }

    /** A count of its own per entry, so that one answered in another's place is seen. */
    private static long value(Count count) {
        return 10L + count.ordinal();
    }

    private static String field(Count count) {
        return count.field(CONVERSATION, THREAD);
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** The OpenAPI schema's types, as far as the answers use them. */
    private static void assertConforms(String path, JsonNode value, JsonNode schema) {
        assertThat(schema).as(path + ": a schema").isNotNull();
        switch (schema.path("type").asText()) {
            case "integer" -> assertThat(value.isIntegralNumber()).as(path).isTrue();
            case "string" -> assertThat(value.isTextual()).as(path).isTrue();
            case "array" -> {
                assertThat(value.isArray()).as(path).isTrue();
                value.forEach(item -> assertConforms(path + "[]", item, schema.get("items")));
            }
            case "object" -> {
                assertThat(value.isObject()).as(path).isTrue();
                if (schema.has("properties")) {
                    assertThat(new LinkedHashSet<>(names(value)))
                            .as(path)
                            .isEqualTo(new LinkedHashSet<>(names(schema.get("properties"))));
                    assertThat(schema.get("required"))
                            .extracting(JsonNode::asText)
                            .as(path)
                            .containsExactlyElementsOf(names(value));
                    value.fields()
                            .forEachRemaining(
                                    e ->
                                            assertConforms(
                                                    path + "." + e.getKey(),
                                                    e.getValue(),
                                                    schema.get("properties").get(e.getKey())));
                } else {
                    value.fields()
                            .forEachRemaining(
                                    e ->
                                            assertConforms(
                                                    path + "." + e.getKey(),
                                                    e.getValue(),
                                                    schema.get("additionalProperties")));
                }
            }
            default -> throw new AssertionError(path + ": no type in the schema: " + schema);
        }
    }
}
