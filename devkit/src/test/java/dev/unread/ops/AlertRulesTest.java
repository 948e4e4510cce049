package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unread.config.FlinkConf;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.CheckpointingOptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The alerting rules of monitoring/prometheus/: valid for Prometheus ({@code promtool check
 * rules}), each firing on the series its tests give and silent on the ones that must not fire
 * ({@code promtool test rules}), each with a test and a runbook entry in docs/operations.md, and
 * held to the settings they encode.
 *
 * <p>promtool comes with Debian's {@code prometheus} package, which {@code .ci/run} installs.
 * Without it the promtool tests are skipped with a message, except under {@code CI=true}, where
 * they fail.
 */
class AlertRulesTest {

    private static final Path ROOT = FlinkConf.findDir().getParent();
    private static final Path RULES = ROOT.resolve("monitoring/prometheus/unread-alerts.yml");
    private static final Path TESTS = ROOT.resolve("monitoring/prometheus/unread-alerts.test.yml");

    private static List<Map<String, Object>> rules;
    private static String runbook;

    @BeforeAll
    static void readFiles() throws IOException {
        rules = new ArrayList<>();
        try (Reader in = Files.newBufferedReader(RULES)) {
            Map<String, Object> file = new Yaml().load(in);
            for (Object group : (List<?>) file.get("groups")) {
                for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
                    rules.add(map(rule));
                }
            }
        }
        runbook = Files.readString(ROOT.resolve("docs/operations.md"));
    }

    @Test
    void promtoolAcceptsTheRules() throws Exception {
        promtool("check", "rules", RULES.toString());
    }

    @Test
    void everyAlertFiresOnItsTestSeriesAndStaysSilentOnTheOthers() throws Exception {
        promtool("test", "rules", TESTS.toString());
    }

    @Test
    void everyAlertHasATestThatExpectsItToFireAndOneThatExpectsSilence() throws IOException {
        Set<String> firing = new LinkedHashSet<>();
        Set<String> silent = new LinkedHashSet<>();
        try (Reader in = Files.newBufferedReader(TESTS)) {
            Map<String, Object> file = new Yaml().load(in);
            assertThat(file.get("rule_files")).isEqualTo(List.of(RULES.getFileName().toString()));
            for (Object test : (List<?>) file.get("tests")) {
                for (Object check : (List<?>) map(test).get("alert_rule_test")) {
                    Map<String, Object> expected = map(check);
                    String alert = (String) expected.get("alertname");
                    Object alerts = expected.get("exp_alerts");
                    if (alerts == null || ((List<?>) alerts).isEmpty()) {
                        silent.add(alert);
                    } else {
                        firing.add(alert);
                    }
                }
            }
        }
        for (String alert : alerts()) {
            assertThat(firing).as("tests in which %s fires", alert).contains(alert);
            assertThat(silent).as("tests in which %s stays silent", alert).contains(alert);
        }
    }

    /**
     * Each alert links its runbook entry, a heading of docs/operations.md whose text says what the
     * alert means, what to look at and what to do.
     */
    @Test
    void everyAlertLinksItsRunbookEntry() {
        assertThat(alerts()).hasSizeGreaterThan(10);
        for (Map<String, Object> rule : rules) {
            if (!rule.containsKey("alert")) {
                continue;
            }
            String alert = (String) rule.get("alert");
            Map<String, Object> annotations = map(rule.get("annotations"));
            assertThat(annotations).as(alert).containsKeys("summary", "description", "runbook_url");
            String url = (String) annotations.get("runbook_url");
            Matcher anchor = Pattern.compile("docs/operations\\.md#([a-z0-9-]+)$").matcher(url);
            assertThat(anchor.find()).as(alert + " runbook_url " + url).isTrue();
            assertThat(anchor.group(1)).isEqualTo(alert.toLowerCase());
            // The heading the anchor is made from, and its three parts under it.
            int heading = runbook.indexOf("\n#### " + alert + "\n");
            assertThat(heading).as("runbook heading #### " + alert).isPositive();
            int next = runbook.indexOf("\n#", heading + 1);
            String entry = runbook.substring(heading, next < 0 ? runbook.length() : next);
            assertThat(entry)
                    .as("runbook entry of " + alert)
                    .contains("**Means:**", "**Look at:**", "**Do:**");
        }
    }

    /** The alert on slow checkpoints compares with the interval the cluster checkpoints at. */
    @Test
    void theSlowCheckpointAlertUsesTheCheckpointIntervalOfTheFlinkConfiguration() {
        long intervalMs =
                FlinkConf.load(FlinkConf.findDir(), Map.of())
                        .get(CheckpointingOptions.CHECKPOINTING_INTERVAL)
                        .toMillis();
        assertThat(rule("UnreadCheckpointsSlowerThanInterval").get("expr").toString())
                .matches(
                        "(?s)flink_jobmanager_job_lastCheckpointDuration\\{[^}]*} > "
                                + intervalMs
                                + "\\s*");
    }

    private static List<String> alerts() {
        List<String> alerts = new ArrayList<>();
        rules.forEach(
                rule -> {
                    if (rule.containsKey("alert")) {
                        alerts.add((String) rule.get("alert"));
                    }
                });
        return alerts;
    }

    private static Map<String, Object> rule(String alert) {
        return rules.stream()
                .filter(rule -> alert.equals(rule.get("alert")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no alert " + alert));
    }

    /** Runs promtool in monitoring/prometheus/ and fails with its output unless it exits 0. */
    private static void promtool(String... args) throws Exception {
        Path promtool = onPath("promtool");
        if (!"true".equals(System.getenv("CI"))) {
            assumeTrue(
                    promtool != null,
                    "promtool not found: install Debian's prometheus package (apt-get install"
                            + " prometheus), as .ci/run does, to test the alerting rules");
        }
        assertThat(promtool).as("promtool on the PATH (CI=true)").isNotNull();
        List<String> command = new ArrayList<>(List.of(promtool.toString()));
        command.addAll(List.of(args));
        Process process =
                new ProcessBuilder(command)
                        .directory(RULES.getParent().toFile())
                        .redirectErrorStream(true)
                        .start();
        String output;
        try (var in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("promtool ended").isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + "\n" + output).isZero();
    }

    private static Path onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path candidate = Path.of(dir, program);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object yaml) {
        assertThat(yaml).isInstanceOf(Map.class);
        return (Map<String, Object>) yaml;
    }
}
