package dev.unread.bench;

import dev.unread.kafka.EmbeddedKafka;
import dev.unread.local.LocalRedisCluster;
import java.nio.file.Path;
import java.util.Map;

/**
 * The job on a real Redis Cluster beside the single node (issue 16): a {@link LocalRedisCluster}
 * (three primaries, three replicas on loopback), the job reading the full workload's records again
 * with a consumer group and keys of its own, its figures set beside those of the single-node run on
 * the same records.
 */
final class ClusterBench {

    /**
     * @param single the job on one Redis node, right before the cluster run
     * @param cluster the same records, the job on the cluster
     * @param primaries primaries the cluster's slots are spread over
     */
    record Result(JobFigures single, JobFigures cluster, int primaries) {}

    private ClusterBench() {}

    static Result run(Bench bench, EmbeddedKafka kafka, Traffic full, Path dataDir)
            throws Exception {
        bench.say("starting a Redis Cluster of three primaries and three replicas");
        try (LocalRedisCluster redis = LocalRedisCluster.start()) {
            JobFigures single =
                    bench.runJob(
                            bench.config(kafka, "full", "full-node", Map.of()),
                            full.named("full, one Redis node"),
                            dataDir.resolve("node"));
            JobFigures cluster =
                    bench.runJob(
                            bench.config(kafka, "full", "full-cluster", redis.settings()),
                            full.named("full, Redis Cluster"),
                            dataDir.resolve("cluster"));
            return new Result(single, cluster, redis.primaries().size());
        }
    }
}
