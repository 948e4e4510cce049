package dev.unread.api;

import static dev.unread.api.Http.assertError;
import static dev.unread.api.Http.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.unread.contract.Count;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;
import java.util.TreeSet;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Pipeline;

/** The API with every dependency up and no token: each route's answer and each client error. */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StateQueryApiITCase {

    private static final long CATALOG_CONVERSATION = 80001;
    private static final long CATALOG_THREAD = 1038;

    @RegisterExtension static final StartedApi STARTED = StartedApi.with(c -> c);

    private TestStores stores;
    private String readsTopic;
    private StateQueryApi api;
    private Http http;

    @BeforeAll
    void takeApi() {
        stores = STARTED.stores();
        readsTopic = STARTED.topic();
        api = STARTED.api();
        http = STARTED.http();
    }

    // --- reads from Redis ---

    @Test
    void userDataIsNeverCachedAndThePageRunsOnlyItsOwnScriptInNoFrame() {
        HttpResponse<String> unread = http.get("/api/users/1/unread");
        assertThat(unread.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(unread.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");

        HttpResponse<String> page = http.get("/");
        assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        String policy = page.headers().firstValue("Content-Security-Policy").orElseThrow();
        assertThat(policy)
                .startsWith("default-src 'none'; script-src 'sha256-")
                .contains("frame-ancestors 'none'")
                .doesNotContain("unsafe-inline");
    }

    @Test
    void unreadAnswersTheBadgeAndEachConversationsCountFromRedis() {
        stores.redis.set(stores.keyPrefix + "unread:senders:10086", "3");
        stores.redis.hset(stores.keyPrefix + "chat:unread:10086", Map.of("80001", "18", "7", "2"));

        HttpResponse<String> response = http.get("/api/users/10086/unread");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        // Conversations in numeric order, counts as numbers.
        assertThat(response.body())
                .isEqualTo(
                        "{\"userId\":10086,\"unreadSenders\":3,\"conversations\":{\"7\":2,\"80001\":18},"
                                + NOTHING_MORE
                                + "}");
    }

    @Test
    void readersCountEveryCursorAtOrPastSeqAndListAHundredLowestFirst() {
        String key = stores.keyPrefix + "chat:readers:80001";
        Map<String, Double> scores = new java.util.HashMap<>();
        for (long user = 1; user <= 150; user++) {
            scores.put(Long.toString(10_000 + user), (double) (1000 + user));
        }
        scores.put("7", 5.0);
        stores.redis.zadd(key, scores);

        HttpResponse<String> response = http.get("/api/conversations/80001/readers?seq=1011");

        assertThat(response.statusCode()).isEqualTo(200);
        String first =
                java.util.stream.LongStream.rangeClosed(10_011, 10_110)
                        .mapToObj(Long::toString)
                        .collect(java.util.stream.Collectors.joining(","));
        assertThat(response.body())
                .isEqualTo(
                        "{\"conversationId\":80001,\"seq\":1011,"
                                + "\"readCount\":140,\"readers\":["
                                + first
                                + "]}");
        assertThat(http.get("/api/conversations/80001/readers?seq=1").body())
                .contains("\"readCount\":151");
        assertThat(http.get("/api/conversations/80002/readers?seq=1").body())
                .isEqualTo("{\"conversationId\":80002,\"seq\":1,\"readCount\":0,\"readers\":[]}");
    }

    /** The fields of a user with no mentions, totals, marks or threads. */
    private static final String NOTHING_MORE =
            "\"mentions\":{},\"channelMentions\":{},\"totals\":{\"messages\":0,\"mentions\":0,"
                    + "\"conversations\":0,\"threads\":0},\"markedUnread\":[],\"threads\":{},"
                    + "\"threadMentions\":{},\"threadChannelMentions\":{}";

    @Test
    void aUserWithNoKeysHasNothingUnread() {
        HttpResponse<String> response = http.get("/api/users/424242/unread");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body())
                .isEqualTo(
                        "{\"userId\":424242,\"unreadSenders\":0,\"conversations\":{},"
                                + NOTHING_MORE
                                + "}");
    }

    @Test
    void theLargestUserIdIsAccepted() {
        HttpResponse<String> response = http.get("/api/users/" + Long.MAX_VALUE + "/unread");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(json(response).get("userId").asLong()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void batchAnswersEveryUserOnceInTheOrderFirstAsked() {
        stores.redis.set(stores.keyPrefix + "unread:senders:501", "1");
        stores.redis.hset(stores.keyPrefix + "chat:unread:502", "9", "4");

        HttpResponse<String> response = http.get("/api/unread?userIds=502,503,501,502");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body())
                .isEqualTo(
                        "{\"users\":["
                                + "{\"userId\":502,\"unreadSenders\":0,\"conversations\":{\"9\":4},"
                                + NOTHING_MORE
                                + "},"
                                + "{\"userId\":503,\"unreadSenders\":0,\"conversations\":{},"
                                + NOTHING_MORE
                                + "},"
                                + "{\"userId\":501,\"unreadSenders\":1,\"conversations\":{},"
                                + NOTHING_MORE
                                + "}]}");
    }

    @Test
    void mentionsTotalsAndMarksAreAnsweredBesideTheCounts() {
        stores.redis.hset(stores.keyPrefix + "chat:unread:701", "9", "4");
        stores.redis.hset(stores.keyPrefix + "chat:mentions:701", "9", "2");
        stores.redis.hset(stores.keyPrefix + "chat:channel-mentions:701", "9", "1");
        stores.redis.hset(stores.keyPrefix + "unread:totals:701", "messages", "4");
        stores.redis.hset(stores.keyPrefix + "unread:totals:701", "conversations", "2");
        stores.redis.sadd(stores.keyPrefix + "chat:marked-unread:701", "12", "3");

        String expected =
                "{\"userId\":701,\"unreadSenders\":0,\"conversations\":{\"9\":4},"
                        + "\"mentions\":{\"9\":2},\"channelMentions\":{\"9\":1},"
                        + "\"totals\":{\"messages\":4,\"mentions\":0,\"conversations\":2,"
                        + "\"threads\":0},\"markedUnread\":[3,12],\"threads\":{},"
                        + "\"threadMentions\":{},\"threadChannelMentions\":{}}";
        assertThat(http.get("/api/users/701/unread").body()).isEqualTo(expected);
        assertThat(http.get("/api/unread?userIds=701").body())
                .isEqualTo("{\"users\":[" + expected + "]}");
    }

    @Test
    void aMarkedUnreadKeyOfAnotherTypeMakesItsUserUnreadable() {
        stores.redis.set(stores.keyPrefix + "chat:marked-unread:702", "x");

        HttpResponse<String> response = http.get("/api/unread?userIds=702,703");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(json(response).get("users").get(0).get("error").asText())
                .isEqualTo("unreadable counts in Redis");
        assertThat(json(response).get("users").get(1).get("userId").asLong()).isEqualTo(703);
    }

    @Test
    void batchOf500NineteenDigitIdsAnswersAllInOrder() {
        // Descending, so that order by id and order asked differ; 19 digits make a ~10 KB URI.
        long[] ids = LongStream.range(0, 500).map(i -> Long.MAX_VALUE - 7 * i).toArray();
        try (Pipeline p = stores.redis.pipelined()) {
            for (long id : ids) {
                p.set(stores.keyPrefix + "unread:senders:" + id, Long.toString(id % 1000));
                p.hset(stores.keyPrefix + "chat:unread:" + id, Long.toString(id % 77 + 1), "5");
            }
        }

        HttpResponse<String> response = http.get("/api/unread?userIds=" + join(ids));

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode users = json(response).get("users");
        assertThat(users).hasSize(500);
        for (int i = 0; i < ids.length; i++) {
            JsonNode user = users.get(i);
            assertThat(user.get("userId").asLong()).isEqualTo(ids[i]);
            assertThat(user.get("unreadSenders").asLong()).isEqualTo(ids[i] % 1000);
            assertThat(user.get("conversations").get(Long.toString(ids[i] % 77 + 1)).asLong())
                    .isEqualTo(5);
        }
    }

    @Test
    void aValueTheApiCannotReadMarksItsUserAndTheRestOfTheBatchIsAnswered() {
        stores.redis.set(stores.keyPrefix + "unread:senders:601", "2");
        stores.redis.set(stores.keyPrefix + "unread:senders:602", "many");
        stores.redis.lpush(stores.keyPrefix + "unread:senders:603", "3");
        stores.redis.set(stores.keyPrefix + "chat:unread:604", "not a hash");
        stores.redis.hset(stores.keyPrefix + "chat:unread:605", "x", "1");

        HttpResponse<String> response = http.get("/api/unread?userIds=601,602,603,604,605,606");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        String unreadable = "\"error\":\"unreadable counts in Redis\"}";
        assertThat(response.body())
                .isEqualTo(
                        "{\"users\":["
                                + "{\"userId\":601,\"unreadSenders\":2,\"conversations\":{},"
                                + NOTHING_MORE
                                + "},"
                                + "{\"userId\":602,"
                                + unreadable
                                + ","
                                + "{\"userId\":603,"
                                + unreadable
                                + ","
                                + "{\"userId\":604,"
                                + unreadable
                                + ","
                                + "{\"userId\":605,"
                                + unreadable
                                + ","
                                + "{\"userId\":606,\"unreadSenders\":0,\"conversations\":{},"
                                + NOTHING_MORE
                                + "}]}");
        assertError(http.get("/api/users/603/unread"), 500);
    }

    @Test
    void batchOf501IdsIsRefused() {
        long[] ids = LongStream.rangeClosed(1, 501).toArray();

        String message = assertError(http.get("/api/unread?userIds=" + join(ids)), 400);

        assertThat(message).contains("at most 500");
    }

    // --- reads from MySQL ---

    @Test
    void cursorsAnswerLastReadAtAsUtcEpochMillisAndEachConversationsCursor() throws Exception {
        stores.sql(
                "INSERT INTO "
                        + stores.database
                        + ".user_activity VALUES"
                        + " (20001, '2026-01-01 00:00:00.123', '2026-01-01 00:00:01')");
        stores.sql(
                "INSERT INTO "
                        + stores.database
                        + ".conversation_member VALUES"
                        + " (80001, 20001, 1038, 5), (7, 20001, 3, 0), (80001, 20002, 99, 1)");

        HttpResponse<String> response = http.get("/api/users/20001/cursors");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body())
                .isEqualTo(
                        "{\"userId\":20001,\"lastReadAt\":1767225600123,"
                                + "\"conversations\":{\"7\":{\"lastReadSeq\":3,\"unreadCount\":0},"
                                + "\"80001\":{\"lastReadSeq\":1038,\"unreadCount\":5}}}");
    }

    @Test
    void lastReadAtIsReadAsUtcWhateverTheJvmAndSessionTimeZones() throws Exception {
        stores.sql(
                "INSERT INTO "
                        + stores.database
                        + ".user_activity VALUES"
                        + " (20010, '2026-07-01 12:00:00.000', '2026-07-01 12:00:00')");
        TimeZone jvmZone = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("America/Los_Angeles"));
        String url =
                stores.jdbcUrl()
                        + "?connectionTimeZone=%2B09:00&forceConnectionTimeZoneToSession=true";
        try (StateQueryApi shifted =
                StateQueryApi.start(stores.config(readsTopic).jdbcUrl(url).build())) {
            HttpResponse<String> response = new Http(shifted).get("/api/users/20010/cursors");

            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            assertThat(json(response).get("lastReadAt").asLong()).isEqualTo(1782907200000L);
        } finally {
            TimeZone.setDefault(jvmZone);
        }
    }

    @Test
    void beforeTheJobCreatedItsTablesCursorsAreThoseOfAUserWithNone() throws Exception {
        String empty = stores.database + "_empty";
        stores.sql("CREATE DATABASE " + empty);
        try (StateQueryApi fresh =
                StateQueryApi.start(
                        stores.config(readsTopic)
                                .jdbcUrl(stores.jdbcUrl().replace(stores.database, empty))
                                .build())) {
            HttpResponse<String> response = new Http(fresh).get("/api/users/30303/cursors");

            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            assertThat(response.body())
                    .isEqualTo("{\"userId\":30303,\"lastReadAt\":null,\"conversations\":{}}");
        } finally {
            stores.sql("DROP DATABASE IF EXISTS " + empty);
        }
    }

    @Test
    void aUserWithNoCursorsHasNullLastReadAtAndNoConversations() {
        HttpResponse<String> response = http.get("/api/users/30303/cursors");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body())
                .isEqualTo("{\"userId\":30303,\"lastReadAt\":null,\"conversations\":{}}");
    }

    // --- writes to Kafka ---

    @Test
    void inboxOpenedPublishesTheEventKeyedByUserOnce() throws Exception {
        String topic = KafkaBroker.createTopic();
        try (StateQueryApi own = StateQueryApi.start(stores.config(topic).build())) {
            long before = System.currentTimeMillis();
            HttpResponse<String> response = new Http(own).post("/api/users/10086/inbox/opened", "");
            long after = System.currentTimeMillis();

            assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
            JsonNode answered = json(response);
            long readAt = answered.get("readAt").asLong();
            assertThat(readAt).isBetween(before, after);
            String expected =
                    "{\"type\":\"INBOX_OPENED\",\"userId\":10086,\"readAt\":" + readAt + "}";
            assertThat(response.body()).isEqualTo(expected);

            List<ConsumerRecord<String, String>> records = KafkaBroker.consumeAll(topic);
            assertThat(records).hasSize(1);
            assertThat(records.get(0).key()).isEqualTo("10086");
            assertThat(records.get(0).value()).isEqualTo(expected);
        }
    }

    @Test
    void readAllPublishesAllReadKeyedByUserOnce() throws Exception {
        String topic = KafkaBroker.createTopic();
        try (StateQueryApi own = StateQueryApi.start(stores.config(topic).build())) {
            long before = System.currentTimeMillis();
            HttpResponse<String> response = new Http(own).post("/api/users/10086/read-all", "");
            long after = System.currentTimeMillis();

            assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
            long readAt = json(response).get("readAt").asLong();
            assertThat(readAt).isBetween(before, after);
            String expected = "{\"type\":\"ALL_READ\",\"userId\":10086,\"readAt\":" + readAt + "}";
            assertThat(response.body()).isEqualTo(expected);

            List<ConsumerRecord<String, String>> records = KafkaBroker.consumeAll(topic);
            assertThat(records).hasSize(1);
            assertThat(records.get(0).key()).isEqualTo("10086");
            assertThat(records.get(0).value()).isEqualTo(expected);
        }
    }

    @Test
    void conversationReadPublishesTheEventKeyedByUserOnce() throws Exception {
        String topic = KafkaBroker.createTopic();
        try (StateQueryApi own = StateQueryApi.start(stores.config(topic).build())) {
            long before = System.currentTimeMillis();
            HttpResponse<String> response =
                    new Http(own)
                            .post(
                                    "/api/conversations/80001/read",
                                            "{\"userId\":10086,\"readSeq\":1038,\"x\":1}",
                                    "Content-Type", "application/json");
            long after = System.currentTimeMillis();

            assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
            long readAt = json(response).get("readAt").asLong();
            assertThat(readAt).isBetween(before, after);
            String expected =
                    "{\"type\":\"CONVERSATION_READ\",\"userId\":10086,"
                            + "\"conversationId\":80001,\"readSeq\":1038,\"readAt\":"
                            + readAt
                            + "}";
            assertThat(response.body()).isEqualTo(expected);

            List<ConsumerRecord<String, String>> records = KafkaBroker.consumeAll(topic);
            assertThat(records).hasSize(1);
            assertThat(records.get(0).key()).isEqualTo("10086");
            assertThat(records.get(0).value()).isEqualTo(expected);
        }
    }

    @Test
    void aPreferencePublishesTheEventKeyedByUserOnce() throws Exception {
        String topic = KafkaBroker.createTopic();
        try (StateQueryApi own = StateQueryApi.start(stores.config(topic).build())) {
            long before = System.currentTimeMillis();
            HttpResponse<String> response =
                    new Http(own)
                            .send(
                                    "PUT",
                                    "/api/users/10086/conversations/80001/preference",
                                    HttpRequest.BodyPublishers.ofString(
                                            "{\"countPreference\":\"MENTIONS\"}"),
                                    "Content-Type",
                                    "application/json");
            long after = System.currentTimeMillis();

            assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
            long setAt = json(response).get("setAt").asLong();
            assertThat(setAt).isBetween(before, after);
            String expected =
                    "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":10086,"
                            + "\"conversationId\":80001,\"countPreference\":\"MENTIONS\",\"setAt\":"
                            + setAt
                            + "}";
            assertThat(response.body()).isEqualTo(expected);
            List<ConsumerRecord<String, String>> records = KafkaBroker.consumeAll(topic);
            assertThat(records).hasSize(1);
            assertThat(records.get(0).key()).isEqualTo("10086");
            assertThat(records.get(0).value()).isEqualTo(expected);
        }
    }

    @Test
    void ignoreChannelMentionsPublishesWhatTheBodyGaveAlone() throws Exception {
        String topic = KafkaBroker.createTopic();
        try (StateQueryApi own = StateQueryApi.start(stores.config(topic).build())) {
            Http client = new Http(own);
            HttpResponse<String> alone =
                    client.send(
                            "PUT",
                            "/api/users/10086/conversations/80001/preference",
                            HttpRequest.BodyPublishers.ofString(
                                    "{\"ignoreChannelMentions\":true,\"countPreference\":null}"),
                            "Content-Type",
                            "application/json");
            HttpResponse<String> both =
                    client.send(
                            "PUT",
                            "/api/users/10086/conversations/80001/preference",
                            HttpRequest.BodyPublishers.ofString(
                                    "{\"ignoreChannelMentions\":false,\"countPreference\":\"NONE\"}"),
                            "Content-Type",
                            "application/json");

            assertThat(alone.statusCode()).as(alone.body()).isEqualTo(202);
            assertThat(both.statusCode()).as(both.body()).isEqualTo(202);
            String expectedAlone =
                    "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":10086,"
                            + "\"conversationId\":80001,\"ignoreChannelMentions\":true,\"setAt\":"
                            + json(alone).get("setAt").asLong()
                            + "}";
            String expectedBoth =
                    "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":10086,"
                            + "\"conversationId\":80001,\"countPreference\":\"NONE\","
                            + "\"ignoreChannelMentions\":false,\"setAt\":"
                            + json(both).get("setAt").asLong()
                            + "}";
            assertThat(alone.body()).isEqualTo(expectedAlone);
            assertThat(both.body()).isEqualTo(expectedBoth);
            assertThat(KafkaBroker.consumeAll(topic))
                    .extracting(ConsumerRecord::value)
                    .containsExactly(expectedAlone, expectedBoth);
        }
    }

    @Test
    void markUnreadPublishesTheEventKeyedByUserOnce() throws Exception {
        String topic = KafkaBroker.createTopic();
        try (StateQueryApi own = StateQueryApi.start(stores.config(topic).build())) {
            long before = System.currentTimeMillis();
            HttpResponse<String> response =
                    new Http(own).post("/api/users/10086/conversations/80001/unread", "");
            long after = System.currentTimeMillis();

            assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
            long markedAt = json(response).get("markedAt").asLong();
            assertThat(markedAt).isBetween(before, after);
            String expected =
                    "{\"type\":\"CONVERSATION_MARKED_UNREAD\",\"userId\":10086,"
                            + "\"conversationId\":80001,\"markedAt\":"
                            + markedAt
                            + "}";
            assertThat(response.body()).isEqualTo(expected);
            List<ConsumerRecord<String, String>> records = KafkaBroker.consumeAll(topic);
            assertThat(records).hasSize(1);
            assertThat(records.get(0).value()).isEqualTo(expected);
        }
    }

    @Test
    void aPreferenceOutsideTheThreeIsRefused() {
        for (String body :
                new String[] {
                    "{}",
                    "{\"countPreference\":null}",
                    "{\"countPreference\":\"mentions\"}",
                    "{\"countPreference\":1}",
                    "{\"ignoreChannelMentions\":\"true\"}",
                    "{\"ignoreChannelMentions\":1,\"countPreference\":\"ALL\"}",
                    "{\"ignoreChannelMentions\":true,\"countPreference\":\"all\"}",
                    "{\"ignoreChannelMentions\":null}",
                    "[]",
                    "not json"
                }) {
            HttpResponse<String> response =
                    http.send(
                            "PUT",
                            "/api/users/10086/conversations/80001/preference",
                            HttpRequest.BodyPublishers.ofString(body));
            assertThat(response.statusCode()).as(body).isEqualTo(400);
            Http.assertError(response, 400);
        }
        assertThat(
                        http.send(
                                        "PUT",
                                        "/api/users/10086/conversations/0/preference",
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"countPreference\":\"ALL\"}"))
                                .statusCode())
                .isEqualTo(400);
        assertThat(http.post("/api/users/10086/conversations/x/unread", "").statusCode())
                .isEqualTo(400);
    }

    @Test
    void readSeqZeroIsAValidRead() {
        HttpResponse<String> response =
                http.post("/api/conversations/5/read", "{\"userId\":1,\"readSeq\":0}");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        assertThat(json(response).get("readSeq").asLong()).isZero();
    }

    // --- health, metrics, OpenAPI ---

    @Test
    void healthIsUpWhenRedisMySqlAndKafkaAnswer() {
        HttpResponse<String> response = http.get("/health");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body())
                .isEqualTo(
                        "{\"status\":\"UP\","
                                + "\"checks\":{\"redis\":\"UP\",\"mysql\":\"UP\",\"kafka\":\"UP\"}}");
    }

    @Test
    void healthIsDownWhenTheEmbeddersCheckFails() throws Exception {
        String[] problem = {"job is RESTARTING"};
        HealthCheck flink = HealthCheck.named("flink", () -> problem[0]);
        try (StateQueryApi withCheck =
                StateQueryApi.start(stores.config(readsTopic).build(), flink)) {
            Http client = new Http(withCheck);

            HttpResponse<String> down = client.get("/health");
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(json(down).get("checks").get("flink").asText())
                    .isEqualTo("DOWN: job is RESTARTING");
            assertThat(json(down).get("error").asText()).isEqualTo("unavailable: flink");

            problem[0] = null;
            // A round of checks answers the probes of the next second.
            Poll.until(() -> client.get("/health").statusCode() == 200);
            assertThat(json(client.get("/health")).get("checks").get("flink").asText())
                    .isEqualTo("UP");
        }
    }

    /**
     * Issue 45 item 11: {@code /health} is open to anyone, so only the service token learns why a
     * check failed; anyone else sees UP or DOWN.
     */
    @Test
    void onlyTheServiceTokenLearnsWhyAHealthCheckFailed() throws Exception {
        String token = "service-token-0123456789";
        String[] problem = {"disk of 10.0.0.3 full"};
        HealthCheck disk = HealthCheck.named("flink", () -> problem[0]);
        try (StateQueryApi guarded =
                StateQueryApi.start(stores.config(readsTopic).token(token).build(), disk)) {
            Http client = new Http(guarded);
            for (String[] anonymous : new String[][] {{}, {"Authorization", "Bearer wrong"}}) {
                HttpResponse<String> down = client.get("/health", anonymous);
                assertThat(down.statusCode()).isEqualTo(503);
                JsonNode body = json(down);
                assertThat(body.get("checks").get("flink").asText()).isEqualTo("DOWN");
                assertThat(body.get("checks").get("redis").asText()).isEqualTo("UP");
                assertThat(body.get("error").asText()).isEqualTo("unavailable: flink");
                assertThat(down.body()).doesNotContain("10.0.0.3");
            }
            HttpResponse<String> told = client.get("/health", "Authorization", "Bearer " + token);
            assertThat(json(told).get("checks").get("flink").asText())
                    .isEqualTo("DOWN: disk of 10.0.0.3 full");
        }
    }

    /** Issue 45 item 11: a flood of probes checks the dependencies about once a second. */
    @Test
    void aFloodOfHealthProbesChecksTheDependenciesAboutOnceASecond() {
        AtomicInteger checks = new AtomicInteger();
        HealthCheck counted =
                HealthCheck.named(
                        "flink",
                        () -> {
                            checks.incrementAndGet();
                            return null;
                        });
        try (StateQueryApi probed =
                StateQueryApi.start(stores.config(readsTopic).build(), counted)) {
            Http client = new Http(probed);
            client.get("/health");
            int before = checks.get();
            long started = System.nanoTime();
            int probes = 100;
            for (int i = 0; i < probes; i++) {
                assertThat(client.get("/health").statusCode()).isEqualTo(200);
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            int ran = checks.get() - before;
            System.out.printf(
                    "%d probes of /health in %.2f s ran the checks %d times%n",
                    probes, seconds, ran);
            assertThat(ran).isLessThanOrEqualTo((int) Math.ceil(seconds) + 1);
        }
    }

    @Test
    void aFailingEmbedderCheckShowsNoExceptionText() {
        HealthCheck broken =
                HealthCheck.named(
                        "flink",
                        () -> {
                            throw new IllegalStateException("secret internals");
                        });
        try (StateQueryApi withCheck =
                StateQueryApi.start(stores.config(readsTopic).build(), broken)) {
            HttpResponse<String> response = new Http(withCheck).get("/health");

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.body()).doesNotContain("secret").doesNotContain("Exception");
        }
    }

    @Test
    void metricsCountRequestsByRouteTemplateAndStatus() {
        try (StateQueryApi own = StateQueryApi.start(stores.config(readsTopic).build())) {
            Http client = new Http(own);
            client.get("/api/users/1/unread");
            client.get("/api/users/2/unread");
            client.get("/api/users/x/unread");
            client.get("/no/such/route");

            HttpResponse<String> response = client.get("/metrics");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type").orElse(""))
                    .startsWith("text/plain; version=0.0.4");
            List<String> lines = response.body().lines().toList();
            assertThat(
                            sample(
                                    lines,
                                    "unread_api_requests_total",
                                    "GET",
                                    "/api/users/{userId}/unread",
                                    "200"))
                    .isEqualTo("2.0");
            assertThat(
                            sample(
                                    lines,
                                    "unread_api_requests_total",
                                    "GET",
                                    "/api/users/{userId}/unread",
                                    "400"))
                    .isEqualTo("1.0");
            assertThat(sample(lines, "unread_api_requests_total", "GET", "unmatched", "404"))
                    .isEqualTo("1.0");
            assertThat(
                            sample(
                                    lines,
                                    "unread_api_request_duration_seconds_count",
                                    "GET",
                                    "/api/users/{userId}/unread",
                                    "200"))
                    .isEqualTo("2");
            // No raw paths as labels: one series per route, not per user.
            assertThat(response.body()).doesNotContain("/api/users/1/").doesNotContain("/no/such");
            assertThat(lines)
                    .contains("unread_api_dependency_errors_total{dependency=\"redis\"} 0.0")
                    // Before any was cut off, so that an alert's rate() has a series to read.
                    .contains("unread_api_streams_cut_off_total{reason=\"redis\"} 0.0")
                    .contains("unread_api_streams_cut_off_total{reason=\"slow\"} 0.0");
        }
    }

    @Test
    void openApiDocumentsExactlyTheRoutesServed() {
        HttpResponse<String> response = http.get("/openapi.json");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode doc = json(response);
        assertThat(doc.get("openapi").asText()).startsWith("3.");
        Set<String> documented = new TreeSet<>();
        Iterator<Map.Entry<String, JsonNode>> paths = doc.get("paths").fields();
        while (paths.hasNext()) {
            Map.Entry<String, JsonNode> path = paths.next();
            path.getValue()
                    .fieldNames()
                    .forEachRemaining(
                            method -> documented.add(method.toUpperCase() + " " + path.getKey()));
        }
        assertThat(documented).isEqualTo(new TreeSet<>(api.routes()));
        // And each documented route is really there: anything but 404 and 405.
        for (String route : documented) {
            String[] methodAndPath = route.split(" ");
            String path =
                    methodAndPath[1]
                            .replace("{userId}", "1")
                            .replace("{cid}", "1")
                            .replace("{threadSeq}", "1");
            HttpResponse<String> answer =
                    http.send(
                            methodAndPath[0],
                            path,
                            HttpRequest.BodyPublishers.ofString("{\"userId\":1,\"readSeq\":1}"));
            assertThat(answer.statusCode()).as(route).isNotIn(404, 405);
        }
    }

    /**
     * The count catalog ({@link Count}) drives what the API answers: a user with a count in every
     * entry of the catalog, written as the job's sink writes it, finds each in {@code GET
     * /api/users/{userId}/unread} and in the stream's snapshot, and the served OpenAPI schema
     * documents exactly these fields with the types they have. So a constant added to the catalog
     * reaches the answers and the schema with no change to the API, or this test fails.
     */
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
        return count.field(CATALOG_CONVERSATION, CATALOG_THREAD);
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
                }
                value.fields()
                        .forEachRemaining(
                                e ->
                                        assertConforms(
                                                path + "." + e.getKey(),
                                                e.getValue(),
                                                schema.has("properties")
                                                        ? schema.get("properties").get(e.getKey())
                                                        : schema.get("additionalProperties")));
            }
            default -> throw new AssertionError(path + ": no type in the schema: " + schema);
        }
    }

    // --- client errors ---

    static Stream<Arguments> badRequests() {
        String tooBig = "9223372036854775808";
        return Stream.of(
                get("/api/users/abc/unread"),
                get("/api/users/0/unread"),
                get("/api/users/-5/unread"),
                get("/api/users/+5/unread"),
                get("/api/users/1.5/unread"),
                get("/api/users/" + tooBig + "/unread"),
                get("/api/users/99999999999999999999/unread"),
                get("/api/users/abc/cursors"),
                get("/api/users/0/cursors"),
                get("/api/users/" + tooBig + "/cursors"),
                get("/api/unread"),
                get("/api/unread?userIds="),
                get("/api/unread?userIds=1,,2"),
                get("/api/unread?userIds=1,2,"),
                get("/api/unread?userIds=1,x"),
                get("/api/unread?userIds=1,0"),
                get("/api/unread?userIds=1,%202"),
                get("/api/unread?userIds=" + tooBig),
                get("/api/unread?userIds=1&userIds=2"),
                post("/api/users/abc/inbox/opened", ""),
                post("/api/users/0/inbox/opened", ""),
                post("/api/users/" + tooBig + "/inbox/opened", ""),
                post("/api/conversations/abc/read", "{\"userId\":1,\"readSeq\":1}"),
                post("/api/conversations/0/read", "{\"userId\":1,\"readSeq\":1}"),
                post("/api/conversations/" + tooBig + "/read", "{\"userId\":1,\"readSeq\":1}"),
                post("/api/conversations/1/read", ""),
                post("/api/conversations/1/read", "not json"),
                post("/api/conversations/1/read", "[1,2]"),
                post("/api/conversations/1/read", "\"text\""),
                post("/api/conversations/1/read", "{\"userId\":1,\"readSeq\":1} trailing"),
                post("/api/conversations/1/read", "{\"userId\":1,\"readSeq\":1,\"userId\":2}"),
                post("/api/conversations/1/read", "{\"readSeq\":1}"),
                post("/api/conversations/1/read", "{\"userId\":1}"),
                post("/api/conversations/1/read", "{\"userId\":null,\"readSeq\":1}"),
                post("/api/conversations/1/read", "{\"userId\":1,\"readSeq\":-1}"),
                post("/api/conversations/1/read", "{\"userId\":0,\"readSeq\":1}"),
                post("/api/conversations/1/read", "{\"userId\":-3,\"readSeq\":1}"),
                post("/api/conversations/1/read", "{\"userId\":\"1\",\"readSeq\":1}"),
                post("/api/conversations/1/read", "{\"userId\":1,\"readSeq\":\"7\"}"),
                post("/api/conversations/1/read", "{\"userId\":1.5,\"readSeq\":1}"),
                post("/api/conversations/1/read", "{\"userId\":1,\"readSeq\":1e3}"),
                post("/api/conversations/1/read", "{\"userId\":true,\"readSeq\":1}"),
                post("/api/conversations/1/read", "{\"userId\":1,\"readSeq\":[1]}"),
                post("/api/conversations/1/read", "{\"userId\":" + tooBig + ",\"readSeq\":1}"),
                post("/api/conversations/1/read", "{\"userId\":1,\"readSeq\":" + tooBig + "}"),
                get("/api/conversations/1/readers"),
                get("/api/conversations/1/readers?seq="),
                get("/api/conversations/1/readers?seq=0"),
                get("/api/conversations/1/readers?seq=-1"),
                get("/api/conversations/1/readers?seq=x"),
                get("/api/conversations/1/readers?seq=" + tooBig),
                get("/api/conversations/1/readers?seq=1&seq=2"),
                get("/api/conversations/0/readers?seq=1"),
                get("/api/conversations/abc/readers?seq=1"));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("badRequests")
    void malformedIdsQueriesAndBodiesGet400(String method, String path, String body) {
        HttpResponse<String> response =
                http.send(method, path, HttpRequest.BodyPublishers.ofString(body));

        assertError(response, 400);
    }

    @Test
    void anUnknownRouteGets404() {
        assertError(http.get("/api/users/1/nothing"), 404);
        assertError(http.get("/nothing"), 404);
        assertError(http.post("/api/users", "{}"), 404);
    }

    @Test
    void aWrongMethodOnAKnownPathGets405() {
        assertError(http.post("/api/users/1/unread", ""), 405);
        assertError(http.get("/api/users/1/inbox/opened"), 405);
        assertError(http.get("/api/conversations/1/read"), 405);
        assertError(http.send("DELETE", "/health", HttpRequest.BodyPublishers.noBody()), 405);
    }

    @Test
    void aBodyOver16KiBGets413WithOrWithoutContentLength() {
        String padding = "x".repeat(Bodies.MAX_BODY_BYTES);
        String big = "{\"userId\":1,\"readSeq\":1,\"pad\":\"" + padding + "\"}";

        assertError(http.post("/api/conversations/1/read", big), 413);
        assertError(http.post("/api/users/1/inbox/opened", big), 413);
        // Chunked: no Content-Length, so the limit must hold while reading.
        assertError(http.send("POST", "/api/conversations/1/read", chunked(big)), 413);
    }

    @Test
    void aBodyOfExactly16KiBIsAccepted() {
        String head = "{\"userId\":1,\"readSeq\":1,\"pad\":\"";
        String body = head + "x".repeat(Bodies.MAX_BODY_BYTES - head.length() - 2) + "\"}";
        assertThat(body.getBytes(StandardCharsets.UTF_8)).hasSize(Bodies.MAX_BODY_BYTES);

        assertThat(http.post("/api/conversations/1/read", body).statusCode()).isEqualTo(202);
    }

    @Test
    void aUriTooLargeForJettyStillGetsAJsonError() {
        HttpResponse<String> response =
                http.get("/api/unread?userIds=" + "1,".repeat(40_000) + "1");

        assertThat(response.statusCode()).isIn(414, 431);
        assertError(response, response.statusCode());
    }

    // --- helpers ---

    private static String join(long[] ids) {
        return LongStream.of(ids).mapToObj(Long::toString).collect(Collectors.joining(","));
    }

    private static Arguments get(String path) {
        return Arguments.of("GET", path, "");
    }

    private static Arguments post(String path, String body) {
        return Arguments.of("POST", path, body);
    }

    /** The value of the sample of {@code metric} with these labels, in any label order. */
    private static String sample(
            List<String> lines, String metric, String method, String route, String status) {
        List<String> found = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith(metric + "{")
                    && line.contains("method=\"" + method + "\"")
                    && line.contains("route=\"" + route + "\"")
                    && line.contains("status=\"" + status + "\"")) {
                found.add(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        assertThat(found)
                .as(metric + " " + route + " " + status + " in\n" + String.join("\n", lines))
                .hasSize(1);
        return found.get(0);
    }

    /** A body the client sends without Content-Length (chunked), as one chunk. */
    private static HttpRequest.BodyPublisher chunked(String body) {
        HttpRequest.BodyPublisher known = HttpRequest.BodyPublishers.ofString(body);
        return new HttpRequest.BodyPublisher() {
            @Override
            public long contentLength() {
                return -1;
            }

            @Override
            public void subscribe(Flow.Subscriber<? super java.nio.ByteBuffer> subscriber) {
                known.subscribe(subscriber);
            }
        };
    }
}
