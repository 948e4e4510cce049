package dev.unread.api;

import static dev.unread.api.Http.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import dev.unread.local.Await;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With UNREAD_API_TOKEN and UNREAD_API_JWT_SECRET set: every route but /health, /metrics and
 * /openapi.json needs the service token, which reaches everything, or a user's JWT, which reaches
 * that user's data only. Without either, no header is needed: StateQueryApiITCase runs that way.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthITCase {

    private static final String TOKEN = "s3cret-Token_~+/=";

    @RegisterExtension
    static final StartedApi STARTED = StartedApi.with(c -> c.token(TOKEN).jwtSecret(Jwts.SECRET));

    private TestStores stores;
    private StateQueryApi api;
    private Http http;

    @BeforeAll
    void takeApi() {
        stores = STARTED.stores();
        api = STARTED.api();
        http = STARTED.http();
    }

    @Test
    void theRightTokenIsLetThrough() {
        assertThat(http.get("/api/users/1/unread", "Authorization", "Bearer " + TOKEN).statusCode())
                .isEqualTo(200);
        assertThat(
                        http.get("/api/unread?userIds=1", "Authorization", "bearer " + TOKEN)
                                .statusCode())
                .isEqualTo(200);
        assertThat(
                        http.get("/api/users/1/cursors", "Authorization", "Bearer " + TOKEN)
                                .statusCode())
                .isEqualTo(200);
        assertThat(
                        http.post(
                                        "/api/users/1/inbox/opened",
                                        "",
                                        "Authorization",
                                        "Bearer " + TOKEN)
                                .statusCode())
                .isEqualTo(202);
        assertThat(
                        http.post(
                                        "/api/conversations/2/read",
                                        "{\"userId\":1,\"readSeq\":3}",
                                        "Authorization",
                                        "Bearer " + TOKEN)
                                .statusCode())
                .isEqualTo(202);
    }

    @Test
    void aMissingTokenGets401WithAChallenge() {
        HttpResponse<String> response = http.get("/api/users/1/unread");

        assertError(response, 401);
        assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        assertError(http.post("/api/users/1/inbox/opened", ""), 401);
        assertError(http.post("/api/conversations/2/read", "{\"userId\":1,\"readSeq\":3}"), 401);
        assertError(http.get("/api/unread?userIds=1"), 401);
        assertError(http.get("/api/users/1/cursors"), 401);
    }

    @Test
    void aWrongTokenGets401() {
        assertError(http.get("/api/users/1/unread", "Authorization", "Bearer wrong"), 401);
        assertError(http.get("/api/users/1/unread", "Authorization", "Bearer " + TOKEN + "x"), 401);
        assertError(
                http.get(
                        "/api/users/1/unread",
                        "Authorization",
                        "Bearer " + TOKEN.substring(0, TOKEN.length() - 1)),
                401);
        assertError(http.get("/api/users/1/unread", "Authorization", "Bearer "), 401);
        assertError(http.get("/api/users/1/unread", "Authorization", TOKEN), 401);
        assertError(http.get("/api/users/1/unread", "Authorization", "Basic " + TOKEN), 401);
    }

    @Test
    void authenticationComesBeforeValidation() {
        // A bad id without a token says nothing about the id.
        assertError(http.get("/api/users/abc/unread"), 401);
        assertError(http.get("/api/users/abc/unread", "Authorization", "Bearer " + TOKEN), 400);
    }

    @Test
    void unknownPathsAndWrongMethodsAnswerTheSameWithOrWithoutToken() {
        assertError(http.get("/api/nothing"), 404);
        assertError(http.get("/nothing", "Authorization", "Bearer " + TOKEN), 404);
        assertError(http.get("/api/users/1/inbox/opened"), 405);
        assertError(http.get("/api/users/1/inbox/opened", "Authorization", "Bearer " + TOKEN), 405);
    }

    @Test
    void authenticationComesBeforeTheBodyLimit() {
        String big = "x".repeat(Bodies.MAX_BODY_BYTES + 1);

        assertError(http.post("/api/conversations/1/read", big), 401);
        assertError(
                http.post("/api/conversations/1/read", big, "Authorization", "Bearer " + TOKEN),
                413);
    }

    @Test
    void aRefusedBodyStillGetsItsAnswerEveryTime() {
        // Refused before its body is read, a request whose connection closed with unread bytes
        // was reset, and the reset could overtake the answer: the client saw no bytes at all.
        String big = "x".repeat(Bodies.MAX_BODY_BYTES * 4);
        for (int i = 0; i < 200; i++) {
            assertError(http.post("/api/conversations/1/read", big), 401);
            assertError(http.post("/api/nothing", big, "Authorization", "Bearer " + TOKEN), 404);
        }
    }

    @Test
    void healthMetricsAndOpenApiStayOpen() {
        assertThat(http.get("/health").statusCode()).isEqualTo(200);
        assertThat(http.get("/metrics").statusCode()).isEqualTo(200);
        assertThat(http.get("/openapi.json").statusCode()).isEqualTo(200);
        // A wrong token on an open path is not held against the caller.
        assertThat(http.get("/health", "Authorization", "Bearer wrong").statusCode())
                .isEqualTo(200);
    }

    @Test
    void openPathsWithATrailingSlashAreOpenToo() {
        // Javalin routes them to the same handlers, so they must not ask for a token.
        assertThat(http.get("/health/").statusCode()).isEqualTo(200);
        assertThat(http.get("/metrics/").statusCode()).isEqualTo(200);
        assertThat(http.get("/api/users/1/unread/").statusCode()).isEqualTo(401);
    }

    @Test
    void refusedRequestsAreCountedUnderTheirRoute() {
        http.get("/api/users/77/cursors");

        String metrics = http.get("/metrics").body();

        assertThat(
                        metrics.lines()
                                .filter(
                                        l ->
                                                l.startsWith("unread_api_requests_total{")
                                                        && l.contains("status=\"401\"")))
                .anySatisfy(l -> assertThat(l).contains("route=\"/api/users/{userId}/cursors\""))
                .allSatisfy(l -> assertThat(l).doesNotContain("/77/"));
    }

    @Test
    void aUserTokenReachesThatUsersData() {
        String jwt = "Bearer " + Jwts.forUser(7);
        // User 7 takes part in conversation 2: it has an unread count there.
        stores.redis.hset(Count.CONVERSATION.key(stores.keyPrefix, 7), "2", "1");

        assertThat(http.get("/api/users/7/unread", "Authorization", jwt).statusCode())
                .isEqualTo(200);
        assertThat(http.get("/api/users/7/cursors", "Authorization", jwt).statusCode())
                .isEqualTo(200);
        assertThat(http.get("/api/unread?userIds=7,7", "Authorization", jwt).statusCode())
                .isEqualTo(200);
        assertThat(http.post("/api/users/7/inbox/opened", "", "Authorization", jwt).statusCode())
                .isEqualTo(202);
        assertThat(http.post("/api/users/7/read-all", "", "Authorization", jwt).statusCode())
                .isEqualTo(202);
        assertThat(
                        http.post(
                                        "/api/conversations/2/read",
                                        "{\"userId\":7,\"readSeq\":3}",
                                        "Authorization",
                                        jwt)
                                .statusCode())
                .isEqualTo(202);
    }

    /** An erasure is the operator's: not even the user's own token may ask for it. */
    @Test
    void onlyTheServiceTokenErasesAUser() {
        HttpResponse<String> own =
                http.send(
                        "DELETE",
                        "/api/users/7",
                        HttpRequest.BodyPublishers.noBody(),
                        "Authorization",
                        "Bearer " + Jwts.forUser(7));
        assertError(own, 403);
        assertError(http.send("DELETE", "/api/users/7", HttpRequest.BodyPublishers.noBody()), 401);
        HttpResponse<String> service =
                http.send(
                        "DELETE",
                        "/api/users/7",
                        HttpRequest.BodyPublishers.noBody(),
                        "Authorization",
                        "Bearer " + TOKEN);
        assertThat(service.statusCode()).isEqualTo(202);
        assertThat(service.body())
                .startsWith("{\"type\":\"USER_ERASED\",\"userId\":7,\"erasedAt\":");
    }

    @Test
    void aUserTokenGets403ForAnotherUsersData() {
        String jwt = "Bearer " + Jwts.forUser(7);

        assertError(http.get("/api/users/8/unread", "Authorization", jwt), 403);
        assertError(http.get("/api/users/8/cursors", "Authorization", jwt), 403);
        assertError(http.get("/api/unread?userIds=7,8", "Authorization", jwt), 403);
        assertError(http.post("/api/users/8/inbox/opened", "", "Authorization", jwt), 403);
        assertError(http.post("/api/users/8/read-all", "", "Authorization", jwt), 403);
        // The service token acts for any user.
        assertThat(
                        http.post("/api/users/8/read-all", "", "Authorization", "Bearer " + TOKEN)
                                .statusCode())
                .isEqualTo(202);
        assertError(
                http.post(
                        "/api/conversations/2/read",
                        "{\"userId\":8,\"readSeq\":3}",
                        "Authorization",
                        jwt),
                403);
    }

    @Test
    void aUserTokenReadsTheReadersOfAConversationOnlyWhereItsUserHasACursorOrACount() {
        long cursorOnly = 90001;
        long countOnly = 90002;
        long neither = 90003;
        stores.redis.zadd(RedisNames.readersKey(stores.keyPrefix, cursorOnly), 4, "7");
        stores.redis.zadd(RedisNames.readersKey(stores.keyPrefix, countOnly), 9, "8");
        stores.redis.zadd(RedisNames.readersKey(stores.keyPrefix, neither), 9, "8");
        stores.redis.hset(
                Count.CONVERSATION.key(stores.keyPrefix, 7), Long.toString(countOnly), "2");
        String jwt = "Bearer " + Jwts.forUser(7);

        assertThat(readers(cursorOnly, jwt).statusCode()).isEqualTo(200);
        assertThat(readers(countOnly, jwt).statusCode()).isEqualTo(200);
        assertError(readers(neither, jwt), 403);
        assertThat(readers(neither, "Bearer " + TOKEN).statusCode()).isEqualTo(200);
    }

    @Test
    void aUserTokenReadsMarksAndMutesOnlyConversationsItsUserHasACursorOrACountIn() {
        long cursorOnly = 90011;
        long countOnly = 90012;
        long madeUp = 90013;
        stores.redis.zadd(RedisNames.readersKey(stores.keyPrefix, cursorOnly), 4, "7");
        stores.redis.hset(
                Count.CONVERSATION.key(stores.keyPrefix, 7), Long.toString(countOnly), "2");
        String jwt = "Bearer " + Jwts.forUser(7);

        for (long taken : List.of(cursorOnly, countOnly)) {
            assertThat(markUnread(taken, jwt).statusCode()).isEqualTo(202);
            assertThat(mute(taken, jwt).statusCode()).isEqualTo(202);
            assertThat(read(taken, jwt).statusCode()).isEqualTo(202);
        }
        assertError(markUnread(madeUp, jwt), 403);
        assertError(mute(madeUp, jwt), 403);
        assertError(read(madeUp, jwt), 403);
        // The chat server, with the service token, may act for anyone anywhere.
        assertThat(markUnread(madeUp, "Bearer " + TOKEN).statusCode()).isEqualTo(202);
    }

    private HttpResponse<String> markUnread(long conversationId, String authorization) {
        return http.post(
                "/api/users/7/conversations/" + conversationId + "/unread",
                "",
                "Authorization",
                authorization);
    }

    private HttpResponse<String> mute(long conversationId, String authorization) {
        return http.send(
                "PUT",
                "/api/users/7/conversations/" + conversationId + "/preference",
                HttpRequest.BodyPublishers.ofString("{\"countPreference\":\"NONE\"}"),
                "Authorization",
                authorization);
    }

    private HttpResponse<String> read(long conversationId, String authorization) {
        return http.post(
                "/api/conversations/" + conversationId + "/read",
                "{\"userId\":7,\"readSeq\":3}",
                "Authorization",
                authorization);
    }

    private HttpResponse<String> readers(long conversationId, String authorization) {
        return http.get(
                "/api/conversations/" + conversationId + "/readers?seq=1",
                "Authorization",
                authorization);
    }

    @Test
    void expiredBadlySignedAndMalformedTokensGet401() {
        String expired = Jwts.hs256(Jwts.SECRET, Jwts.claims("7", Duration.ofHours(-1)));
        String otherKey =
                Jwts.hs256(
                        "another-secret-of-at-least-32-bytes",
                        Jwts.claims("7", Duration.ofHours(1)));
        String noExpiry = Jwts.hs256(Jwts.SECRET, new JWTClaimsSet.Builder().subject("7"));
        String textSubject = Jwts.hs256(Jwts.SECRET, Jwts.claims("alice", Duration.ofHours(1)));
        String zeroSubject = Jwts.hs256(Jwts.SECRET, Jwts.claims("0", Duration.ofHours(1)));
        String unsigned = new PlainJWT(Jwts.claims("7", Duration.ofHours(1)).build()).serialize();
        String rs256 = Jwts.rs256(Jwts.rsaKeys(), Jwts.claims("7", Duration.ofHours(1)));
        String good = Jwts.forUser(7);
        String tampered = good.substring(0, good.lastIndexOf('.') + 1) + "AAAA";

        for (String token :
                List.of(
                        expired,
                        otherKey,
                        noExpiry,
                        textSubject,
                        zeroSubject,
                        unsigned,
                        rs256,
                        tampered,
                        "a.b.c",
                        "not-a-jwt",
                        good + "x")) {
            HttpResponse<String> response =
                    http.get("/api/users/7/unread", "Authorization", "Bearer " + token);
            assertError(response, 401);
            assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        }
    }

    @Test
    void withoutAnAudienceSetATokenCarryingOneIsRefusedAndLifetimesAreBounded() {
        Duration hour = Duration.ofHours(1);
        String forAnotherService = Jwts.hs256(Jwts.SECRET, Jwts.claims("7", hour).audience("mail"));
        String forever =
                Jwts.hs256(
                        Jwts.SECRET,
                        Jwts.claims("7", hour)
                                .expirationTime(Date.from(Instant.parse("9999-01-01T00:00:00Z"))));
        String issuedNextYear =
                Jwts.hs256(
                        Jwts.SECRET,
                        Jwts.claims("7", hour)
                                .issueTime(Date.from(Instant.now().plus(Duration.ofDays(365)))));
        String issuedAnHourAgo =
                Jwts.hs256(
                        Jwts.SECRET,
                        Jwts.claims("7", hour).issueTime(Date.from(Instant.now().minus(hour))));

        for (String token : List.of(forAnotherService, forever, issuedNextYear)) {
            assertError(http.get("/api/users/7/unread", "Authorization", "Bearer " + token), 401);
        }
        assertThat(
                        http.get(
                                        "/api/users/7/unread",
                                        "Authorization",
                                        "Bearer " + issuedAnHourAgo)
                                .statusCode())
                .isEqualTo(200);
    }

    @Test
    void anIssuerAndAnAudienceSetAreRequiredOfEveryUserToken() throws Exception {
        try (StateQueryApi strict =
                StateQueryApi.start(
                        stores.config(KafkaBroker.createTopic())
                                .jwtSecret(Jwts.SECRET)
                                .jwtIssuer("https://login.example")
                                .jwtAudience("unread")
                                .build())) {
            Http client = new Http(strict);
            Duration hour = Duration.ofHours(1);
            String right =
                    Jwts.hs256(
                            Jwts.SECRET,
                            Jwts.claims("7", hour)
                                    .issuer("https://login.example")
                                    .audience("unread"));
            String otherIssuer =
                    Jwts.hs256(
                            Jwts.SECRET,
                            Jwts.claims("7", hour)
                                    .issuer("https://evil.example")
                                    .audience("unread"));
            String otherAudience =
                    Jwts.hs256(
                            Jwts.SECRET,
                            Jwts.claims("7", hour)
                                    .issuer("https://login.example")
                                    .audience("mail"));
            String neither = Jwts.hs256(Jwts.SECRET, Jwts.claims("7", hour));

            assertThat(
                            client.get("/api/users/7/unread", "Authorization", "Bearer " + right)
                                    .statusCode())
                    .isEqualTo(200);
            for (String token : List.of(otherIssuer, otherAudience, neither)) {
                assertError(
                        client.get("/api/users/7/unread", "Authorization", "Bearer " + token), 401);
            }
        }
    }

    @Test
    void theQueryTokenIsRefusedOutsideTheStreamRoutes() {
        assertError(http.get("/api/users/7/unread?access_token=" + Jwts.forUser(7)), 401);
        assertError(http.get("/api/users/7/unread?access_token=" + TOKEN), 401);
    }

    @Test
    void anRs256KeyVerifiesTokensAndRefusesAnHs256TokenSignedWithIt() throws Exception {
        KeyPair keys = Jwts.rsaKeys();
        String pem = Jwts.pem(keys);
        try (StateQueryApi rsa =
                StateQueryApi.start(
                        stores.config(KafkaBroker.createTopic()).jwtPublicKey(pem).build())) {
            Http client = new Http(rsa);
            String user = "Bearer " + Jwts.rs256(keys, Jwts.claims("7", Duration.ofHours(1)));

            assertThat(client.get("/api/users/7/unread", "Authorization", user).statusCode())
                    .isEqualTo(200);
            assertError(client.get("/api/users/8/unread", "Authorization", user), 403);
            // The classic confusion: the public key used as an HMAC secret.
            assertError(
                    client.get(
                            "/api/users/7/unread",
                            "Authorization",
                            "Bearer " + Jwts.hs256(pem, Jwts.claims("7", Duration.ofHours(1)))),
                    401);
            assertError(
                    client.get("/api/users/7/unread", "Authorization", "Bearer " + Jwts.forUser(7)),
                    401);
            assertError(client.get("/api/users/7/unread"), 401);
        }
    }

    @Test
    void theStreamsTakeTheUserTokenAsAHeaderOrAsAccessTokenAndRefuseOtherUsers() throws Exception {
        String jwt = Jwts.forUser(7);
        String base = "127.0.0.1:" + api.port() + "/api/users/";

        try (LiveClient header =
                        LiveClient.sse(
                                "http://" + base + "7/events", "Authorization", "Bearer " + jwt);
                LiveClient query =
                        LiveClient.sse("http://" + base + "7/events?access_token=" + jwt);
                LiveClient ws = LiveClient.webSocket("ws://" + base + "7/ws?access_token=" + jwt);
                LiveClient service =
                        LiveClient.sse(
                                "http://" + base + "8/events",
                                "Authorization",
                                "Bearer " + TOKEN)) {
            for (LiveClient client : List.of(header, query, ws, service)) {
                assertThat(client.next().get("type").asText()).isEqualTo("SNAPSHOT");
            }
        }
        assertThat(
                        LiveClient.sse("http://" + base + "8/events?access_token=" + jwt)
                                .response
                                .statusCode())
                .isEqualTo(403);
        assertThat(LiveClient.sse("http://" + base + "7/events").response.statusCode())
                .isEqualTo(401);
        assertThat(
                        LiveClient.sse(
                                        "http://"
                                                + base
                                                + "7/events?access_token="
                                                + Jwts.hs256(
                                                        Jwts.SECRET,
                                                        Jwts.claims("7", Duration.ofHours(-1))))
                                .response
                                .statusCode())
                .isEqualTo(401);
        assertThat(webSocketRefusal("ws://" + base + "8/ws?access_token=" + jwt)).isEqualTo(403);
        assertThat(webSocketRefusal("ws://" + base + "7/ws")).isEqualTo(401);
        assertThat(webSocketRefusal("ws://" + base + "7/ws?access_token=bad")).isEqualTo(401);
    }

    @Test
    void aStreamEndsWithReconnectWhenItsTokenExpires() throws Exception {
        String base = "127.0.0.1:" + api.port() + "/api/users/";
        String shortLived = Jwts.hs256(Jwts.SECRET, Jwts.claims("7", Duration.ofSeconds(2)));
        String longLived = Jwts.forUser(7);

        try (LiveClient sse =
                        LiveClient.sse("http://" + base + "7/events?access_token=" + shortLived);
                LiveClient ws =
                        LiveClient.webSocket("ws://" + base + "7/ws?access_token=" + shortLived);
                LiveClient lasting =
                        LiveClient.sse("http://" + base + "7/events?access_token=" + longLived)) {
            for (LiveClient client : List.of(sse, ws, lasting)) {
                assertThat(client.next().get("type").asText()).isEqualTo("SNAPSHOT");
            }
            for (LiveClient client : List.of(sse, ws)) {
                assertThat(client.next().get("type").asText())
                        .as("the message after the token's exp")
                        .isEqualTo("RECONNECT");
            }
            assertThat(lasting.poll(1_000)).as("a stream whose token lives on").isNull();
            assertThat(lasting.ended()).isFalse();
        }
    }

    @Test
    void aUserMayOpenSoManyStreamsAndTheInstanceSoManyInAll() throws Exception {
        try (StateQueryApi small =
                StateQueryApi.start(
                        stores.config(KafkaBroker.createTopic())
                                .jwtSecret(Jwts.SECRET)
                                .streamMaxPerUser(2)
                                .streamMaxTotal(3)
                                .build())) {
            String base = "127.0.0.1:" + small.port() + "/api/users/";
            String seven = "?access_token=" + Jwts.forUser(7);
            try (LiveClient first = LiveClient.sse("http://" + base + "7/events" + seven);
                    LiveClient second = LiveClient.webSocket("ws://" + base + "7/ws" + seven)) {
                first.next();
                second.next();
                assertThat(
                                LiveClient.sse("http://" + base + "7/events" + seven)
                                        .response
                                        .statusCode())
                        .isEqualTo(429);
                assertThat(webSocketRefusal("ws://" + base + "7/ws" + seven)).isEqualTo(429);
                try (LiveClient eight =
                        LiveClient.sse(
                                "http://" + base + "8/events?access_token=" + Jwts.forUser(8))) {
                    eight.next();
                    assertThat(
                                    LiveClient.sse(
                                                    "http://"
                                                            + base
                                                            + "9/events?access_token="
                                                            + Jwts.forUser(9))
                                            .response
                                            .statusCode())
                            .as("the instance's last stream taken")
                            .isEqualTo(429);
                }
            }
            // The server sees a closed stream when its next write or heartbeat fails.
            LiveClient.Sse again =
                    Await.until(
                            "room again once the user's streams closed",
                            Duration.ofSeconds(30),
                            () -> {
                                LiveClient.Sse client =
                                        LiveClient.sse("http://" + base + "7/events" + seven);
                                if (client.response.statusCode() == 200) {
                                    return client;
                                }
                                client.close();
                                return null;
                            });
            try (again) {
                assertThat(again.next().get("type").asText()).isEqualTo("SNAPSHOT");
            }
        }
    }

    @Test
    void theServiceTokenIsRefusedInAUrlWhereProxiesLogIt() throws Exception {
        String base = "127.0.0.1:" + api.port() + "/api/users/";
        String token = URLEncoder.encode(TOKEN, StandardCharsets.UTF_8);

        assertThat(webSocketRefusal("ws://" + base + "8/ws?access_token=" + token)).isEqualTo(401);
        assertThat(
                        LiveClient.sse("http://" + base + "8/events?access_token=" + token)
                                .response
                                .statusCode())
                .isEqualTo(401);
    }

    @Test
    void noRequestCreatesASessionNotEvenARefusedUpgrade() throws Exception {
        String base = "127.0.0.1:" + api.port() + "/api/users/";
        HttpResponse<?> refused = webSocketRefused("ws://" + base + "7/ws");

        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.headers().allValues("Set-Cookie")).as("a session cookie").isEmpty();
        assertThat(
                        http.get("/api/users/1/unread", "Authorization", "Bearer " + TOKEN)
                                .headers()
                                .allValues("Set-Cookie"))
                .isEmpty();
    }

    /** The status of a refused WebSocket handshake. */
    private static int webSocketRefusal(String url) throws Exception {
        return webSocketRefused(url).statusCode();
    }

    /** The answer to a refused WebSocket handshake. */
    private static HttpResponse<?> webSocketRefused(String url) throws Exception {
        try {
            LiveClient.webSocket(url).close();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException refused) {
                return refused.getResponse();
            }
            throw e;
        }
        throw new AssertionError("the handshake to " + url + " succeeded");
    }
}
