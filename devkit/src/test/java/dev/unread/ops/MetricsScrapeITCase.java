package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.UnreadJob;
import dev.unread.api.StateQueryApi;
import dev.unread.cli.JobApi;
import dev.unread.config.FlinkConf;
import dev.unread.config.JobSettings;
import dev.unread.config.UnreadConfig;
import dev.unread.minicluster.LocalCluster;
import dev.unread.testing.BadRecords;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Poll;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * No alert and no dashboard panel reads a metric that does not exist: the job runs on a MiniCluster
 * with the Prometheus reporter of flink-conf/config.yaml, the API beside it, both under real
 * traffic (records with bad ones among them through Kafka, reads and a live stream through the
 * API), and every metric name the rules (monitoring/prometheus/) and the dashboard
 * (monitoring/grafana/) name must be in a scrape of the two /metrics endpoints.
 *
 * <p>A name counts as present once a sample of it is scraped, or, for the API, once its family is
 * declared: a labelled counter (a 5xx, a stream cut off) shows its samples only after the first
 * time it happened, and this test does not break the API to make one.
 */
class MetricsScrapeITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    private static final Path ROOT = FlinkConf.findDir().getParent();
    private static final Path RULES = ROOT.resolve("monitoring/prometheus");
    private static final Path DASHBOARDS = ROOT.resolve("monitoring/grafana/dashboards");

    /** The metric names the rules and panels use: Flink's reporter's and the API's. */
    private static final Pattern METRIC =
            Pattern.compile("\\b(flink_[A-Za-z0-9_]+|unread_api_[A-Za-z0-9_]+)\\b");

    /** A sample line of the text format: its name, then labels or the value. */
    private static final Pattern SAMPLE = Pattern.compile("(?m)^([A-Za-z_:][A-Za-z0-9_:]*)[{ ]");

    /** A family declared by the API's exposition. */
    private static final Pattern DECLARED = Pattern.compile("(?m)^# TYPE ([A-Za-z0-9_:]+) ");

    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @TempDir Path data;

    @Test
    void everyMetricTheRulesAndTheDashboardNameIsScraped() throws Exception {
        Set<String> used = usedNames();
        // Guards against a pattern that finds nothing and so proves nothing.
        assertThat(used).contains("flink_jobmanager_job_numRestarts", "unread_api_requests_total");

        long seed = JobHarness.seed("MetricsScrapeITCase");
        String prefix = JobHarness.prefix("scrape", seed);
        int metricsPort = freePort();
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = KAFKA.freshTopics(JobHarness.settings(prefix, db.jdbcUrl()));
            Map<String, String> overrides = new HashMap<>(FlinkConf.localPaths(data));
            overrides.put("metrics.reporter.prom.port", String.valueOf(metricsPort));
            overrides.put(RestOptions.PORT.key(), "0");
            Configuration conf = FlinkConf.load(FlinkConf.findDir(), overrides);
            conf.addAll(JobSettings.of(config));
            try (MiniCluster cluster =
                            new MiniCluster(
                                    new MiniClusterConfiguration.Builder()
                                            .setConfiguration(conf)
                                            .setNumTaskManagers(1)
                                            .setNumSlotsPerTaskManager(2)
                                            .build());
                    StateQueryApi api =
                            StateQueryApi.start(JobApi.config(config, Map.of()).port(0).build())) {
                cluster.start();
                JobID job =
                        LocalCluster.submit(
                                cluster, UnreadJob.forProduction(config), config, 2, null);
                Poll.until(
                        "the job running",
                        TIMEOUT,
                        () ->
                                LocalCluster.allRunning(cluster, job, "while starting")
                                        ? true
                                        : null);

                JobHarness.Traffic traffic =
                        JobHarness.traffic(config, seed, 2_000, new BadRecords(seed).of(10));
                KAFKA.produce(traffic.records());
                HttpClient http = HttpClient.newHttpClient();
                URI apiUri = URI.create("http://127.0.0.1:" + api.port());
                long user = traffic.events().get(0).userId;
                // An open stream while the API is scraped, and answered requests of each kind.
                HttpResponse<InputStream> stream =
                        http.send(
                                HttpRequest.newBuilder(
                                                apiUri.resolve("/api/users/" + user + "/events"))
                                        .header("Accept", "text/event-stream")
                                        .build(),
                                HttpResponse.BodyHandlers.ofInputStream());
                try (InputStream events = stream.body()) {
                    assertThat(stream.statusCode()).isEqualTo(200);
                    get(http, apiUri, "/api/users/" + user + "/unread");
                    get(http, apiUri, "/api/users/" + user + "/cursors");
                    get(http, apiUri, "/health");
                    get(http, apiUri, "/no-such-route");

                    URI flinkUri = URI.create("http://127.0.0.1:" + metricsPort);
                    Set<String> missing = awaitScraped(http, flinkUri, apiUri, used, cluster, job);
                    assertThat(missing)
                            .as(
                                    "metrics named in monitoring/ but not scraped (the scrapes"
                                            + " are in target/metrics-scrape/)")
                            .isEmpty();
                }
                LocalCluster.cancel(cluster, job, Duration.ofSeconds(60));
            }
        }
    }

    /**
     * Scrapes until every name used is there and a checkpoint completed, or the deadline passed,
     * and returns the names still missing. Some appear only after work was done: Kafka's
     * per-partition offsets once partitions are assigned, the Redis flush histogram once a flush
     * went out.
     */
    private Set<String> awaitScraped(
            HttpClient http, URI flink, URI api, Set<String> used, MiniCluster cluster, JobID job)
            throws Exception {
        Path out = ROOT.resolve("devkit/target/metrics-scrape");
        Files.createDirectories(out);
        Set<String> missing = new TreeSet<>(used);
        try {
            Poll.until(
                    "every metric named in monitoring/ scraped, and a checkpoint",
                    TIMEOUT,
                    () -> {
                        String flinkText = get(http, flink, "/metrics");
                        String apiText = get(http, api, "/metrics");
                        Files.writeString(out.resolve("flink.txt"), flinkText);
                        Files.writeString(out.resolve("api.txt"), apiText);
                        missing.removeAll(names(SAMPLE, flinkText));
                        missing.removeAll(names(SAMPLE, apiText));
                        missing.removeAll(names(DECLARED, apiText));
                        return missing.isEmpty()
                                        && JobHarness.completedCheckpoints(cluster, job) > 0
                                ? true
                                : null;
                    });
        } catch (AssertionError timedOut) {
            // The names still missing say more than the timeout does.
        }
        return missing;
    }

    /** Every metric name in the rule files' expressions and the dashboards' queries. */
    private static Set<String> usedNames() throws IOException {
        Set<String> used = new TreeSet<>();
        for (Path file : files(RULES, ".yml")) {
            if (file.getFileName().toString().endsWith(".test.yml")) {
                continue;
            }
            try (Reader in = Files.newBufferedReader(file)) {
                Map<String, Object> rules = new Yaml().load(in);
                for (Object group : (List<?>) rules.get("groups")) {
                    for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
                        used.addAll(names(METRIC, String.valueOf(((Map<?, ?>) rule).get("expr"))));
                    }
                }
            }
        }
        for (Path file : files(DASHBOARDS, ".json")) {
            // Every "expr" of every panel's targets; the JSON's other text names no metric.
            Matcher expr =
                    Pattern.compile("\"expr\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"")
                            .matcher(Files.readString(file));
            while (expr.find()) {
                used.addAll(names(METRIC, expr.group(1)));
            }
        }
        return used;
    }

    private static List<Path> files(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> found =
                    files.filter(f -> f.getFileName().toString().endsWith(suffix))
                            .sorted()
                            .toList();
            assertThat(found).as("files *" + suffix + " in " + dir).isNotEmpty();
            return found;
        }
    }

    private static Set<String> names(Pattern pattern, String text) {
        Set<String> names = new TreeSet<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    private static HttpRequest request(URI base, String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).build();
    }

    private static String get(HttpClient http, URI base, String path) throws Exception {
        return http.send(request(base, path), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
