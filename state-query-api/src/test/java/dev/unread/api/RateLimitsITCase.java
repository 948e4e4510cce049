package dev.unread.api;

import static dev.unread.api.Http.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import java.net.http.HttpResponse;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The amplifiers and rate limits of issue 33 item 5, against the real server: a batch read answers
 * each user once and refuses an answer past its cap; writes and stream opens are limited per user,
 * and before authentication per client address, with 429 and {@code Retry-After}.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RateLimitsITCase {

    private static final String TOKEN = "service-token-0123456789";

    private TestStores stores;
    private StateQueryApi api;
    private StateQueryApi guarded;
    private Http http;
    private Http guardedHttp;

    @BeforeAll
    void startApis() throws Exception {
        stores = new TestStores();
        ApiConfig.Builder config =
                stores.config(KafkaBroker.createTopic())
                        .userWritesPerSecond(1)
                        .userStreamOpensPerMinute(2)
                        .addressRequestsPerSecond(0)
                        .batchMaxAnswerBytes(64 * 1024);
        api = StateQueryApi.start(config.build());
        http = new Http(api);
        guarded =
                StateQueryApi.start(
                        config.token(TOKEN)
                                .userWritesPerSecond(0)
                                .addressRequestsPerSecond(1)
                                .build());
        guardedHttp = new Http(guarded);
    }

    @AfterAll
    void stopApis() throws Exception {
        for (StateQueryApi started : new StateQueryApi[] {api, guarded}) {
            if (started != null) {
                started.close();
            }
        }
        stores.close();
    }

    @Test
    void aBatchAnswersEachUserOnceHoweverOftenListed() {
        long user = 501;
        conversations(user, 200);
        String once = http.get("/api/users/" + user + "/unread").body();
        String ids = String.join(",", Collections.nCopies(498, Long.toString(user)));

        HttpResponse<String> batch = http.get("/api/unread?userIds=" + ids + ",502," + user);

        assertThat(batch.statusCode()).as(batch.body()).isEqualTo(200);
        assertThat(Http.json(batch).get("users")).hasSize(2);
        assertThat(Http.json(batch).get("users").get(0))
                .isEqualTo(Http.json(http.get("/api/users/" + user + "/unread")));
        System.out.printf(
                "batch of one user listed 499 times: %d bytes answered (the user alone: %d)%n",
                batch.body().length(), once.length());
    }

    @Test
    void aBatchWhoseAnswerPassesTheCapIsRefused() {
        StringBuilder ids = new StringBuilder();
        for (long user = 511; user < 521; user++) {
            conversations(user, 400);
            ids.append(ids.length() == 0 ? "" : ",").append(user);
        }
        String message = assertError(http.get("/api/unread?userIds=" + ids), 413);
        assertThat(message).contains("65536 bytes").contains("fewer users");
        assertThat(http.get("/api/unread?userIds=511,512").statusCode()).isEqualTo(200);
    }

    @Test
    void aUsersWritesPastItsRateGet429WithRetryAfterAndOtherUsersWriteOn() {
        HttpResponse<String> refused = untilRefused(http, "/api/users/531/inbox/opened", 202);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(http.post("/api/users/532/inbox/opened", "").statusCode()).isEqualTo(202);
    }

    @Test
    void aUsersStreamOpensPastItsRateGet429WithRetryAfter() throws Exception {
        String base = "127.0.0.1:" + api.port() + "/api/users/541/";
        try (LiveClient first = LiveClient.sse("http://" + base + "events");
                LiveClient second = LiveClient.webSocket("ws://" + base + "ws")) {
            first.next();
            second.next();
        }
        LiveClient.Sse third = LiveClient.sse("http://" + base + "events");
        try (third) {
            assertThat(third.response.statusCode()).isEqualTo(429);
            assertThat(third.response.headers().firstValue("Retry-After").map(Long::valueOf))
                    .hasValueSatisfying(seconds -> assertThat(seconds).isBetween(1L, 30L));
        }
    }

    @Test
    void beforeAuthenticationWritesAreLimitedPerAddress() {
        HttpResponse<String> refused =
                untilRefused(guardedHttp, "/api/users/551/inbox/opened", 401);
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        // Reads are not what an address is limited in.
        assertThat(guardedHttp.get("/health").statusCode()).isEqualTo(200);
    }

    /**
     * Posts until refused: the first {@link RateLimiter#BURST_SECONDS} at a rate of 1 a second all
     * get {@code status}, however slowly they go; the refusal, a 429, is returned.
     */
    private static HttpResponse<String> untilRefused(Http client, String path, int status) {
        int passed = 0;
        HttpResponse<String> response;
        while ((response = client.post(path, "")).statusCode() == status) {
            passed++;
            assertThat(passed).as("refused within 100 requests").isLessThan(100);
        }
        assertThat(passed).isGreaterThanOrEqualTo(RateLimiter.BURST_SECONDS);
        assertError(response, 429);
        return response;
    }

    private void conversations(long user, int count) {
        Map<String, String> counts = new HashMap<>();
        for (int c = 1; c <= count; c++) {
            counts.put(Long.toString(1_000_000_000L + c), Integer.toString(c));
        }
        stores.redis.hset(Count.CONVERSATION.key(stores.keyPrefix, user), counts);
    }
}
