package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.RedisNames;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every way a live stream ends frees its slot (of the streams a user may hold) and its user's live
 * registration at once (issue 33 item 3), with real sockets: a reset (SO_LINGER 0) while the stream
 * opens or once it is open, and a plain close. Heartbeats are a minute apart, so no write of the
 * server can be what notices.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamSlotsITCase {

    private static final int RESETS = 5;

    @RegisterExtension
    static final StartedApi STARTED =
            StartedApi.with(c -> c.streamHeartbeatMs(60_000).streamMaxPerUser(2));

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
    void aResetWhileTheEventStreamOpensLeavesNoSlotTaken() throws Exception {
        long user = 301;
        for (int i = 0; i < RESETS; i++) {
            try (Socket socket = open(sseRequest(user))) {
                socket.setSoLinger(true, 0);
            }
        }
        assertFreed(user);
    }

    @Test
    void aResetOfAnOpenEventStreamFreesItsSlot() throws Exception {
        long user = 302;
        for (int i = 0; i < RESETS; i++) {
            try (Socket socket = open(sseRequest(user))) {
                awaitSnapshot(socket);
                socket.setSoLinger(true, 0);
            }
            awaitNoStream();
        }
        assertFreed(user);
    }

    @Test
    void aPlainCloseOfAnEventStreamFreesItsSlot() throws Exception {
        long user = 303;
        try (Socket socket = open(sseRequest(user))) {
            awaitSnapshot(socket);
        }
        assertFreed(user);
    }

    @Test
    void aResetOrACloseOfAWebSocketFreesItsSlot() throws Exception {
        long user = 304;
        for (int i = 0; i < RESETS; i++) {
            try (Socket socket = open(webSocketRequest(user))) {
                if (i % 2 == 0) {
                    awaitSnapshot(socket);
                }
                // The last one closes plainly, the others reset.
                socket.setSoLinger(i < RESETS - 1, 0);
            }
            awaitNoStream();
        }
        assertFreed(user);
    }

    /**
     * The user may open as many streams as before, and once those are closed, no stream of its is
     * counted or live in Redis. Polled both: the server may take up a reset request only after the
     * test sent it.
     */
    private void assertFreed(long user) throws Exception {
        Poll.until(() -> bothOpen(user), () -> "streams " + streamsOpen());
        String live = RedisNames.liveUsersKey(stores.keyPrefix);
        Poll.until(
                () -> streamsOpen() == 0 && stores.redis.zscore(live, Long.toString(user)) == null,
                () -> "streams " + streamsOpen() + ", live " + stores.redis.zrange(live, 0, -1));
    }

    /** The server saw the last stream end: the next one may count on the user's whole room. */
    private void awaitNoStream() throws Exception {
        Poll.until(() -> streamsOpen() == 0, () -> "streams " + streamsOpen());
    }

    /** Whether two streams of {@code user} (its whole allowance) both open; closes them. */
    private boolean bothOpen(long user) throws Exception {
        try (LiveClient.Sse first = sse(user);
                LiveClient.Sse second = sse(user)) {
            if (first.response.statusCode() != 200 || second.response.statusCode() != 200) {
                return false;
            }
            assertThat(first.next().get("type").asText()).isEqualTo("SNAPSHOT");
            assertThat(second.next().get("type").asText()).isEqualTo("SNAPSHOT");
            return true;
        }
    }

    private LiveClient.Sse sse(long userId) throws Exception {
        return LiveClient.sse("http://127.0.0.1:" + api.port() + StateQueryApi.eventsPath(userId));
    }

    private static String sseRequest(long user) {
        return "GET /api/users/"
                + user
                + "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
    }

    private static String webSocketRequest(long user) {
        return "GET /api/users/"
                + user
                + "/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\n\r\n";
    }

    private Socket open(String request) throws IOException {
        Socket socket = new Socket("127.0.0.1", api.port());
        socket.setSoTimeout(20_000);
        OutputStream out = socket.getOutputStream();
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    /** Reads until the snapshot has come: the stream is registered and its user live. */
    private static void awaitSnapshot(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        StringBuilder seen = new StringBuilder();
        byte[] buffer = new byte[4096];
        while (!seen.toString().contains("SNAPSHOT")) {
            int n = in.read(buffer);
            assertThat(n).as("the stream ended before its snapshot: " + seen).isPositive();
            seen.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
        }
    }

    private double streamsOpen() {
        String prefix = "unread_api_streams ";
        return http.get("/metrics")
                .body()
                .lines()
                .filter(l -> l.startsWith(prefix))
                .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length()).trim()))
                .findFirst()
                .orElse(0);
    }
}
