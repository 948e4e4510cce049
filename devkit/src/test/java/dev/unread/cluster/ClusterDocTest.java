package dev.unread.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/operations.md's section "Tested on a real cluster" shows the Flink CLI commands and the
 * high-availability settings {@link FlinkClusterITCase} runs with, built by the same code, so that
 * the runbook an operator follows is the one the suite tried. The doc fills in the values an
 * operator has where the suite has its own: the job's default settings, the stack's jar and
 * savepoint directory, shell variables for the job's id and the savepoint.
 */
class ClusterDocTest {

    private static final String JAR = "/opt/unread/unread-job.jar";
    private static final String SAVEPOINTS = "file:///flink-data/savepoints";
    private static final String JOB = "$JOB";
    private static final String SAVEPOINT = "$SAVEPOINT";

    private static final Path DOC = FlinkConf.findDir().getParent().resolve("docs/operations.md");

    @Test
    void theRunbookShowsTheCommandsTheSuiteRuns() throws IOException {
        String doc = Files.readString(DOC);
        UnreadConfig config = UnreadConfig.with(Map.of());

        assertThat(doc)
                .contains(ClusterJob.shown(ClusterJob.runCommand(JAR, config, null, 2)))
                .contains(ClusterJob.shown(ClusterJob.listCommand()))
                .contains(ClusterJob.shown(ClusterJob.stopCommand(SAVEPOINTS, JOB)))
                .contains(ClusterJob.shown(ClusterJob.runCommand(JAR, config, SAVEPOINT, 4)))
                .contains(ClusterJob.shown(ClusterJob.cancelCommand(JOB)));
    }

    @Test
    void theRunbookGivesTheHighAvailabilityAndHeartbeatSettingsTheSuiteUses() throws IOException {
        Map<String, String> settings =
                new LinkedHashMap<>(
                        FlinkClusterITCase.highAvailability(
                                "zk-1:2181,zk-2:2181,zk-3:2181", "s3://BUCKET/flink-ha"));
        settings.put("heartbeat.interval", FlinkClusterITCase.OVERRIDES.get("heartbeat.interval"));
        settings.put("heartbeat.timeout", FlinkClusterITCase.OVERRIDES.get("heartbeat.timeout"));

        StringBuilder yaml = new StringBuilder();
        settings.forEach((key, value) -> yaml.append(key).append(": ").append(value).append('\n'));
        assertThat(Files.readString(DOC)).contains("```yaml\n" + yaml + "```");
    }
}
