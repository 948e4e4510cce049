package dev.unread.api;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * {@code GET /metrics}. Requests are labelled with the route template, never the raw path, and with
 * one of a fixed few methods, so the number of series stays fixed however many users call. Each API
 * instance has its own registry: the tests and the local stack run several in one JVM.
 */
final class ApiMetrics {

    /** Label of requests that matched no route (404, 405, 401 on unknown paths). */
    static final String UNMATCHED = "unmatched";

    static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    /** Why a stream was cut off: the client read too slowly or a write got stuck. */
    static final String CUT_OFF_SLOW = "slow";

    /** Why a stream was cut off: its bearer token expired. */
    static final String CUT_OFF_TOKEN_EXPIRED = "token expired";

    /** Why a stream was cut off: the Redis subscription behind it was lost. */
    static final String CUT_OFF_REDIS = "redis";

    /** The methods the API routes; every other one, whatever its name, is counted as OTHER. */
    static final Set<String> ROUTED_METHODS = Set.of("GET", "PUT", "POST", "DELETE");

    static final String OTHER_METHOD = "OTHER";

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    private final Counter requests =
            Counter.builder()
                    .name("unread_api_requests")
                    .help("HTTP requests by method, route template and status")
                    .labelNames("method", "route", "status")
                    .withoutExemplars()
                    .register(registry);

    private final Histogram latency =
            Histogram.builder()
                    .name("unread_api_request_duration_seconds")
                    .help("HTTP request latency by method, route template and status")
                    .labelNames("method", "route", "status")
                    .classicOnly()
                    .classicUpperBounds(
                            0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
                    .withoutExemplars()
                    .register(registry);

    private final Counter dependencyErrors =
            Counter.builder()
                    .name("unread_api_dependency_errors")
                    .help("Failed or timed-out calls to a dependency, health checks included")
                    .labelNames("dependency")
                    .withoutExemplars()
                    .register(registry);

    private final Gauge streams =
            Gauge.builder()
                    .name("unread_api_streams")
                    .help(
                            "Live streams holding a slot of the instance's cap (Server-Sent Events"
                                    + " and WebSocket)")
                    .withoutExemplars()
                    .register(registry);

    private final Counter streamsCutOff =
            Counter.builder()
                    .name("unread_api_streams_cut_off")
                    .help(
                            "Live streams closed by the API: a full buffer or a stuck write (slow client),"
                                    + " or the Redis subscription lost; the client is told to reconnect")
                    .labelNames("reason")
                    .withoutExemplars()
                    .register(registry);

    /** {@link #channelSkipped}'s reasons: a track that is not the job's JSON. */
    static final String SKIPPED_TRACK = "track";

    /** A channel index key of another type than the job writes. */
    static final String SKIPPED_INDEX = "index";

    private final Counter channelSkipped =
            Counter.builder()
                    .name("unread_api_channel_counts_skipped")
                    .help(
                            "Channels and threads left out of an answer: a track that is not the"
                                    + " job's, or an index key of another type")
                    .labelNames("reason")
                    .withoutExemplars()
                    .register(registry);

    private final Counter channelCommands =
            Counter.builder()
                    .name("unread_api_channel_commands")
                    .help(
                            "BITCOUNT and ZCOUNT commands sent to count members' channels and"
                                    + " followed threads: the readers' cost in Redis")
                    .withoutExemplars()
                    .register(registry);

    ApiMetrics() {
        for (String reason : new String[] {SKIPPED_TRACK, SKIPPED_INDEX}) {
            channelSkipped.labelValues(reason);
        }
        // Show every dependency at 0 from the start, so that rate() works before a first error.
        for (String dependency :
                new String[] {
                    DependencyException.REDIS, DependencyException.MYSQL, DependencyException.KAFKA
                }) {
            dependencyErrors.labelValues(dependency);
        }
        // The same for every reason a stream is cut off: the alert on cut-off streams
        // (monitoring/) has a series to read from the start.
        for (String reason : new String[] {CUT_OFF_SLOW, CUT_OFF_TOKEN_EXPIRED, CUT_OFF_REDIS}) {
            streamsCutOff.labelValues(reason);
        }
    }

    /**
     * The method label is one of a fixed few: a client names the method, and a label per name would
     * let anyone grow every scrape without bound (issue 33).
     */
    void request(String method, String route, int status, double seconds) {
        String code = Integer.toString(status);
        method = ROUTED_METHODS.contains(method) ? method : OTHER_METHOD;
        requests.labelValues(method, route, code).inc();
        latency.labelValues(method, route, code).observe(seconds);
    }

    void dependencyError(String dependency) {
        dependencyErrors.labelValues(dependency).inc();
    }

    /**
     * Read from the count the cap is checked against, not counted apart: a slot the cap still holds
     * is then a stream here too, and a leak of slots shows before the instance refuses everyone.
     */
    void streamsHeld(int held) {
        streams.set(held);
    }

    void streamCutOff(String reason) {
        streamsCutOff.labelValues(reason).inc();
    }

    void channelSkipped(String reason, int count) {
        channelSkipped.labelValues(reason).inc(count);
    }

    void channelCommands(int commands) {
        channelCommands.inc(commands);
    }

    /** Everything, in the Prometheus text format (version 0.0.4). */
    String scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            writer.write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
