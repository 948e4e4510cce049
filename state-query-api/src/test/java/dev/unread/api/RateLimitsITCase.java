package dev.unread.api;

import static dev.unread.api.Http.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import java.net.http.HttpResponse;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The amplifiers and rate limits of issue 33 item 5, against the real server: a batch read answers
 * each user once and refuses an answer past its cap; writes and stream opens are limited per user,
 * and before authentication per client address, with 429 and {@code Retry-After}.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RateLimitsITCase {

    private static final String TOKEN = "service-token-0123456789";

    /** Users' writes and stream opens limited, addresses not. */
    @RegisterExtension
    static final StartedApi LIMITED =
            StartedApi.with(
                    c ->
                            c.userWritesPerSecond(1)
                                    .userStreamOpensPerMinute(2)
                                    .addressRequestsPerSecond(0)
                                    .batchMaxAnswerBytes(64 * 1024));

    /** Requests failing authentication limited per address, users' writes not. */
    @RegisterExtension
    static final StartedApi GUARDED =
            StartedApi.with(
                    c ->
                            c.token(TOKEN)
                                    .userStreamOpensPerMinute(2)
                                    .userWritesPerSecond(0)
                                    .addressRequestsPerSecond(1)
                                    .batchMaxAnswerBytes(64 * 1024));

    /** As {@link #GUARDED}, behind a trusted proxy. */
    @RegisterExtension
    static final StartedApi PROXIED =
            StartedApi.with(
                    c ->
                            c.token(TOKEN)
                                    .userStreamOpensPerMinute(2)
                                    .userWritesPerSecond(0)
                                    .addressRequestsPerSecond(1)
                                    .batchMaxAnswerBytes(64 * 1024)
                                    .trustedProxies("10.9.0.0/16, 127.0.0.1"));

    private TestStores stores;
    private StateQueryApi api;
    private Http http;
    private Http guardedHttp;
    private Http proxiedHttp;

    @BeforeAll
    void takeApis() {
        stores = LIMITED.stores();
        api = LIMITED.api();
        http = LIMITED.http();
        guardedHttp = GUARDED.http();
        proxiedHttp = PROXIED.http();
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

    /**
     * Issue 45 item 8: only requests that fail authentication spend an address's allowance, so a
     * valid caller behind the same proxy or NAT as an attacker is never refused with it.
     */
    @Test
    void requestsFailingAuthenticationAreLimitedPerAddressAndValidOnesAreNot() {
        HttpResponse<String> refused =
                untilRefused(guardedHttp, "/api/users/551/inbox/opened", 401);
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        // The address is out of allowance, and a valid token's write goes through all the same.
        for (int i = 0; i < 3; i++) {
            assertThat(
                            guardedHttp
                                    .post(
                                            "/api/users/552/inbox/opened",
                                            "",
                                            "Authorization",
                                            "Bearer " + TOKEN)
                                    .statusCode())
                    .isEqualTo(202);
        }
        // A wrong token on a read is counted as well: it is a guess as much as on a write.
        assertError(guardedHttp.get("/api/users/551/unread", "Authorization", "Bearer guess"), 429);
        assertThat(guardedHttp.get("/health").statusCode()).isEqualTo(200);
    }

    /**
     * Behind a trusted proxy each client is limited by its own address, the nearest untrusted hop
     * of {@code X-Forwarded-For} (what the client wrote further left is not believed), and an IPv6
     * client by its /64.
     */
    @Test
    void behindATrustedProxyEachClientIsLimitedByItsOwnAddressAndIpv6ByIts64() {
        String path = "/api/users/561/inbox/opened";
        untilRefused(proxiedHttp, path, 401, "X-Forwarded-For", "198.51.100.7, 10.9.3.4");
        assertError(proxiedHttp.post(path, "", "X-Forwarded-For", "198.51.100.7"), 429);
        // What the client wrote left of the hop its proxy saw does not make it someone else.
        assertError(
                proxiedHttp.post(path, "", "X-Forwarded-For", "203.0.113.1, 198.51.100.7"), 429);
        assertError(proxiedHttp.post(path, "", "X-Forwarded-For", "198.51.100.8"), 401);

        untilRefused(proxiedHttp, path, 401, "X-Forwarded-For", "2001:db8:1:2::1");
        assertError(proxiedHttp.post(path, "", "X-Forwarded-For", "2001:db8:1:2:ffff::9"), 429);
        assertError(proxiedHttp.post(path, "", "X-Forwarded-For", "2001:db8:1:3::1"), 401);
    }

    /**
     * Posts until refused: the first {@link RateLimiter#BURST_SECONDS} at a rate of 1 a second all
     * get {@code status}, however slowly they go; the refusal, a 429, is returned.
     */
    private static HttpResponse<String> untilRefused(
            Http client, String path, int status, String... headers) {
        int passed = 0;
        HttpResponse<String> response;
        while ((response = client.post(path, "", headers)).statusCode() == status) {
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
