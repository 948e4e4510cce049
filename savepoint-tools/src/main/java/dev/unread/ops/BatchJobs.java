package dev.unread.ops;

import java.util.stream.Stream;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.client.ClientUtils;
import org.apache.flink.client.deployment.executors.PipelineExecutorUtils;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.MiniClusterJobClient;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * The batch environment the savepoint tools run their jobs in: the context's when the tool runs
 * inside a Flink client or test, otherwise a cluster in this JVM that lives until {@link #close}.
 *
 * <p>Flink's own local environment starts a cluster per job and shuts it down the moment the job
 * ends, while {@code executeAndCollect}'s iterator still asks that cluster for the job's status: it
 * logged an {@code IllegalStateException} ("MiniCluster is not yet running or has already been shut
 * down") with its stack trace for every savepoint read, though the results were whole. Here the
 * iterator is read and closed first, the cluster closed after it.
 *
 * <p>Unlike the job, the environment allows generic types: the State Processor API moves its own
 * internal records with Kryo. The state itself is read and written with UnreadCounter's
 * descriptors, whose types are POJOs either way.
 */
final class BatchJobs implements AutoCloseable {

    private static final String EXECUTOR = "unread-batch-jobs";

    private static final String LOOPBACK = "127.0.0.1";

    private final Configuration conf;

    /** Null when the context's environment runs the jobs. */
    private final MiniCluster cluster;

    private final PipelineExecutorServiceLoader executors;

    private BatchJobs(Configuration conf, MiniCluster cluster) {
        this.conf = conf;
        this.cluster = cluster;
        this.executors = cluster == null ? null : onCluster(cluster);
    }

    static BatchJobs start() throws Exception {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        if (!(StreamExecutionEnvironment.getExecutionEnvironment(conf)
                instanceof LocalStreamEnvironment)) {
            return new BatchJobs(conf, null);
        }
        // As many slots as Flink's local environment would give: one per core.
        int slots = Runtime.getRuntime().availableProcessors();
        Configuration clusterConf = new Configuration(conf);
        clusterConf.set(RestOptions.ADDRESS, LOOPBACK);
        clusterConf.set(RestOptions.BIND_ADDRESS, LOOPBACK);
        clusterConf.set(RestOptions.BIND_PORT, "0");
        clusterConf.set(JobManagerOptions.ADDRESS, LOOPBACK);
        clusterConf.set(JobManagerOptions.BIND_HOST, LOOPBACK);
        clusterConf.set(TaskManagerOptions.HOST, LOOPBACK);
        clusterConf.set(TaskManagerOptions.BIND_HOST, LOOPBACK);
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(clusterConf)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(slots)
                                .build());
        cluster.start();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, slots);
        conf.set(DeploymentOptions.TARGET, EXECUTOR);
        // execute() waits for the job's end, as in Flink's local environment.
        conf.set(DeploymentOptions.ATTACHED, true);
        return new BatchJobs(conf, cluster);
    }

    /** A new environment for one job, on this cluster or the context's. */
    StreamExecutionEnvironment environment() {
        return cluster == null
                ? StreamExecutionEnvironment.getExecutionEnvironment(conf)
                : new StreamExecutionEnvironment(
                        executors, conf, Thread.currentThread().getContextClassLoader());
    }

    @Override
    public void close() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * Submits each job to {@code cluster} and hands back a client that leaves the cluster running
     * when the job ends, once the job has initialized (as Flink's per-job cluster does, so that the
     * collecting iterator's first request finds the job).
     */
    private static PipelineExecutorServiceLoader onCluster(MiniCluster cluster) {
        PipelineExecutor executor =
                (pipeline, configuration, classLoader) -> {
                    StreamGraph graph =
                            PipelineExecutorUtils.getStreamGraph(pipeline, configuration);
                    return cluster.submitJob(graph)
                            .thenApplyAsync(
                                    submitted -> {
                                        try {
                                            ClientUtils.waitUntilJobInitializationFinished(
                                                    () ->
                                                            cluster.getJobStatus(
                                                                            submitted.getJobID())
                                                                    .get(),
                                                    () ->
                                                            cluster.requestJobResult(
                                                                            submitted.getJobID())
                                                                    .get(),
                                                    classLoader);
                                        } catch (Exception e) {
                                            throw new IllegalStateException(
                                                    "the savepoint job did not start", e);
                                        }
                                        return (JobClient)
                                                new MiniClusterJobClient(
                                                        submitted.getJobID(),
                                                        cluster,
                                                        classLoader,
                                                        MiniClusterJobClient.JobFinalizationBehavior
                                                                .NOTHING);
                                    });
                };
        PipelineExecutorFactory factory =
                new PipelineExecutorFactory() {
                    @Override
                    public String getName() {
                        return EXECUTOR;
                    }

                    @Override
                    public boolean isCompatibleWith(Configuration configuration) {
                        return true;
                    }

                    @Override
                    public PipelineExecutor getExecutor(Configuration configuration) {
                        return executor;
                    }
                };
        return new PipelineExecutorServiceLoader() {
            @Override
            public PipelineExecutorFactory getExecutorFactory(Configuration configuration) {
                return factory;
            }

            @Override
            public Stream<String> getExecutorNames() {
                return Stream.of(EXECUTOR);
            }
        };
    }
}
