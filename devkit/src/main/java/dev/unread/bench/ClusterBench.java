package dev.unread.bench;

import dev.unread.config.UnreadConfig;
import dev.unread.kafka.EmbeddedKafka;
import dev.unread.local.LocalRedisCluster;
import java.nio.file.Path;

/**
 * The job on a real Redis Cluster beside the single node (issue 16): a {@link LocalRedisCluster}
 * (three primaries, three replicas on loopback), the job reading the full workload's records again
 * with a consumer group and keys of its own, its figures set beside those of the single-node run on
 * the same records.
 */
final class ClusterBench {

    /**
     * @param single the job on one Redis node
     * @param cluster the same records, the job on the cluster
     * @param primaries primaries the cluster's slots are spread over
     */
    record Result(Bench.JobFigures single, Bench.JobFigures cluster, int primaries) {}

    private ClusterBench() {}

    static Result run(Bench bench, EmbeddedKafka kafka, Bench.JobFigures single, Path dataDir)
            throws Exception {
        bench.say("starting a Redis Cluster of three primaries and three replicas");
        try (LocalRedisCluster redis = LocalRedisCluster.start()) {
            UnreadConfig config = bench.config(kafka, "full", "full-cluster", redis.settings());
            Bench.Traffic t = single.traffic();
            Bench.JobFigures cluster =
                    bench.runJob(
                            config,
                            new Bench.Traffic(
                                    t.name() + " on a Redis Cluster",
                                    t.workload(),
                                    t.records(),
                                    t.messages(),
                                    t.redundantMessages(),
                                    t.inboxOpens(),
                                    t.conversationReads(),
                                    t.malformed()),
                            dataDir);
            return new Result(single, cluster, redis.primaries().size());
        }
    }
}
