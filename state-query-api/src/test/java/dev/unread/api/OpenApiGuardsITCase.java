package dev.unread.api;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.WebSocketHandshakeException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With no token configured the API is open to whoever reaches it, so it must be reached only from
 * this machine and only by what this machine means: it listens on loopback unless told otherwise
 * (ApiConfigTest), answers only requests for a loopback name (another name is a DNS-rebinding page
 * speaking to 127.0.0.1), and takes WebSocket upgrades only from its own origin or the allowed ones
 * (a cross-site page would otherwise read any user's stream).
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenApiGuardsITCase {

    private static final String ALLOWED = "https://app.example";

    @RegisterExtension
    static final StartedApi STARTED = StartedApi.with(c -> c.allowedOrigins(ALLOWED));

    private TestStores stores;
    private StateQueryApi api;

    @BeforeAll
    void takeApi() {
        stores = STARTED.stores();
        api = STARTED.api();
    }

    @Test
    void aRequestForAnotherHostNameIsRefused() throws Exception {
        assertThat(status("127.0.0.1:" + api.port())).isEqualTo(200);
        assertThat(status("localhost:" + api.port())).isEqualTo(200);
        assertThat(status("[::1]:" + api.port())).isEqualTo(200);
        assertThat(status("rebound.example:" + api.port())).isEqualTo(403);
        assertThat(status("127.0.0.1.rebound.example")).isEqualTo(403);
    }

    @Test
    void aWebSocketFromAnotherSitesPageIsRefused() throws Exception {
        String url = "ws://127.0.0.1:" + api.port() + "/api/users/2/ws";

        assertThat(upgrade(url, "Origin", "https://evil.example")).isEqualTo(403);
        assertThat(upgrade(url, "Origin", "null")).isEqualTo(403);
        assertThat(upgrade(url, "Origin", "http://127.0.0.1:" + api.port())).isEqualTo(101);
        assertThat(upgrade(url, "Origin", ALLOWED)).isEqualTo(101);
        assertThat(upgrade(url)).as("no Origin: not a browser").isEqualTo(101);
    }

    /** 101 when the upgrade was taken, else the status it was refused with. */
    private static int upgrade(String url, String... headers) throws Exception {
        try {
            LiveClient.webSocket(url, headers).close();
            return 101;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException refused) {
                return refused.getResponse().statusCode();
            }
            throw e;
        }
    }

    /** The status of a read sent to the API with {@code host} as its Host header. */
    private int status(String host) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), api.port()), 5000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream()
                    .write(
                            ("GET /api/users/1/unread HTTP/1.1\r\nHost: "
                                            + host
                                            + "\r\nConnection: close\r\n\r\n")
                                    .getBytes(ISO_8859_1));
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            in.transferTo(answer);
            String statusLine = answer.toString(ISO_8859_1).lines().findFirst().orElse("");
            return Integer.parseInt(statusLine.split(" ")[1]);
        }
    }
}
