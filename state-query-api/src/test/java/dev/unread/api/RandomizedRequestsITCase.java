package dev.unread.api;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The API under thousands of seeded random requests, written byte by byte on a socket so that
 * nothing a client library would refuse to send is out of reach: paths and ids of every shape,
 * query strings, bodies, headers, methods, and some requests that are not HTTP at all.
 *
 * <p>For every answer: never a 5xx (but 503 naming a dependency that is really down), never an
 * exception's name or a stack frame, every error a JSON object of exactly {@code error} and {@code
 * status}, and without the right token no user data. Where the request is well formed enough to
 * know what it must get (a route's path with plain characters), the status must be exactly that:
 * 401 before anything else, 405 for a wrong method, 415 for a write not declared JSON, 413, 403 for
 * a write from another site's page, 400 or success. Every read event the API accepted with 202 must
 * be in Kafka, once. Rerun a seed with {@code -Dunread.seed=N}.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RandomizedRequestsITCase {

    private static final String TOKEN = "fuzz-T0ken_~+/=-";
    private static final int REQUESTS = 3000;
    private static final int REQUESTS_WITH_STORES_DOWN = 150;
    private static final int READ_TIMEOUT_MS = 20_000;
    private static final int MAX_BODY = Bodies.MAX_BODY_BYTES;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> ORDINARY_METHODS =
            Set.of("GET", "POST", "PUT", "DELETE", "PATCH");

    /** Words that only an exception or a stack trace would put in a response. */
    private static final List<String> LEAKS =
            List.of(
                    "Exception",
                    "Caused by",
                    "\tat ",
                    "at dev.",
                    "at org.",
                    "at java.",
                    "java.",
                    "javax.",
                    "jakarta.",
                    "org.eclipse",
                    "io.javalin",
                    "redis.clients",
                    "com.mysql",
                    "com.zaxxer",
                    "org.apache",
                    "NullPointer");

    private TestStores stores;

    @BeforeAll
    void createStores() throws Exception {
        stores = new TestStores();
    }

    @AfterAll
    void dropStores() throws Exception {
        stores.close();
    }

    @Test
    void threeThousandRandomRequestsGetNoServerErrorLeakNothingAndNeverGetPastTheToken()
            throws Exception {
        long seed = Long.getLong("unread.seed", System.nanoTime() % 1_000_000);
        String readsTopic = KafkaBroker.createTopic();
        try (StateQueryApi api =
                StateQueryApi.start(stores.config(readsTopic).token(TOKEN).build())) {
            Run run = new Run(api, seed, Set.of());
            run.send(REQUESTS);

            run.assertNoViolation();
            assertThat(run.statuses.keySet())
                    .as("the requests reach every outcome, seed " + seed)
                    .contains(200, 202, 400, 401, 404, 405, 413, 415);
            assertThat(run.checkedExactly)
                    .as("requests whose status was known in advance, seed " + seed)
                    .isGreaterThan(REQUESTS / 3);
            assertThat(KafkaBroker.consumeAll(readsTopic))
                    .as("read events in Kafka: one for each 202, seed " + seed)
                    .hasSize(run.statuses.getOrDefault(202, 0));
            run.summary("HTTP API, all dependencies up, token set");
        }
    }

    @Test
    void withRedisAndMySqlDownOnlyTheirRoutesGet503() throws Exception {
        long seed = Long.getLong("unread.seed", System.nanoTime() % 1_000_000);
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        ApiConfig config =
                stores.config(KafkaBroker.createTopic())
                        .token(TOKEN)
                        // Each request to a down store waits this long; Kafka, up, must answer
                        // within it.
                        .timeoutMs(1000)
                        .redisUrl("redis://127.0.0.1:" + closed + "/0")
                        .jdbcUrl("jdbc:mysql://127.0.0.1:" + closed + "/test")
                        .build();
        try (StateQueryApi api = StateQueryApi.start(config)) {
            // With Redis down an action gets no stamp, so it never reaches Kafka.
            Response warm =
                    exchange(
                            api.port(),
                            ("POST /api/users/1/inbox/opened HTTP/1.1\r\n"
                                            + "Host: x\r\nConnection: close\r\nAuthorization: Bearer "
                                            + TOKEN
                                            + "\r\nContent-Length: 0\r\n\r\n")
                                    .getBytes(UTF_8));
            assertThat(warm.status).as(warm.text()).isEqualTo(503);
            Run run = new Run(api, seed, Set.of("redis", "mysql"));
            run.send(REQUESTS_WITH_STORES_DOWN);

            run.assertNoViolation();
            assertThat(run.statuses.keySet()).as("seed " + seed).contains(200, 400, 401, 503);
            run.summary("HTTP API, Redis and MySQL down, token set");
        }
    }

    @Test
    void malformedEscapesAndUncommonMethodsGetTheJsonErrorShape() throws Exception {
        String readsTopic = KafkaBroker.createTopic();
        try (StateQueryApi api =
                StateQueryApi.start(stores.config(readsTopic).token(TOKEN).build())) {
            String auth = "Host: x\r\nConnection: close\r\nAuthorization: Bearer " + TOKEN;
            Map<String, Integer> requests = new LinkedHashMap<>();
            // Javalin's decoder throws on a bad escape: once a 500 "internal error".
            requests.put("GET /api/users/%u0031/unread HTTP/1.1\r\n" + auth, 400);
            requests.put(
                    "POST /api/conversations/%u0031/read HTTP/1.1\r\n"
                            + auth
                            + "\r\nContent-Length: 2\r\n\r\n{}",
                    400);
            // Jetty's own errors for methods other than GET, POST and HEAD: once empty bodies.
            requests.put(
                    "PUT /api/users/1/unread HTTP/1.1\r\n"
                            + auth
                            + "\r\nX-Big: "
                            + "b".repeat(40 * 1024),
                    431);
            requests.put("DELETE /health HTTP/1.1\r\n" + auth + "\r\nExpect: nothing", 417);
            requests.put("OPTIONS * HTTP/1.1\r\n" + auth, 404);
            requests.put("get /api/users/1/unread HTTP/1.1\r\n" + auth, 405);
            requests.forEach(
                    (request, status) -> {
                        Response response;
                        try {
                            response =
                                    exchange(
                                            api.port(),
                                            (request.contains("\r\n\r\n")
                                                            ? request
                                                            : request + "\r\n\r\n")
                                                    .getBytes(UTF_8));
                        } catch (IOException e) {
                            throw new AssertionError(request, e);
                        }
                        assertThat(response.status).as(request).isEqualTo(status);
                        assertThat(isErrorJson(response))
                                .as(request + " -> " + response.text())
                                .isTrue();
                    });
        }
    }

    /** What a route reads besides the ids of its path. */
    private enum Input {
        NONE,
        USER_IDS_QUERY,
        SEQ_QUERY,
        READ_BODY,
        PREFERENCE_BODY,
        THREAD_READ_BODY,
        FOLLOW_BODY,
        /** Never asked for as {@code text/event-stream}, so no stream is opened: 406. */
        EVENT_STREAM;

        boolean jsonBody() {
            return this == READ_BODY
                    || this == PREFERENCE_BODY
                    || this == THREAD_READ_BODY
                    || this == FOLLOW_BODY;
        }
    }

    /** What this test knows of a route of the API's table: its input and the stores it needs. */
    private record Known(Input input, Set<String> dependencies) {}

    private static Known known(Input input, String... dependencies) {
        return new Known(input, Set.of(dependencies));
    }

    /**
     * Every route of {@link ApiRoutes}, which the requests are made from; a route served but not
     * here fails the test, so that a new route is fuzzed from the day it is added.
     */
    private static final Map<String, Known> KNOWN =
            Map.ofEntries(
                    Map.entry("GET /api/users/{userId}/unread", known(Input.NONE, "redis")),
                    Map.entry("GET /api/unread", known(Input.USER_IDS_QUERY, "redis")),
                    Map.entry("GET /api/users/{userId}/cursors", known(Input.NONE, "mysql")),
                    // An action takes its stamp from Redis before Kafka has it (docs/contract.md).
                    Map.entry(
                            "POST /api/users/{userId}/inbox/opened",
                            known(Input.NONE, "redis", "kafka")),
                    Map.entry(
                            "POST /api/users/{userId}/read-all",
                            known(Input.NONE, "redis", "kafka")),
                    Map.entry(
                            "POST /api/conversations/{cid}/read",
                            known(Input.READ_BODY, "redis", "kafka")),
                    Map.entry(
                            "PUT /api/users/{userId}/conversations/{cid}/preference",
                            known(Input.PREFERENCE_BODY, "redis", "kafka")),
                    Map.entry(
                            "POST /api/users/{userId}/conversations/{cid}/unread",
                            known(Input.NONE, "redis", "kafka")),
                    Map.entry(
                            "POST /api/users/{userId}/conversations/{cid}/threads/{threadSeq}/read",
                            known(Input.THREAD_READ_BODY, "redis", "kafka")),
                    Map.entry(
                            "PUT /api/users/{userId}/conversations/{cid}/threads/{threadSeq}/follow",
                            known(Input.FOLLOW_BODY, "redis", "kafka")),
                    Map.entry("DELETE /api/users/{userId}", known(Input.NONE, "redis", "kafka")),
                    Map.entry("GET /api/users/{userId}/events", known(Input.EVENT_STREAM)),
                    Map.entry(
                            "GET /api/conversations/{cid}/readers",
                            known(Input.SEQ_QUERY, "redis")),
                    Map.entry("GET /health", known(Input.NONE)),
                    Map.entry("GET /metrics", known(Input.NONE)),
                    Map.entry("GET /openapi.json", known(Input.NONE)),
                    Map.entry("GET /", known(Input.NONE)));

    private static final Pattern PATH_PARAM = Pattern.compile("\\{[^}]+}");

    /** A generated request and what is known about it in advance. */
    private static final class Request {
        String method;
        String target;
        final List<String> headers = new ArrayList<>();
        byte[] body;
        boolean chunked;

        /** Bytes sent instead of a request built from the fields: not HTTP, or broken HTTP. */
        byte[] raw;

        boolean tokenRight;

        /** Null unless the request is plain enough for its route to be certain. */
        ApiRoute route;

        boolean idValid;
        boolean queryValid;

        /** Null when the body's fate is not certain (e.g. a byte order mark). */
        Boolean bodyValid;

        byte[] bytes() {
            if (raw != null) {
                return raw;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes((method + " " + target + " HTTP/1.1\r\n").getBytes(UTF_8));
            for (String header : headers) {
                out.writeBytes((header + "\r\n").getBytes(UTF_8));
            }
            if (body != null && chunked) {
                out.writeBytes("Transfer-Encoding: chunked\r\n\r\n".getBytes(UTF_8));
                for (int at = 0; at < body.length; at += 4096) {
                    int n = Math.min(4096, body.length - at);
                    out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(UTF_8));
                    out.write(body, at, n);
                    out.writeBytes("\r\n".getBytes(UTF_8));
                }
                out.writeBytes("0\r\n\r\n".getBytes(UTF_8));
            } else if (body != null) {
                out.writeBytes(("Content-Length: " + body.length + "\r\n\r\n").getBytes(UTF_8));
                out.writeBytes(body);
            } else {
                out.writeBytes("\r\n".getBytes(UTF_8));
            }
            return out.toByteArray();
        }

        String describe() {
            String text = new String(bytes(), ISO_8859_1);
            return text.length() <= 600 ? text : text.substring(0, 600) + "...";
        }
    }

    /** What came back: status, headers (names in lower case) and body. */
    private record Response(int status, Map<String, String> headers, byte[] body) {

        String text() {
            return new String(body, UTF_8);
        }
    }

    /** One seeded series of requests against one API and what was seen. */
    private static final class Run {
        final int port;
        final long seed;
        final Set<String> down;
        final List<ApiRoute> routes;
        final Random random;
        final Map<Integer, Integer> statuses = new TreeMap<>();
        final List<String> violations = new ArrayList<>();
        int sent;
        int checkedExactly;
        final long started = System.nanoTime();

        Run(StateQueryApi api, long seed, Set<String> down) {
            this.port = api.port();
            this.seed = seed;
            this.down = down;
            this.routes = api.routeTable();
            this.random = new Random(seed);
            assertThat(routes.stream().map(ApiRoute::key))
                    .as("the routes served are the routes this test knows")
                    .containsExactlyInAnyOrderElementsOf(KNOWN.keySet());
        }

        void send(int n) throws IOException {
            for (int i = 0; i < n; i++) {
                Request request = generate();
                Response response = exchange(port, request.bytes());
                sent++;
                if (response == null) {
                    if (!blank(request)) {
                        violation(i, request, null, "no answer");
                    }
                    continue;
                }
                statuses.merge(response.status, 1, Integer::sum);
                check(i, request, response);
            }
        }

        void assertNoViolation() {
            assertThat(violations)
                    .as(
                            "%d violations in %d requests, seed %d (rerun with -Dunread.seed=%d)",
                            violations.size(), sent, seed, seed)
                    .isEmpty();
        }

        void summary(String what) {
            System.out.printf(
                    "RELIABILITY | %s | injected: %d random requests | statuses %s"
                            + " | %d checked for an exact status | 5xx but a real 503: 0"
                            + " | leaks: 0 | %.1f s | seed %d%n",
                    what,
                    sent,
                    statuses,
                    checkedExactly,
                    (System.nanoTime() - started) / 1e9,
                    seed);
        }

        // --- what every answer must be ---

        void check(int i, Request request, Response response) {
            int status = response.status;
            boolean head = "HEAD".equals(request.method);
            String text = response.text();
            if (status >= 500) {
                if (!(status == 503 && reallyDown(request, response))
                        && !(status == 505 && notHttp11(request))) {
                    violation(i, request, response, "server error");
                }
            }
            for (String leak : LEAKS) {
                if (text.contains(leak)) {
                    violation(i, request, response, "body shows \"" + leak + "\"");
                }
            }
            if (status == 401 && !"Bearer".equals(response.headers.get("www-authenticate"))) {
                violation(i, request, response, "401 without a Bearer challenge");
            }
            if (status >= 400 && !head && !isHealth(text) && !isErrorJson(response)) {
                violation(i, request, response, "error body is not {\"error\",\"status\"}");
            }
            if (status >= 200
                    && status < 300
                    && !head
                    && !isMetrics(text)
                    && !isInboxPage(text)
                    && json(text) == null) {
                violation(i, request, response, "success body is not JSON");
            }
            if (!request.tokenRight
                    && status >= 200
                    && status < 300
                    && !head
                    && !isOpenResponse(text)) {
                violation(i, request, response, "user data without the right token");
            }
            Integer expected = expectedStatus(request);
            if (expected != null) {
                checkedExactly++;
                if (status != expected) {
                    violation(i, request, response, "expected status " + expected);
                }
            }
        }

        /**
         * The status a plain request must get: the wrong method 405 with or without a token, the
         * token before the body limit, the body limit before the parameters (docs/contract.md, and
         * order StateQueryApi documents). Null when not certain.
         */
        Integer expectedStatus(Request r) {
            ApiRoute route = r.route;
            if (route == null || !ORDINARY_METHODS.contains(r.method)) {
                return null;
            }
            if (!r.method.equals(route.method().name())) {
                return 405;
            }
            boolean bodyTooLong = r.body != null && !r.chunked && r.body.length > MAX_BODY;
            if (route.access() == Access.OPEN) {
                if (bodyTooLong) {
                    return 413;
                }
                return route.path().equals("/health") && !down.isEmpty() ? 503 : 200;
            }
            if (!r.tokenRight) {
                return 401;
            }
            if (route.write()) {
                Boolean json = declaredJson(r);
                if (json == null) {
                    return null;
                }
                // A write that reads a body needs one declared JSON; any write a type, if any.
                if (!json && (route.readsJson() || hasHeader(r, "Content-Type"))) {
                    return 415;
                }
            }
            if (bodyTooLong) {
                return 413;
            }
            if (route.write() && hasHeader(r, "Origin")) {
                // Only another site's page sends one here: a write from it is refused.
                return 403;
            }
            Known known = KNOWN.get(route.key());
            int ok =
                    known.dependencies.stream().anyMatch(down::contains)
                            ? 503
                            : route.write() ? 202 : 200;
            switch (known.input) {
                case USER_IDS_QUERY:
                    return r.queryValid ? ok : 400;
                case SEQ_QUERY:
                    return r.idValid && r.queryValid ? ok : 400;
                case EVENT_STREAM:
                    return r.idValid ? 406 : 400;
                case READ_BODY:
                case PREFERENCE_BODY:
                case THREAD_READ_BODY:
                case FOLLOW_BODY:
                    // The body is read first: too long is a 413 whatever else is wrong.
                    if (r.body != null && r.body.length > MAX_BODY) {
                        return 413;
                    }
                    if (!r.idValid) {
                        return 400;
                    }
                    return r.bodyValid == null ? null : r.bodyValid ? ok : 400;
                default:
                    return r.idValid ? ok : 400;
            }
        }

        /** Whether the request's type is JSON; null when its header is one the server may drop. */
        static Boolean declaredJson(Request r) {
            for (String header : r.headers) {
                if (header.regionMatches(true, 0, "Content-Type:", 0, 13)) {
                    String type = header.substring(13).trim();
                    if (type.isEmpty()) {
                        return null;
                    }
                    return type.split(";", 2)[0].trim().equalsIgnoreCase("application/json");
                }
            }
            return false;
        }

        static boolean hasHeader(Request r, String name) {
            return r.headers.stream()
                    .anyMatch(h -> h.regionMatches(true, 0, name + ":", 0, name.length() + 1));
        }

        /** Nothing but line breaks: no request, so nothing to answer. */
        static boolean blank(Request request) {
            return new String(request.bytes(), ISO_8859_1).isBlank();
        }

        /**
         * A request line without HTTP/1.0 or 1.1: 505 HTTP Version Not Supported is what RFC 9110
         * prescribes, and Jetty's parser sends it before the API sees the request.
         */
        static boolean notHttp11(Request request) {
            String line = new String(request.bytes(), ISO_8859_1).split("\r?\n", 2)[0];
            return !line.matches(".* HTTP/1\\.[01]");
        }

        /** A 503 for a dependency this run took down, on a route that needs it. */
        boolean reallyDown(Request request, Response response) {
            if (isHealth(response.text())) {
                return !down.isEmpty();
            }
            JsonNode body = json(response.text());
            String error = body == null ? "" : body.path("error").asText();
            return down.stream().anyMatch(d -> error.equals(d + " unavailable"));
        }

        void violation(int i, Request request, Response response, String what) {
            if (violations.size() < 20) {
                violations.add(
                        String.format(
                                "#%d %s%n--- request:%n%s%n--- answer: %s%n",
                                i,
                                what,
                                request.describe(),
                                response == null
                                        ? "none"
                                        : response.status
                                                + " "
                                                + response.headers
                                                + " "
                                                + abbreviate(response.text())));
            } else if (violations.size() == 20) {
                violations.add("... more");
            }
        }

        // --- generating requests ---

        Request generate() {
            Request r = new Request();
            int kind = random.nextInt(100);
            if (kind < 75) {
                routeRequest(r);
            } else if (kind < 92) {
                r.method = anyMethod();
                r.target = randomPath() + (random.nextBoolean() ? "" : "?" + junkQuery());
                commonHeaders(r);
                maybeBody(r, random.nextInt(4) == 0);
            } else {
                brokenRequest(r);
            }
            return r;
        }

        void routeRequest(Request r) {
            ApiRoute route = routes.get(random.nextInt(routes.size()));
            Input input = KNOWN.get(route.key()).input;
            boolean plain = true;
            int m = random.nextInt(100);
            if (m < 80) {
                r.method = route.method().name();
            } else if (m < 95) {
                r.method = pick("GET", "POST", "PUT", "DELETE", "PATCH");
            } else {
                r.method = pick("HEAD", "OPTIONS", "TRACE", "FOO", "get", "Post");
            }
            String path = route.path();
            List<String> params = PATH_PARAM.matcher(path).results().map(p -> p.group()).toList();
            if (!params.isEmpty()) {
                // One id of every shape; the others are plain valid ids.
                String tried = params.get(random.nextInt(params.size()));
                String id;
                if (random.nextInt(100) < 65) {
                    id = plainId();
                } else {
                    id = hostileId();
                    plain = false;
                }
                r.idValid = valid(id);
                for (String param : params) {
                    path =
                            path.replace(
                                    param,
                                    param.equals(tried)
                                            ? id
                                            : String.valueOf(1 + random.nextInt(1_000_000)));
                }
            }
            if (random.nextInt(10) == 0) {
                path = mutate(path);
                plain = false;
            }
            String query = "";
            if (input == Input.USER_IDS_QUERY) {
                query = userIdsQuery(r);
                if (query == null) {
                    plain = false;
                    query = "?" + junkQuery();
                }
            } else if (input == Input.SEQ_QUERY) {
                query = seqQuery(r);
            } else if (random.nextInt(7) == 0) {
                query = "?" + plainJunkQuery();
            }
            r.target = path + query;
            plain &= commonHeaders(r);
            boolean write =
                    "POST".equals(r.method) || "PUT".equals(r.method) || "DELETE".equals(r.method);
            if (input.jsonBody() && r.method.equals(route.method().name())) {
                jsonBody(r, input);
            } else {
                maybeBody(r, write || random.nextInt(15) == 0);
            }
            r.route = plain ? route : null;
        }

        /** Host, Connection and the token; sometimes more. False when a header breaks HTTP. */
        boolean commonHeaders(Request r) {
            r.headers.add("Host: 127.0.0.1:" + port);
            r.headers.add("Connection: close");
            authorization(r);
            if (random.nextInt(3) == 0) {
                r.headers.add(
                        "Content-Type: "
                                + pick(
                                        "application/json",
                                        "text/plain",
                                        "application/json; charset=latin1",
                                        "multipart/form-data; boundary=x",
                                        "application/x-www-form-urlencoded",
                                        "}{",
                                        ""));
            }
            if (random.nextInt(5) == 0) {
                r.headers.add(
                        pick(
                                "Accept: text/html",
                                "Accept: */*",
                                "X-Forwarded-For: 1.2.3.4",
                                "Cookie: a=b",
                                "Origin: http://evil.example",
                                "X-Request-Id: " + "r".repeat(200),
                                "Accept-Encoding: gzip, br",
                                "If-None-Match: *",
                                "Range: bytes=0-1"));
            }
            if (random.nextInt(60) == 0) {
                // An expectation the server does not know: 417, before anything else.
                r.headers.add("Expect: nothing");
                return false;
            }
            if (random.nextInt(60) == 0) {
                // Past the server's 32 KiB of headers: 431, before anything else.
                r.headers.add("X-Big: " + "b".repeat(33 * 1024 + random.nextInt(8 * 1024)));
                return false;
            }
            return true;
        }

        void authorization(Request r) {
            int a = random.nextInt(100);
            r.tokenRight = a < 60;
            if (a < 45) {
                r.headers.add("Authorization: Bearer " + TOKEN);
            } else if (a < 60) {
                r.headers.add(
                        "Authorization: "
                                + pick("bearer ", "BEARER ", "Bearer   ")
                                + TOKEN
                                + pick("", " ", "  "));
            } else if (a < 75) {
                // No token at all.
                return;
            } else {
                r.headers.add(
                        "Authorization: "
                                + pick(
                                        "Bearer",
                                        "Bearer ",
                                        "Bearer wrong",
                                        "Bearer " + TOKEN + "x",
                                        "Bearer " + TOKEN.substring(1),
                                        "Bearer " + TOKEN.toUpperCase(Locale.ROOT),
                                        "Basic " + TOKEN,
                                        TOKEN,
                                        "Token " + TOKEN,
                                        "Bearer " + TOKEN + TOKEN,
                                        "Bearer\t" + TOKEN,
                                        "Bearer "
                                                + TOKEN.substring(0, 5)
                                                + "\u00e9"
                                                + TOKEN.substring(5),
                                        "Bearer " + "x".repeat(5000)));
            }
        }

        void maybeBody(Request r, boolean withBody) {
            if (!withBody) {
                return;
            }
            int b = random.nextInt(100);
            if (b < 5) {
                r.body = new byte[MAX_BODY + 1 + random.nextInt(3 * MAX_BODY)];
                Arrays.fill(r.body, (byte) 'x');
            } else if (b < 30) {
                r.body = new byte[random.nextInt(200)];
                random.nextBytes(r.body);
            } else {
                r.body = anyJson().getBytes(UTF_8);
            }
            r.chunked = random.nextInt(10) == 0;
        }

        /** The JSON body of a route that reads one, and whether it is valid. */
        void jsonBody(Request r, Input input) {
            // As a client sends it, mostly: the checks of the body come after its type's (415).
            if (!hasHeader(r, "Content-Type") && random.nextInt(10) > 0) {
                r.headers.add("Content-Type: application/json");
            }
            int b = random.nextInt(100);
            if (b < 45) {
                String extra = random.nextBoolean() ? "" : ",\"note\":[1,{\"a\":null}]";
                r.body = validBody(input, extra).getBytes(UTF_8);
                r.bodyValid = true;
            } else if (b < 85) {
                r.body = pick(invalidBodies(input)).getBytes(UTF_8);
                r.bodyValid = false;
            } else if (b < 92) {
                r.body = new byte[1 + random.nextInt(100)];
                random.nextBytes(r.body);
                // Random bytes starting with '{' could be JSON in theory: not certain.
                r.bodyValid = r.body[0] == '{' ? null : false;
            } else if (b < 96) {
                // A byte order mark, then a valid object: parsers differ on it.
                byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
                byte[] json = validBody(input, "").getBytes(UTF_8);
                r.body = new byte[bom.length + json.length];
                System.arraycopy(bom, 0, r.body, 0, bom.length);
                System.arraycopy(json, 0, r.body, bom.length, json.length);
                r.bodyValid = null;
            } else {
                r.body =
                        validBody(input, ",\"pad\":\"" + "p".repeat(MAX_BODY) + "\"")
                                .getBytes(UTF_8);
                r.bodyValid = false;
            }
            r.chunked = random.nextInt(8) == 0;
        }

        /** A body the route takes, with {@code extra} fields it ignores. */
        String validBody(Input input, String extra) {
            String userId = String.valueOf(1 + random.nextInt(1_000_000));
            String readSeq = String.valueOf(random.nextInt(1000));
            switch (input) {
                case READ_BODY:
                    return random.nextBoolean()
                            ? "{\"userId\":" + userId + ",\"readSeq\":" + readSeq + extra + "}"
                            : "{ \"readSeq\" : "
                                    + pick(readSeq, "0", "9223372036854775807")
                                    + extra
                                    + " ,\n\"userId\":"
                                    + userId
                                    + "}";
                case PREFERENCE_BODY:
                    return "{\"countPreference\":\""
                            + pick("ALL", "MENTIONS", "NONE")
                            + "\""
                            + extra
                            + "}";
                case THREAD_READ_BODY:
                    return "{\"readSeq\":"
                            + pick(readSeq, "0", "9223372036854775807")
                            + extra
                            + "}";
                case FOLLOW_BODY:
                    return "{\"following\":" + pick("true", "false") + extra + "}";
                default:
                    throw new IllegalArgumentException(input + " reads no body");
            }
        }

        /** Bodies the route refuses with 400. */
        String[] invalidBodies(Input input) {
            String userId = String.valueOf(1 + random.nextInt(1_000_000));
            String[] malformed = {
                "null",
                "",
                "{",
                "\"userId\"",
                "{'a':1}",
                "{a:1}",
                "{}x",
                "[{}]",
                "{\"a\":" + "[".repeat(3000) + "]".repeat(3000) + "}"
            };
            String[] wrong;
            switch (input) {
                case READ_BODY:
                    wrong =
                            new String[] {
                                "{\"userId\":0,\"readSeq\":1}",
                                "{\"userId\":-5,\"readSeq\":1}",
                                "{\"userId\":\"" + userId + "\",\"readSeq\":1}",
                                "{\"userId\":" + userId + ".0,\"readSeq\":1}",
                                "{\"userId\":1e3,\"readSeq\":1}",
                                "{\"userId\":true,\"readSeq\":1}",
                                "{\"userId\":null,\"readSeq\":1}",
                                "{\"userId\":[1],\"readSeq\":1}",
                                "{\"userId\":{},\"readSeq\":1}",
                                "{\"readSeq\":1}",
                                "{\"userId\":" + userId + "}",
                                "{\"userId\":" + userId + ",\"readSeq\":-1}",
                                "{\"userId\":" + userId + ",\"readSeq\":9223372036854775808}",
                                "{\"userId\":99999999999999999999999,\"readSeq\":1}",
                                "{\"userId\":1,\"userId\":2,\"readSeq\":1}",
                                "{\"userId\":1,\"readSeq\":1}x",
                                "{\"userId\":1,\"readSeq\":1}{}",
                                "[{\"userId\":1,\"readSeq\":1}]",
                                "{\"userId\":1,\"readSeq\":1",
                                "{\"userId\":NaN,\"readSeq\":1}"
                            };
                    break;
                case PREFERENCE_BODY:
                    wrong =
                            new String[] {
                                "{}",
                                "{\"countPreference\":\"all\"}",
                                "{\"countPreference\":\"Mentions\"}",
                                "{\"countPreference\":\" ALL\"}",
                                "{\"countPreference\":\"SOME\"}",
                                "{\"countPreference\":null}",
                                "{\"countPreference\":1}",
                                "{\"countPreference\":[\"ALL\"]}",
                                "{\"preference\":\"ALL\"}",
                                "{\"countPreference\":\"ALL\",\"countPreference\":\"NONE\"}",
                                "{\"countPreference\":\"ALL\"}{}"
                            };
                    break;
                case THREAD_READ_BODY:
                    wrong =
                            new String[] {
                                "{}",
                                "{\"readSeq\":-1}",
                                "{\"readSeq\":\"1\"}",
                                "{\"readSeq\":1.0}",
                                "{\"readSeq\":1e3}",
                                "{\"readSeq\":true}",
                                "{\"readSeq\":null}",
                                "{\"readSeq\":[1]}",
                                "{\"readSeq\":9223372036854775808}",
                                "{\"readSeq\":1,\"readSeq\":2}",
                                "{\"readSeq\":NaN}"
                            };
                    break;
                case FOLLOW_BODY:
                    wrong =
                            new String[] {
                                "{}",
                                "{\"following\":\"true\"}",
                                "{\"following\":1}",
                                "{\"following\":0}",
                                "{\"following\":null}",
                                "{\"following\":\"yes\"}",
                                "{\"following\":[true]}",
                                "{\"following\":true,\"following\":false}",
                                "{\"following\":true}x"
                            };
                    break;
                default:
                    throw new IllegalArgumentException(input + " reads no body");
            }
            String[] all = Arrays.copyOf(wrong, wrong.length + malformed.length);
            System.arraycopy(malformed, 0, all, wrong.length, malformed.length);
            return all;
        }

        /** {@code ?seq=...} of plain characters, with {@code queryValid}. */
        String seqQuery(Request r) {
            int q = random.nextInt(100);
            String seq =
                    random.nextInt(10) == 0
                            ? plainId()
                            : String.valueOf(1 + random.nextInt(1_000_000));
            String query;
            if (q < 80) {
                query = "?seq=" + seq;
            } else if (q < 88) {
                query = "?seq=" + seq + "&seq=1";
            } else if (q < 94) {
                query = "?Seq=" + seq;
            } else {
                query = "";
            }
            if (random.nextInt(5) == 0) {
                query += (query.isEmpty() ? "?" : "&") + plainJunkQuery();
            }
            r.queryValid = q < 80 && valid(seq);
            return query;
        }

        /** Requests that break HTTP itself: the server must still answer in its JSON shape. */
        void brokenRequest(Request r) {
            r.method = "BROKEN";
            String path = "/api/users/" + (1 + random.nextInt(100)) + "/unread";
            String host = "Host: 127.0.0.1:" + port + "\r\n";
            String auth = "Authorization: Bearer " + TOKEN + "\r\n";
            r.tokenRight = true;
            String text =
                    pick(
                            "GET " + path + " HTTP/9.9\r\n" + host + auth + "\r\n",
                            "GET " + path + "\r\n" + host + auth + "\r\n",
                            "GET  " + path + "  HTTP/1.1\r\n" + host + auth + "\r\n",
                            "GET " + path + " HTTP/1.1\r\n" + auth + "\r\n",
                            "GET "
                                    + path
                                    + " HTTP/1.1\r\n"
                                    + host
                                    + "NoColonHere\r\n"
                                    + auth
                                    + "\r\n",
                            "GET "
                                    + path
                                    + " HTTP/1.1\r\n"
                                    + host
                                    + "Bad Name: x\r\n"
                                    + auth
                                    + "\r\n",
                            "GET "
                                    + path
                                    + " HTTP/1.1\r\n"
                                    + host
                                    + "X: a\u0001b\r\n"
                                    + auth
                                    + "\r\n",
                            "GET " + path + " HTTP/1.1\n" + host + auth + "\n",
                            "GET /api/users/1%ZZ/unread HTTP/1.1\r\n" + host + auth + "\r\n",
                            "GET /api/users/%2e%2e/%2e%2e/health HTTP/1.1\r\n"
                                    + host
                                    + auth
                                    + "\r\n",
                            "GET /api/users/1%2F2/unread HTTP/1.1\r\n" + host + auth + "\r\n",
                            "GET /api/users/1%00/unread HTTP/1.1\r\n" + host + auth + "\r\n",
                            "GET http://127.0.0.1:"
                                    + port
                                    + path
                                    + " HTTP/1.1\r\n"
                                    + host
                                    + auth
                                    + "\r\n",
                            "OPTIONS * HTTP/1.1\r\n" + host + auth + "\r\n",
                            "GET " + path + " HTTP/1.1\r\n" + host + host + auth + "\r\n",
                            "POST /api/conversations/1/read HTTP/1.1\r\n"
                                    + host
                                    + auth
                                    + "Content-Length: 5\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
                            "POST /api/conversations/1/read HTTP/1.1\r\n"
                                    + host
                                    + auth
                                    + "Content-Length: -1\r\n\r\n",
                            "POST /api/conversations/1/read HTTP/1.1\r\n"
                                    + host
                                    + auth
                                    + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
                            "POST /api/conversations/1/read HTTP/1.1\r\n"
                                    + host
                                    + auth
                                    + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
                            "GET /" + "a".repeat(40_000) + " HTTP/1.1\r\n" + host + auth + "\r\n",
                            "\r\n\r\n",
                            "HELLO\r\n\r\n",
                            "GET / HTTP/1.1\r\n" + host + "\r\n");
            byte[] bytes = text.getBytes(ISO_8859_1);
            if (random.nextInt(4) == 0) {
                // Bytes that are not text in the request line.
                bytes =
                        ("GET /api/users/\u00ff\u00fe"
                                        + (char) (0x80 + random.nextInt(64))
                                        + "/unread HTTP/1.1\r\n"
                                        + host
                                        + auth
                                        + "\r\n")
                                .getBytes(ISO_8859_1);
            }
            r.raw = bytes;
        }

        // --- the pieces ---

        String plainId() {
            int p = random.nextInt(100);
            if (p < 60) {
                return String.valueOf(
                        1 + (long) (random.nextDouble() * Math.pow(10, 1 + random.nextInt(17))));
            }
            return pick(
                    "0",
                    "00",
                    "007",
                    "-1",
                    "9223372036854775807",
                    "9223372036854775808",
                    "18446744073709551616",
                    "99999999999999999999999999",
                    "abc",
                    "1e3",
                    "0x1F",
                    "+1",
                    "1.0",
                    "1_000",
                    "~",
                    "1-2",
                    "NaN",
                    "Infinity",
                    "null");
        }

        String hostileId() {
            return pick(
                    "%20" + 1,
                    "1%20",
                    "%31",
                    "%EF%BC%91",
                    "%D9%A1%D9%A2",
                    "1%00",
                    "%2e%2e",
                    ".",
                    "..",
                    "",
                    "%",
                    "%ZZ",
                    "1;x=2",
                    "1,2",
                    "%2F1",
                    "1%2F2",
                    "1#frag",
                    "%F0%9F%98%80",
                    "\u00e9",
                    "1".repeat(5000),
                    "a".repeat(300),
                    "{id}",
                    "*",
                    "%u0031",
                    "1%0d%0aX-Injected: yes");
        }

        /** The id rule of docs/contract.md: decimal digits, 1 to 2^63-1. */
        static boolean valid(String id) {
            if (!id.matches("[0-9]{1,19}")) {
                return false;
            }
            BigInteger value = new BigInteger(id);
            return value.signum() > 0 && value.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) <= 0;
        }

        /** {@code ?userIds=...} of plain characters, with {@code queryValid}; null: unplain. */
        String userIdsQuery(Request r) {
            int q = random.nextInt(100);
            List<String> ids = new ArrayList<>();
            int n =
                    q < 70
                            ? 1 + random.nextInt(5)
                            : q < 80 ? 495 + random.nextInt(10) : random.nextInt(3);
            for (int i = 0; i < n; i++) {
                ids.add(
                        random.nextInt(10) == 0
                                ? plainId()
                                : String.valueOf(1 + random.nextInt(1_000_000)));
            }
            String value = String.join(",", ids);
            if (random.nextInt(10) == 0) {
                value = value + pick(",", ",,", ",1");
            }
            int form = random.nextInt(100);
            String query;
            if (form < 80) {
                query = "?userIds=" + value;
            } else if (form < 85) {
                query = "?userIds=" + value + "&userIds=1";
            } else if (form < 90) {
                query = "?userids=" + value;
            } else if (form < 93) {
                query = "";
            } else {
                return null;
            }
            if (random.nextInt(5) == 0) {
                query += (query.isEmpty() ? "?" : "&") + plainJunkQuery();
            }
            String[] parts = value.split(",", -1);
            r.queryValid =
                    form < 80
                            && !value.isEmpty()
                            && parts.length <= Params.MAX_BATCH
                            && Arrays.stream(parts).allMatch(Run::valid);
            return query;
        }

        /** Parameters that no route reads, of plain characters. */
        String plainJunkQuery() {
            return pick("a=1", "x", "page=2&size=10", "=", "&&", "userId=5", "a=b=c");
        }

        String junkQuery() {
            return pick(
                    "a=%ZZ",
                    "%00=1",
                    "userIds=%2C%2C",
                    "userIds=1%2C2",
                    "x=" + "y".repeat(3000),
                    "userIds=" + "1,".repeat(2000) + "1",
                    "a[]=1&a[]=2",
                    "q=%F0%9F%98%80",
                    "userIds=+1",
                    "userIds=1%00",
                    plainJunkQuery());
        }

        String mutate(String path) {
            switch (random.nextInt(7)) {
                case 0:
                    return path + "/";
                case 1:
                    return path.replaceFirst("/", "//");
                case 2:
                    return path.toUpperCase(Locale.ROOT);
                case 3:
                    return path + "/extra";
                case 4:
                    return path.replaceFirst("/api", "/api/./");
                case 5:
                    return "/x/.." + path;
                default:
                    return path.replace("/", "/%2F");
            }
        }

        String randomPath() {
            StringBuilder path = new StringBuilder();
            int segments = random.nextInt(6);
            for (int i = 0; i < segments; i++) {
                path.append('/')
                        .append(
                                pick(
                                        "api",
                                        "users",
                                        "unread",
                                        "cursors",
                                        "inbox",
                                        "opened",
                                        "conversations",
                                        "read",
                                        "health",
                                        "metrics",
                                        "openapi.json",
                                        "1",
                                        "0",
                                        "-1",
                                        "..",
                                        ".",
                                        "",
                                        "%2e",
                                        "admin",
                                        "actuator",
                                        ".env",
                                        "WEB-INF",
                                        "%00",
                                        "x".repeat(1 + random.nextInt(9000))));
            }
            return path.length() == 0 ? "/" : path.toString();
        }

        String anyMethod() {
            return pick(
                    "GET",
                    "GET",
                    "POST",
                    "POST",
                    "PUT",
                    "DELETE",
                    "PATCH",
                    "HEAD",
                    "OPTIONS",
                    "TRACE",
                    "PROPFIND",
                    "X");
        }

        String anyJson() {
            return pick(
                    "{}",
                    "[]",
                    "null",
                    "1",
                    "\"s\"",
                    "{\"userId\":1,\"readSeq\":1}",
                    "{\"a\":" + "{\"a\":".repeat(200) + "1" + "}".repeat(200) + "}",
                    "{\"userId\":1e400}",
                    "{\"\u0000\":1}",
                    "{\"type\":\"INBOX_OPENED\"}");
        }

        @SafeVarargs
        final <T> T pick(T... choices) {
            return choices[random.nextInt(choices.length)];
        }
    }

    // --- a client that sends bytes as they are ---

    private static Response exchange(int port, byte[] request) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            socket.setSoTimeout(READ_TIMEOUT_MS);
            try {
                OutputStream out = socket.getOutputStream();
                out.write(request);
                out.flush();
                socket.shutdownOutput();
            } catch (IOException e) {
                // The server may answer and close before reading it all (413, 431): read that.
            }
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    answer.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // A reset after the answer: what arrived is the answer.
            }
            return parse(answer.toByteArray());
        }
    }

    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.[01] (\\d{3})( .*)?");

    /** The first response in {@code bytes}; null when there is none. */
    private static Response parse(byte[] bytes) {
        String text = new String(bytes, ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return null;
        }
        String[] lines = text.substring(0, end).split("\r\n");
        var status = STATUS_LINE.matcher(lines[0]);
        if (!status.matches()) {
            return null;
        }
        Map<String, String> headers = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(
                        lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
        }
        int start = end + 4;
        byte[] body;
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(bytes, start);
        } else if (headers.containsKey("content-length")) {
            int length = Integer.parseInt(headers.get("content-length"));
            body = Arrays.copyOfRange(bytes, start, Math.min(bytes.length, start + length));
        } else {
            body = Arrays.copyOfRange(bytes, start, bytes.length);
        }
        if ("gzip".equalsIgnoreCase(headers.get("content-encoding"))) {
            body = gunzip(body);
        }
        return new Response(Integer.parseInt(status.group(1)), headers, body);
    }

    private static byte[] gunzip(byte[] body) {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new AssertionError("a gzip body that does not unzip", e);
        }
    }

    private static byte[] dechunk(byte[] bytes, int at) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        String text = new String(bytes, ISO_8859_1);
        while (at < bytes.length) {
            int lineEnd = text.indexOf("\r\n", at);
            if (lineEnd < 0) {
                break;
            }
            int size = Integer.parseInt(text.substring(at, lineEnd).split(";")[0].trim(), 16);
            if (size == 0) {
                break;
            }
            body.write(bytes, lineEnd + 2, Math.min(size, bytes.length - lineEnd - 2));
            at = lineEnd + 2 + size + 2;
        }
        return body.toByteArray();
    }

    // --- recognizing bodies ---

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean isErrorJson(Response response) {
        String type = response.headers.getOrDefault("content-type", "");
        JsonNode body = json(response.text());
        return type.startsWith("application/json")
                && body != null
                && body.isObject()
                && body.size() == 2
                && body.path("error").isTextual()
                && !body.path("error").asText().isBlank()
                && body.path("status").isInt()
                && body.path("status").asInt() == response.status;
    }

    /** /health's own shape: a status word, each check, and on 503 an error naming them. */
    private static boolean isHealth(String text) {
        JsonNode body = json(text);
        return body != null && body.has("checks") && body.path("status").isTextual();
    }

    private static boolean isMetrics(String text) {
        return text.startsWith("# HELP") || text.startsWith("# TYPE");
    }

    /** What the open paths answer: nothing about any user. */
    private static boolean isOpenResponse(String text) {
        JsonNode body = json(text);
        return isHealth(text)
                || isMetrics(text)
                || isInboxPage(text)
                || (body != null && body.has("openapi"));
    }

    /** {@code GET /}: the inbox page, HTML that holds no data until a user's token reads it. */
    private static boolean isInboxPage(String text) {
        return text.startsWith("<!DOCTYPE html>");
    }

    private static String abbreviate(String text) {
        return text.length() <= 400 ? text : text.substring(0, 400) + "...";
    }
}
