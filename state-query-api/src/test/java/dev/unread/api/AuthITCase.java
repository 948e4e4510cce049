package dev.unread.api;

import static dev.unread.api.Http.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With UNREAD_API_TOKEN set: every route but /health, /metrics and /openapi.json needs the
 * bearer token. Without a token, no header is needed: StateQueryApiITCase runs that way.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthITCase {

    private static final String TOKEN = "s3cret-Token_~+/=";

    private TestStores stores;
    private StateQueryApi api;
    private Http http;

    @BeforeAll
    void startApi() throws Exception {
        stores = new TestStores();
        api = StateQueryApi.start(stores.config(KafkaBroker.createTopic()).token(TOKEN).build());
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
    void theRightTokenIsLetThrough() {
        assertThat(http.get("/api/users/1/unread", "Authorization", "Bearer " + TOKEN).statusCode())
                .isEqualTo(200);
        assertThat(http.get("/api/unread?userIds=1", "Authorization", "bearer " + TOKEN)
                        .statusCode())
                .isEqualTo(200);
        assertThat(http.get("/api/users/1/cursors", "Authorization", "Bearer " + TOKEN)
                        .statusCode())
                .isEqualTo(200);
        assertThat(http.post("/api/users/1/inbox/opened", "", "Authorization", "Bearer " + TOKEN)
                        .statusCode())
                .isEqualTo(202);
        assertThat(http.post("/api/conversations/2/read", "{\"userId\":1,\"readSeq\":3}",
                                "Authorization", "Bearer " + TOKEN)
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
        assertError(http.get("/api/users/1/unread", "Authorization",
                "Bearer " + TOKEN.substring(0, TOKEN.length() - 1)), 401);
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
        String big = "x".repeat(StateQueryApi.MAX_BODY_BYTES + 1);

        assertError(http.post("/api/conversations/1/read", big), 401);
        assertError(http.post("/api/conversations/1/read", big, "Authorization", "Bearer " + TOKEN),
                413);
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

        assertThat(metrics.lines().filter(l -> l.startsWith("unread_api_requests_total{")
                        && l.contains("status=\"401\"")))
                .anySatisfy(l -> assertThat(l).contains("route=\"/api/users/{userId}/cursors\""))
                .allSatisfy(l -> assertThat(l).doesNotContain("/77/"));
    }
}
