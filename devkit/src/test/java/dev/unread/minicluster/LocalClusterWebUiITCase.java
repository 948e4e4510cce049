package dev.unread.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.kafka.TempDirs;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;

/**
 * The web UI of {@code bin/unread local}'s MiniCluster, which runs in the process that holds the
 * API token, the JWT secret and the database password: a page of another site may neither upload
 * nor run a jar through it, nor submit a job, nor read its answers.
 */
class LocalClusterWebUiITCase {

    @Test
    void aPageOfAnotherSiteCannotUploadAJarNorReadTheAnswers() throws Exception {
        Path dir = TempDirs.create("lcw");
        try (MiniCluster cluster = LocalCluster.start(UnreadConfig.with(Map.of()), 0, dir, 1)) {
            WebUiProbe.assertLockedDown(cluster.getRestAddress().get());
        } finally {
            TempDirs.delete(dir);
        }
    }

    /**
     * Nor submit a job graph as {@code flink run} does, nor read the UI under a DNS name rebound to
     * 127.0.0.1; the UI's own page and a client that names no origin still reach it.
     */
    @Test
    void aPageOfAnotherSiteCannotSubmitAJobGraphNorReachItThroughARebindName() throws Exception {
        Path dir = TempDirs.create("lcj");
        try (MiniCluster cluster = LocalCluster.start(UnreadConfig.with(Map.of()), 0, dir, 1)) {
            URI rest = cluster.getRestAddress().get();
            WebUiProbe.Answer job = WebUiProbe.jobFromForeignPage(rest);
            int rebound = WebUiProbe.statusForRebound(rest, "rebound.example");
            System.out.printf(
                    "LocalClusterWebUiITCase: a job graph from %s answered %d (%s); /config for"
                            + " a rebound name answered %d%n",
                    WebUiProbe.FOREIGN_ORIGIN, job.status(), job.body(), rebound);
            assertThat(job.status()).as(job.body()).isEqualTo(403);
            assertThat(cluster.listJobs().get()).isEmpty();
            assertThat(rebound).isEqualTo(403);
            assertThat(WebUiProbe.statusForRebound(rest, "localhost")).isEqualTo(200);
            assertThat(WebUiProbe.statusForRebound(rest, rest.getHost())).isEqualTo(200);
        } finally {
            TempDirs.delete(dir);
        }
    }
}
