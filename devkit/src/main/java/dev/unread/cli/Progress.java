package dev.unread.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.generator.TrafficProducer;
import dev.unread.kafka.EmbeddedKafka;
import dev.unread.minicluster.InProcessMetrics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The progress line of {@code unread local}: what went in, what it cost in Redis, what was refused,
 * and one badge read back the way a client reads it, through the HTTP API.
 */
final class Progress implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Progress.class);

    /** A line is due every few seconds; a slow answer is shown as unknown rather than waited on. */
    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private final Admin admin;
    private final String deadLetterTopic;
    private final URI api;
    private final String token;
    private final TrafficProducer traffic;
    private final long user;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final ObjectMapper json = new ObjectMapper();

    /**
     * @param traffic the generator's producer; null when there is none
     * @param user whose badge to show; 0 for none
     */
    Progress(
            EmbeddedKafka kafka,
            String deadLetterTopic,
            URI api,
            String token,
            TrafficProducer traffic,
            long user) {
        this.admin = kafka.admin();
        this.deadLetterTopic = deadLetterTopic;
        this.api = api;
        this.token = token;
        this.traffic = traffic;
        this.user = user;
    }

    /**
     * For example {@code [0:05] events in 1000 (2 malformed) | Redis 1250 commands, 96 coalesced |
     * dead letters 2 | API: user 10001 badge 4, 7 unread in 3 conversations}.
     */
    String line(Duration elapsed) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("[%d:%02d] ", elapsed.toMinutes(), elapsed.toSecondsPart()));
        if (traffic == null) {
            sb.append("no generator");
        } else {
            sb.append("events in ")
                    .append(traffic.acknowledged())
                    .append(" (")
                    .append(traffic.malformedAcknowledged())
                    .append(" malformed)");
        }
        sb.append(" | Redis ")
                .append(InProcessMetrics.redisCommands())
                .append(" commands, ")
                .append(InProcessMetrics.redisCoalescedUpdates())
                .append(" coalesced | dead letters ")
                .append(deadLetters());
        if (user != 0) {
            sb.append(" | API: user ").append(user).append(" ").append(badge());
        }
        return sb.toString();
    }

    @Override
    public void close() {
        admin.close(TIMEOUT);
    }

    /** Records in the dead-letter topic: the sum of its partitions' end offsets. */
    private String deadLetters() {
        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        for (int p = 0; p < EmbeddedKafka.PARTITIONS; p++) {
            ends.put(new TopicPartition(deadLetterTopic, p), OffsetSpec.latest());
        }
        try {
            long sum = 0;
            for (ListOffsetsResultInfo end :
                    admin.listOffsets(ends)
                            .all()
                            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                            .values()) {
                sum += end.offset();
            }
            return Long.toString(sum);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        } catch (Exception e) {
            LOG.debug("Dead-letter offsets", e);
            return "?";
        }
    }

    /** {@code badge 4, 7 unread in 3 conversations}, or why the API did not say. */
    private String badge() {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(api.resolve("/api/users/" + user + "/unread"))
                        .timeout(TIMEOUT);
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            HttpResponse<String> response =
                    http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode body = json.readTree(response.body());
            if (response.statusCode() != 200) {
                return "HTTP " + response.statusCode() + " " + body.path("error").asText();
            }
            long unread = 0;
            int conversations = 0;
            for (Iterator<JsonNode> counts = body.path("conversations").elements();
                    counts.hasNext(); ) {
                unread += counts.next().asLong();
                conversations++;
            }
            return String.format(
                    "badge %d, %d unread in %d conversations",
                    body.path("unreadSenders").asLong(), unread, conversations);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "no answer";
        } catch (Exception e) {
            LOG.debug("Reading a badge through the API", e);
            return "no answer (" + e.getClass().getSimpleName() + ")";
        }
    }
}
