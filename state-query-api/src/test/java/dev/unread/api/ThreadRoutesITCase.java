package dev.unread.api;

import static dev.unread.api.Http.assertError;
import static dev.unread.api.Http.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Threads in the API (docs/contract.md, "Threads"): the followed threads' counts beside a user's
 * other counts, and the two routes that publish THREAD_READ and THREAD_FOLLOWED, with the
 * validation and the token rules of the other routes that publish a user's action.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ThreadRoutesITCase {

    private static final String TOKEN = "thread-routes-service-token";

    /** Without a token, as StateQueryApiITCase's. */
    @RegisterExtension static final StartedApi OPEN = StartedApi.with(c -> c);

    /** With the service token and users' JWTs, as AuthITCase's, on stores of its own. */
    @RegisterExtension
    static final StartedApi GUARDED = StartedApi.with(c -> c.token(TOKEN).jwtSecret(Jwts.SECRET));

    private TestStores stores;
    private TestStores guardedStores;
    private Http http;
    private Http auth;

    @BeforeAll
    void takeApis() {
        stores = OPEN.stores();
        guardedStores = GUARDED.stores();
        http = OPEN.http();
        auth = GUARDED.http();
    }

    private static String threadPath(long userId, long conversationId, long threadSeq) {
        return "/api/users/"
                + userId
                + "/conversations/"
                + conversationId
                + "/threads/"
                + threadSeq;
    }

    private static HttpResponse<String> readThread(
            Http client, String path, String body, String... headers) {
        return client.post(path + "/read", body, headers);
    }

    private static HttpResponse<String> follow(
            Http client, String path, String body, String... headers) {
        return client.send(
                "PUT", path + "/follow", HttpRequest.BodyPublishers.ofString(body), headers);
    }

    @Test
    void unreadAnswersTheFollowedThreadsInNumericOrderAndTheThreadsTotal() {
        stores.redis.hset(
                Count.THREAD.key(stores.keyPrefix, 801),
                Map.of("80001:1038", "4", "80001:9", "2", "7:20", "1"));
        stores.redis.hset(Count.THREAD_MENTIONS.key(stores.keyPrefix, 801), "80001:1038", "1");
        stores.redis.hset(
                Count.THREAD_CHANNEL_MENTIONS.key(stores.keyPrefix, 801), "80001:1038", "1");
        stores.redis.hset(
                Count.TOTAL_MESSAGES.key(stores.keyPrefix, 801),
                Map.of("threads", "3", "mentions", "1"));

        String expected =
                "{\"userId\":801,\"unreadSenders\":0,\"conversations\":{},\"mentions\":{},"
                        + "\"channelMentions\":{},"
                        + "\"totals\":{\"messages\":0,\"mentions\":1,\"conversations\":0,"
                        + "\"threads\":3},\"markedUnread\":[],"
                        + "\"threads\":{\"7:20\":1,\"80001:9\":2,\"80001:1038\":4},"
                        + "\"threadMentions\":{\"80001:1038\":1},"
                        + "\"threadChannelMentions\":{\"80001:1038\":1}}";
        assertThat(http.get("/api/users/801/unread").body()).isEqualTo(expected);
        assertThat(http.get("/api/unread?userIds=801").body())
                .isEqualTo("{\"users\":[" + expected + "]}");
    }

    @Test
    void aThreadFieldThatIsNotTheJobsMakesItsUserUnreadable() {
        stores.redis.hset(Count.THREAD.key(stores.keyPrefix, 802), "80001", "4");

        HttpResponse<String> batch = http.get("/api/unread?userIds=802,803");

        assertThat(json(batch).get("users").get(0).get("error").asText())
                .isEqualTo("unreadable counts in Redis");
        assertThat(json(batch).get("users").get(1).get("userId").asLong()).isEqualTo(803);
        assertError(http.get("/api/users/802/unread"), 500);
    }

    @Test
    void aThreadReadAndAFollowArePublishedKeyedByUserWithTheUsersActionStamps() throws Exception {
        String topic = KafkaBroker.createTopic();
        try (StateQueryApi own = StateQueryApi.start(stores.config(topic).build())) {
            Http client = new Http(own);
            String path = threadPath(10086, 80001, 1038);
            long before = System.currentTimeMillis();
            HttpResponse<String> read = readThread(client, path, "{\"readSeq\":1060}");
            HttpResponse<String> unfollow = follow(client, path, "{\"following\":false}");
            long after = System.currentTimeMillis();

            assertThat(read.statusCode()).as(read.body()).isEqualTo(202);
            assertThat(unfollow.statusCode()).as(unfollow.body()).isEqualTo(202);
            long readAt = json(read).get("readAt").asLong();
            long setAt = json(unfollow).get("setAt").asLong();
            // Stamps of one user rise from one action to the next, within the requests' time.
            assertThat(readAt).isGreaterThanOrEqualTo(before).isLessThan(setAt);
            assertThat(setAt).isLessThanOrEqualTo(after + 1);
            String expectedRead =
                    "{\"type\":\"THREAD_READ\",\"userId\":10086,\"conversationId\":80001,"
                            + "\"threadSeq\":1038,\"readSeq\":1060,\"readAt\":"
                            + readAt
                            + "}";
            String expectedFollow =
                    "{\"type\":\"THREAD_FOLLOWED\",\"userId\":10086,\"conversationId\":80001,"
                            + "\"threadSeq\":1038,\"following\":false,\"setAt\":"
                            + setAt
                            + "}";
            assertThat(read.body()).isEqualTo(expectedRead);
            assertThat(unfollow.body()).isEqualTo(expectedFollow);
            List<ConsumerRecord<String, String>> records = KafkaBroker.consumeAll(topic);
            assertThat(records)
                    .extracting(ConsumerRecord::key, ConsumerRecord::value)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("10086", expectedRead),
                            org.assertj.core.groups.Tuple.tuple("10086", expectedFollow));
        }
    }

    @Test
    void malformedIdsAndBodiesGet400() {
        String path = threadPath(1, 1, 1);
        for (String body :
                List.of(
                        "",
                        "not json",
                        "[]",
                        "{}",
                        "{\"readSeq\":null}",
                        "{\"readSeq\":-1}",
                        "{\"readSeq\":\"7\"}",
                        "{\"readSeq\":1.5}",
                        "{\"readSeq\":1} trailing")) {
            assertError(readThread(http, path, body), 400);
        }
        for (String body :
                List.of(
                        "",
                        "{}",
                        "{\"following\":null}",
                        "{\"following\":\"true\"}",
                        "{\"following\":1}",
                        "{\"following\":true,\"following\":false}")) {
            assertError(follow(http, path, body), 400);
        }
        for (String bad :
                List.of(
                        "/api/users/1/conversations/1/threads/0",
                        "/api/users/1/conversations/1/threads/x",
                        "/api/users/1/conversations/1/threads/9223372036854775808",
                        "/api/users/1/conversations/0/threads/1",
                        "/api/users/0/conversations/1/threads/1")) {
            assertError(readThread(http, bad, "{\"readSeq\":1}"), 400);
            assertError(follow(http, bad, "{\"following\":true}"), 400);
        }
        assertThat(readThread(http, path, "{\"readSeq\":0}").statusCode()).isEqualTo(202);
        assertThat(follow(http, path, "{\"following\":true}").statusCode()).isEqualTo(202);
    }

    @Test
    void aUserTokenWritesOnlyItsOwnThreadsOfConversationsItTakesPartIn() {
        long withCursor = 90021;
        long withThreadCount = 90022;
        long madeUp = 90023;
        guardedStores.redis.zadd(
                RedisNames.readersKey(guardedStores.keyPrefix, withCursor), 4, "7");
        guardedStores.redis.hset(
                Count.THREAD.key(guardedStores.keyPrefix, 7),
                RedisNames.threadField(withThreadCount, 5),
                "2");
        String jwt = "Bearer " + Jwts.forUser(7);
        String[] asUser = {"Authorization", jwt};

        String cursorThread = threadPath(7, withCursor, 3);
        assertThat(readThread(auth, cursorThread, "{\"readSeq\":4}", asUser).statusCode())
                .isEqualTo(202);
        assertThat(follow(auth, cursorThread, "{\"following\":true}", asUser).statusCode())
                .isEqualTo(202);
        // A count in the thread itself is taking part, though the conversation has none.
        String countedThread = threadPath(7, withThreadCount, 5);
        assertThat(readThread(auth, countedThread, "{\"readSeq\":9}", asUser).statusCode())
                .isEqualTo(202);
        assertThat(follow(auth, countedThread, "{\"following\":false}", asUser).statusCode())
                .isEqualTo(202);
        // The ruling on the thread routes (issue 33 item 8): a count in any thread of the
        // conversation is taking part in it, so a user active only in threads follows, unfollows
        // and reads its other threads too.
        String otherThread = threadPath(7, withThreadCount, 6);
        assertThat(follow(auth, otherThread, "{\"following\":true}", asUser).statusCode())
                .isEqualTo(202);
        assertThat(follow(auth, otherThread, "{\"following\":false}", asUser).statusCode())
                .isEqualTo(202);
        assertThat(readThread(auth, otherThread, "{\"readSeq\":9}", asUser).statusCode())
                .isEqualTo(202);
        // Not a thread of a made-up conversation, nor of one whose id only starts the same.
        assertError(follow(auth, threadPath(7, madeUp, 1), "{\"following\":true}", asUser), 403);
        assertError(
                follow(
                        auth,
                        threadPath(7, Long.parseLong(withThreadCount + "0"), 5),
                        "{\"following\":true}",
                        asUser),
                403);
        // Nor another user's threads, whatever that user takes part in.
        assertError(readThread(auth, threadPath(8, withCursor, 3), "{\"readSeq\":4}", asUser), 403);
        assertError(
                follow(auth, threadPath(8, withCursor, 3), "{\"following\":true}", asUser), 403);
        // No token: 401; the service token (the chat server) writes for anyone anywhere.
        assertError(follow(auth, threadPath(7, madeUp, 1), "{\"following\":true}"), 401);
        assertThat(
                        follow(
                                        auth,
                                        threadPath(8, madeUp, 1),
                                        "{\"following\":true}",
                                        "Authorization",
                                        "Bearer " + TOKEN)
                                .statusCode())
                .isEqualTo(202);
    }
}
