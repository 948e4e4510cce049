package dev.unread.minicluster;

import dev.unread.config.UnreadConfig;
import dev.unread.kafka.TempDirs;
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
            WebUiProbe.assertGuarded(
                    cluster.getRestAddress().get(), () -> cluster.listJobs().get().size());
        } finally {
            TempDirs.delete(dir);
        }
    }
}
