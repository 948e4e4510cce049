package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The holes of the security review of version 3 (issue 33) that an unauthenticated caller or one
 * user token reaches over plain HTTP, against the real server with auth off on loopback.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HardeningITCase {

    private static final Pattern METHOD_LABEL = Pattern.compile("method=\"([^\"]*)\"");

    @RegisterExtension static final StartedApi STARTED = StartedApi.with(c -> c);

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
    void madeUpMethodsShareOneMetricsLabel() throws Exception {
        int before = http.get("/metrics").body().length();
        for (int i = 0; i < 300; i++) {
            String method = "X" + i + "Y".repeat(1024);
            assertThat(rawStatusLine(method + " /api/users/1/unread HTTP/1.1\r\n"))
                    .startsWith("HTTP/1.1 4");
        }
        String metrics = http.get("/metrics").body();
        System.out.printf(
                "/metrics after 300 made-up 1 KiB methods: %d bytes before, %d after%n",
                before, metrics.length());

        Set<String> methods = new TreeSet<>();
        Matcher label = METHOD_LABEL.matcher(metrics);
        while (label.find()) {
            methods.add(label.group(1));
        }
        assertThat(methods).contains("OTHER").isSubsetOf("GET", "PUT", "POST", "OTHER");
        assertThat(metrics.length()).isLessThan(before + 64 * 1024);
    }

    @Test
    void aWebSocketUpgradeNamingAnotherHostIsRefusedWithoutAToken() throws Exception {
        // DNS rebinding: the attacker's page, its name now resolving to 127.0.0.1, names itself.
        String refused =
                rawAnswer(
                        webSocketUpgrade("/api/users/1/ws")
                                + "Host: rebound.example\r\nOrigin: http://rebound.example\r\n",
                        "\r\n\r\n");
        assertThat(statusLine(refused)).startsWith("HTTP/1.1 403");
        String own =
                rawAnswer(
                        webSocketUpgrade("/api/users/1/ws")
                                + "Host: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\n",
                        "SNAPSHOT");
        assertThat(statusLine(own)).startsWith("HTTP/1.1 101");
    }

    @Test
    void aWebSocketPathWithAMalformedEscapeGets400AndEveryRefusedUpgradeIsNeitherStoredNorSniffed()
            throws Exception {
        String malformed =
                rawAnswer(
                        webSocketUpgrade("/api/users/%u0031/ws") + "Host: 127.0.0.1\r\n",
                        "\r\n\r\n");
        assertThat(statusLine(malformed)).startsWith("HTTP/1.1 400");
        String rebound =
                rawAnswer(
                        webSocketUpgrade("/api/users/1/ws") + "Host: rebound.example\r\n",
                        "\r\n\r\n");
        for (String refused : new String[] {malformed, rebound}) {
            assertThat(refused.toLowerCase(java.util.Locale.ROOT))
                    .contains("cache-control: no-store")
                    .contains("x-content-type-options: nosniff");
        }
    }

    @Test
    void writesTakeJsonOnlySoThatNoOtherSitesFormReachesThem() {
        String read = "{\"userId\":1,\"readSeq\":1}";
        for (String type : new String[] {"text/plain", "application/x-www-form-urlencoded"}) {
            Http.assertError(
                    http.post("/api/conversations/80001/read", read, "Content-Type", type), 415);
            Http.assertError(
                    http.post("/api/users/1/inbox/opened", "a=b", "Content-Type", type), 415);
        }
        Http.assertError(
                http.send(
                        http.request("/api/conversations/80001/read")
                                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(read))),
                415);
        assertThat(
                        http.post(
                                        "/api/conversations/80001/read",
                                        read,
                                        "Content-Type",
                                        "application/json; charset=utf-8")
                                .statusCode())
                .isEqualTo(202);
        // A route that takes no body takes none at all, as before.
        assertThat(
                        http.send(
                                        http.request("/api/users/1/inbox/opened")
                                                .POST(
                                                        java.net.http.HttpRequest.BodyPublishers
                                                                .noBody()))
                                .statusCode())
                .isEqualTo(202);
    }

    /**
     * Issue 45 item 10: 200 anonymous requests with a malformed Host or CONNECT target wrote 6.0 MB
     * of Jetty's warnings (org.eclipse.jetty.util.HostPort) in 0.27 s. Each is refused with 400,
     * and all of them write less than a few lines of log.
     */
    @Test
    void aFloodOfMalformedHostsAndConnectTargetsWritesABoundedLog() throws Exception {
        // As long as the header limit lets them be: Jetty's warning repeats the value.
        String big = "a".repeat(30_000);
        String[] malformed = {
            "GET /api/users/1/unread HTTP/1.1\r\nHost: [" + big + "\r\n",
            "GET /api/users/1/unread HTTP/1.1\r\nHost: 127.0.0.1:9" + "9".repeat(30_000) + "\r\n",
            "CONNECT [" + big + " HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            "CONNECT 127.0.0.1:" + big + " HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            "GET /api/users/%zz" + big + "/unread HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            "GET /api/users/1/unread HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + big + big + "\r\n",
            "POST /api/users/1/inbox/opened HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz"
                    + big
                    + "\r\n",
            "GET /api/users/1/unread HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -"
                    + big
                    + "\r\n",
            big + " / HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            "GET /" + big + " HTTP/9.9\r\nHost: 127.0.0.1\r\n",
        };
        long started = System.nanoTime();
        try (LogBytes log = LogBytes.attach()) {
            for (int i = 0; i < 200; i++) {
                String answer =
                        rawAnswer(malformed[i % malformed.length] + "Connection: close\r\n");
                // A route that reads no body answers before the malformed chunk is read.
                assertThat(statusLine(answer)).matches("HTTP/1.1 (4..|505|202) .*");
            }
            System.out.printf(
                    "200 malformed Hosts and CONNECT targets: %d bytes of log in %.2f s, by logger %s%n",
                    log.bytes(), (System.nanoTime() - started) / 1e9, log.byLogger());
            assertThat(log.bytes()).isLessThan(4096);
        }
    }

    /** Issue 45 item 11: no header makes a read a write, or a write something else. */
    @Test
    void aMethodOverrideHeaderIsRefused() {
        for (String header :
                new String[] {"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"}) {
            Http.assertError(http.get("/api/users/1/inbox/opened", header, "POST"), 400);
            Http.assertError(http.post("/api/users/1/unread", "", header, "GET"), 400);
        }
        assertThat(http.post("/api/users/1/inbox/opened", "").statusCode()).isEqualTo(202);
    }

    /**
     * Issue 45 item 11: with auth off, another site's page could send a write without a body (no
     * type, so no CORS preflight) from a visitor's browser to the API on loopback; a browser names
     * that page in {@code Origin}, as it does for a WebSocket.
     */
    @Test
    void aWriteFromAPageOfAnotherOriginIsRefused() {
        String own = "http://127.0.0.1:" + api.port();
        for (String path :
                new String[] {
                    "/api/users/1/inbox/opened",
                    "/api/users/1/read-all",
                    "/api/users/1/conversations/80001/unread"
                }) {
            Http.assertError(
                    http.send(
                            http.request(path, "Origin", "https://evil.example")
                                    .POST(java.net.http.HttpRequest.BodyPublishers.noBody())),
                    403);
            assertThat(
                            http.send(
                                            http.request(path, "Origin", own)
                                                    .POST(
                                                            java.net.http.HttpRequest.BodyPublishers
                                                                    .noBody()))
                                    .statusCode())
                    .as(path)
                    .isEqualTo(202);
        }
        // Reads stay open to any page, as before: a browser lets no other page read the answer.
        assertThat(http.get("/api/users/1/unread", "Origin", "https://evil.example").statusCode())
                .isEqualTo(200);
    }

    /** Issue 45 item 11: a refused WebSocket upgrade says why in JSON, as every refusal does. */
    @Test
    void aRefusedWebSocketUpgradeHasAJsonBody() throws Exception {
        String refused =
                rawAnswer(
                        webSocketUpgrade("/api/users/1/ws")
                                + "Host: 127.0.0.1\r\nOrigin: https://evil.example\r\n"
                                + "Connection: close\r\n");
        assertThat(statusLine(refused)).startsWith("HTTP/1.1 403");
        assertThat(refused).contains("\"error\":\"origin not allowed\"").contains("\"status\":403");
    }

    /** Issue 45 item 11: a body over the limit is 413 whether it came with a length or chunked. */
    @Test
    void aChunkedBodyOverTheLimitGets413() {
        String big = "{\"userId\":1,\"readSeq\":1,\"x\":\"" + "a".repeat(20_000) + "\"}";
        Http.assertError(
                http.send(
                        http.request(
                                        "/api/conversations/80001/read",
                                        "Content-Type",
                                        Responses.JSON)
                                .POST(
                                        java.net.http.HttpRequest.BodyPublishers.ofInputStream(
                                                () ->
                                                        new java.io.ByteArrayInputStream(
                                                                big.getBytes(
                                                                        StandardCharsets.UTF_8))))),
                413);
    }

    private static String webSocketUpgrade(String path) {
        return "GET "
                + path
                + " HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
    }

    /** Sends one request line (with a loopback Host) on a socket of its own; the status line. */
    private String rawStatusLine(String requestLine) throws IOException {
        return statusLine(rawAnswer(requestLine + "Host: 127.0.0.1\r\nConnection: close\r\n"));
    }

    private static String statusLine(String answer) {
        return answer.lines().findFirst().orElse("");
    }

    /**
     * Sends a request's line and headers on a socket of its own; what comes back until the server
     * closes, or until {@code until} has come (a stream's answer does not end).
     */
    private String rawAnswer(String head, String... until) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", api.port())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write((head + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder answer = new StringBuilder();
            byte[] buffer = new byte[8192];
            int n;
            while ((until.length == 0 || !answer.toString().contains(until[0]))
                    && (n = in.read(buffer)) >= 0) {
                answer.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
            }
            return answer.toString();
        }
    }
}
