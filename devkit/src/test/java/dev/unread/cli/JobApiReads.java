package dev.unread.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.api.StateQueryApi;
import dev.unread.config.UnreadConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

/** One answer of an API started beside a job's settings, for tests that read what a run wrote. */
public final class JobApiReads {

    private static final ObjectMapper JSON = new ObjectMapper();

    private JobApiReads() {}

    /** The JSON answer to {@code GET path} (e.g. {@code /api/users/7/unread}); it must be 200. */
    public static JsonNode get(UnreadConfig config, String path) throws Exception {
        try (StateQueryApi api =
                StateQueryApi.start(JobApi.config(config, Map.of()).port(0).build())) {
            HttpResponse<String> response =
                    HttpClient.newHttpClient()
                            .send(
                                    HttpRequest.newBuilder(
                                                    URI.create(
                                                            "http://127.0.0.1:"
                                                                    + api.port()
                                                                    + path))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            return JSON.readTree(response.body());
        }
    }
}
