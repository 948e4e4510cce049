package dev.unread.cluster;

import dev.unread.config.FlinkConf;
import dev.unread.kafka.TempDirs;
import dev.unread.minicluster.WebUiProbe;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The web UI of a JobManager started on flink-conf/config.yaml, as docker-compose.yml's is: a page
 * of another site may neither upload nor run a jar through it, nor read its answers. The job's own
 * path, Flink's CLI ({@code flink run}, {@code flink stop}, {@code flink cancel}), is {@link
 * FlinkClusterITCase}'s.
 */
class FlinkClusterWebUiITCase {

    @Test
    void aPageOfAnotherSiteCannotUploadAJarNorReadTheAnswers() throws Exception {
        Path dir = TempDirs.create("fcw");
        try (FlinkCluster cluster =
                FlinkCluster.configure(
                        ClusterJob.lib(), FlinkConf.findDir(), dir, FlinkClusterITCase.OVERRIDES)) {
            cluster.startJobManager();
            WebUiProbe.assertLockedDown(cluster.restUri());
        } finally {
            TempDirs.delete(dir);
        }
    }
}
