package dev.unread.cluster;

import dev.unread.config.FlinkConf;
import dev.unread.kafka.TempDirs;
import dev.unread.minicluster.FlinkRest;
import dev.unread.minicluster.WebUiProbe;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The web UI of a JobManager started on flink-conf/config.yaml with the cluster's lib, as
 * docker-compose.yml's is: a page of another site may neither upload nor run a jar through it, nor
 * submit a job graph, nor read its answers, nor reach it under a DNS name rebound to its address.
 * The job's own path, Flink's CLI ({@code flink run}, {@code flink stop}, {@code flink cancel}), is
 * {@link FlinkClusterITCase}'s.
 */
class FlinkClusterWebUiITCase {

    @Test
    void aPageOfAnotherSiteCannotUploadAJarSubmitAJobGraphNorReadTheAnswers() throws Exception {
        Path dir = TempDirs.create("fcw");
        try (FlinkCluster cluster =
                FlinkCluster.configure(
                        ClusterJob.lib(), FlinkConf.findDir(), dir, FlinkClusterITCase.OVERRIDES)) {
            cluster.startJobManager();
            WebUiProbe.assertLockedDown(cluster.restUri());
            FlinkRest rest = cluster.rest();
            WebUiProbe.assertGuarded(
                    cluster.restUri(), () -> rest.get("/jobs/overview").path("jobs").size());
        } finally {
            TempDirs.delete(dir);
        }
    }
}
