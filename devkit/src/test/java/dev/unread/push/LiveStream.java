package dev.unread.push;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.api.StateQueryApi;
import dev.unread.testing.JobHarness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A Server-Sent Events stream of one user's live push as an app reads it: its JSON messages are
 * read on a thread of its own and taken here in order, each kept in {@link #seen} for the failure
 * messages.
 */
final class LiveStream implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();
    private final Stream<String> lines;

    private LiveStream(Stream<String> lines) {
        this.lines = lines;
        Thread reader =
                new Thread(
                        () ->
                                lines.filter(line -> line.startsWith("data:"))
                                        .forEach(line -> messages.add(parse(line))),
                        "live-push-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * A new stream of {@code userId}'s changes from the API on {@code port}, or null while the API
     * answers 503 (its Redis subscription failed).
     */
    static LiveStream open(int port, long userId) throws Exception {
        HttpRequest request =
                HttpRequest.newBuilder(
                                URI.create(
                                        "http://127.0.0.1:"
                                                + port
                                                + StateQueryApi.eventsPath(userId)))
                        .header("Accept", "text/event-stream")
                        .build();
        HttpResponse<Stream<String>> response =
                HttpClient.newHttpClient()
                        .sendAsync(request, HttpResponse.BodyHandlers.ofLines())
                        .get(30, TimeUnit.SECONDS);
        if (response.statusCode() == 503) {
            response.body().close();
            return null;
        }
        assertThat(response.statusCode()).isEqualTo(200);
        return new LiveStream(response.body());
    }

    /** Messages of this {@code type}. */
    static Predicate<JsonNode> type(String type) {
        return m -> m.get("type").asText().equals(type);
    }

    private static JsonNode parse(String line) {
        try {
            return JSON.readTree(line.substring(5).trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next message within {@code wait}, or null. */
    JsonNode take(Duration wait) throws InterruptedException {
        JsonNode message = messages.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
        if (message != null) {
            seen.add(message.toString());
        }
        return message;
    }

    /** The stream's first message, which must be its SNAPSHOT. */
    JsonNode snapshot() throws InterruptedException {
        JsonNode message = take(JobHarness.CONVERGENCE);
        assertThat(message).as("a SNAPSHOT in time").isNotNull();
        assertThat(message.get("type").asText()).isEqualTo("SNAPSHOT");
        return message;
    }

    /** The first message {@code wanted} within the convergence deadline; others passed over. */
    JsonNode next(Predicate<JsonNode> wanted) throws InterruptedException {
        JsonNode message = poll(wanted, JobHarness.CONVERGENCE);
        if (message == null) {
            throw new AssertionError(
                    "not within " + JobHarness.CONVERGENCE + "; the stream sent " + seen);
        }
        return message;
    }

    /**
     * The first message {@code wanted} within {@code wait}, or null; others passed over, and a
     * RECONNECT nobody waited for fails the test.
     */
    JsonNode poll(Predicate<JsonNode> wanted, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            JsonNode message = take(Duration.ofNanos(left));
            if (message == null) {
                return null;
            }
            if (wanted.test(message)) {
                return message;
            }
            assertThat(message.get("type").asText())
                    .as("an unexpected cut-off; the stream sent " + seen)
                    .isNotEqualTo("RECONNECT");
        }
        return null;
    }

    /** Every message taken from this stream so far, in order. */
    List<String> seen() {
        return seen;
    }

    @Override
    public void close() {
        lines.close();
    }
}
