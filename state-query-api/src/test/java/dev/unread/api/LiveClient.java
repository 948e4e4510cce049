package dev.unread.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A live stream as a client sees it, over Server-Sent Events ({@link #sse}) or a WebSocket ({@link
 * #webSocket}), both with the JDK's own clients: the JSON messages in order, the heartbeats
 * counted, and whether the server ended the stream.
 */
abstract class LiveClient implements AutoCloseable {

    @Override
    public abstract void close();

    static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** Marks the end of the stream in {@link #messages}. */
    private static final String END = "END";

    final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final AtomicInteger heartbeats = new AtomicInteger();
    private volatile boolean ended;

    /** The next message, parsed; fails the test if none comes within 20 s. */
    JsonNode next() throws InterruptedException {
        String text = messages.poll(20, TimeUnit.SECONDS);
        if (text == null || text == END) {
            throw new AssertionError(text == null ? "no message within 20 s" : "stream ended");
        }
        try {
            return Http.JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next message, or null if none within {@code ms} (or the stream ended). */
    String poll(long ms) throws InterruptedException {
        String text = messages.poll(ms, TimeUnit.MILLISECONDS);
        return text == END ? null : text;
    }

    boolean ended() {
        return ended;
    }

    void end() {
        ended = true;
        messages.add(END);
    }

    /** Opens {@code GET base + path} with {@code Accept: text/event-stream}. */
    static Sse sse(String url, String... headers) throws Exception {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream");
        if (headers.length > 0) {
            request.headers(headers);
        }
        HttpResponse<Stream<String>> response =
                HTTP.sendAsync(request.build(), HttpResponse.BodyHandlers.ofLines())
                        .get(20, TimeUnit.SECONDS);
        return new Sse(response);
    }

    static final class Sse extends LiveClient {
        final HttpResponse<Stream<String>> response;
        private final Thread reader;

        Sse(HttpResponse<Stream<String>> response) {
            this.response = response;
            this.reader =
                    new Thread(
                            () -> {
                                try (Stream<String> lines = response.body()) {
                                    lines.forEach(
                                            line -> {
                                                if (line.startsWith("data:")) {
                                                    messages.add(line.substring(5).trim());
                                                } else if (line.startsWith(":")) {
                                                    heartbeats.incrementAndGet();
                                                }
                                            });
                                } catch (UncheckedIOException e) {
                                    // The server ended the stream or the test closed it.
                                } finally {
                                    end();
                                }
                            },
                            "sse-test-client");
            reader.setDaemon(true);
            reader.start();
        }

        @Override
        public void close() {
            response.body().close();
        }
    }

    /** Opens a WebSocket to {@code url} (ws://...), with {@code headers} (name, value, ...). */
    static Ws webSocket(String url, String... headers) throws Exception {
        Ws client = new Ws();
        WebSocket.Builder builder = HTTP.newWebSocketBuilder();
        for (int i = 0; i < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        client.socket =
                builder.buildAsync(URI.create(url), client.listener).get(20, TimeUnit.SECONDS);
        return client;
    }

    static final class Ws extends LiveClient {
        volatile WebSocket socket;
        volatile int closeCode;
        private final StringBuilder partial = new StringBuilder();
        final WebSocket.Listener listener =
                new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onText(
                            WebSocket ws, CharSequence data, boolean last) {
                        partial.append(data);
                        if (last) {
                            messages.add(partial.toString());
                            partial.setLength(0);
                        }
                        ws.request(1);
                        return null;
                    }

                    @Override
                    public CompletionStage<?> onPing(WebSocket ws, ByteBuffer message) {
                        heartbeats.incrementAndGet();
                        ws.request(1);
                        return null;
                    }

                    @Override
                    public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
                        closeCode = statusCode;
                        end();
                        return null;
                    }

                    @Override
                    public void onError(WebSocket ws, Throwable error) {
                        end();
                    }
                };

        @Override
        public void close() {
            if (!ended()) {
                try {
                    socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (TimeoutException | ExecutionException e) {
                    // Aborted below either way.
                }
            }
            socket.abort();
        }
    }
}
