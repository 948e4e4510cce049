package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small client for the API under test. */
final class Http {

    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    Http(StateQueryApi api) {
        this.base = "http://127.0.0.1:" + api.port();
    }

    HttpResponse<String> get(String path, String... headers) {
        return send(request(path, headers).GET());
    }

    /** A POST of {@code body}, as {@code application/json} unless the headers give a type. */
    HttpResponse<String> post(String path, String body, String... headers) {
        return send(
                request(path, jsonUnlessTyped(headers))
                        .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** As {@link #post}, with any method. */
    HttpResponse<String> send(
            String method, String path, HttpRequest.BodyPublisher body, String... headers) {
        return send(request(path, jsonUnlessTyped(headers)).method(method, body));
    }

    private static String[] jsonUnlessTyped(String... headers) {
        for (int i = 0; i < headers.length; i += 2) {
            if (headers[i].equalsIgnoreCase("Content-Type")) {
                return headers;
            }
        }
        String[] typed = java.util.Arrays.copyOf(headers, headers.length + 2);
        typed[headers.length] = "Content-Type";
        typed[headers.length + 1] = Responses.JSON;
        return typed;
    }

    HttpRequest.Builder request(String path, String... headers) {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return b;
    }

    HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static JsonNode json(HttpResponse<String> response) {
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + response.body(), e);
        }
    }

    /**
     * Asserts the error shape every error response has, and that nothing of the server's insides
     * (an exception class, a stack frame) shows; returns the message.
     */
    static String assertError(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        JsonNode body = json(response);
        assertThat(body.size()).as(response.body()).isEqualTo(2);
        assertThat(body.get("status").asInt()).isEqualTo(status);
        String message = body.get("error").asText();
        assertThat(message)
                .isNotBlank()
                .doesNotContain("Exception")
                .doesNotContain("at dev.")
                .doesNotContain("java.")
                .doesNotContain("redis.clients")
                .doesNotContain("org.apache");
        return message;
    }
}
