package dev.unread.minicluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobID;

/**
 * Flink's REST API as an operator reads it from the web UI: a job's checkpoint statistics here, and
 * any other resource for the cluster tests.
 */
public final class FlinkRest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Checkpoint figures of a job: count, end-to-end duration and size. */
    public record Checkpoints(
            long completed,
            long p50Millis,
            long maxMillis,
            long lastFullBytes,
            long lastIncrementBytes) {}

    /** One checkpoint of the history: when it was triggered, and how long it took end to end. */
    public record CheckpointTime(long triggerMillis, long endToEndMillis) {}

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final URI base;

    public FlinkRest(URI base) {
        this.base = base;
    }

    public Checkpoints checkpoints(JobID job) throws IOException, InterruptedException {
        JsonNode stats = get("/jobs/" + job + "/checkpoints");
        JsonNode duration = stats.path("summary").path("end_to_end_duration");
        JsonNode latest = stats.path("latest").path("completed");
        return new Checkpoints(
                stats.path("counts").path("completed").asLong(),
                duration.path("p50").asLong(),
                duration.path("max").asLong(),
                latest.path("state_size").asLong(),
                latest.path("checkpointed_size").asLong());
    }

    /** Checkpoints of the job triggered and not yet completed or failed; 0 once it has ended. */
    public long checkpointsInFlight(JobID job) throws IOException, InterruptedException {
        return get("/jobs/" + job + "/checkpoints").path("counts").path("in_progress").asLong();
    }

    /**
     * The checkpoints the job master remembers ({@code web.checkpoints.history}, 10 by default),
     * completed or not, oldest first.
     */
    public List<CheckpointTime> checkpointHistory(JobID job)
            throws IOException, InterruptedException {
        List<CheckpointTime> times = new ArrayList<>();
        for (JsonNode checkpoint : get("/jobs/" + job + "/checkpoints").path("history")) {
            times.add(
                    new CheckpointTime(
                            checkpoint.path("trigger_timestamp").asLong(),
                            checkpoint.path("end_to_end_duration").asLong()));
        }
        times.sort((a, b) -> Long.compare(a.triggerMillis(), b.triggerMillis()));
        return times;
    }

    /** The JSON at {@code path} (such as {@code /jobs/overview}); fails unless it answers 200. */
    public JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response =
                http.send(
                        HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(
                    "Flink REST "
                            + path
                            + " answered "
                            + response.statusCode()
                            + ": "
                            + response.body());
        }
        return JSON.readTree(response.body());
    }
}
