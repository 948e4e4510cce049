package dev.unread.minicluster;

import dev.unread.UnreadJob;
import dev.unread.config.FlinkConf;
import dev.unread.config.JobSettings;
import dev.unread.config.UnreadConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.executiongraph.ErrorInfo;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.util.ExceptionUtils;

/**
 * A Flink MiniCluster in this process, set up the way the job runs in production (RocksDB,
 * incremental checkpoints, the job's own settings), listening on 127.0.0.1 only: what {@code unread
 * local} and {@code unread bench} run the job on.
 */
public final class LocalCluster {

    public static final String HOST = "127.0.0.1";

    private static final int FREE_PORT_ATTEMPTS = 5;

    private LocalCluster() {}

    /**
     * Starts a cluster with one TaskManager of {@code parallelism} slots; its web UI and REST API
     * on {@code uiPort} (0: any free port), its checkpoints, savepoints and RocksDB files under
     * {@code dataDir}; the counters the kit reads kept by {@link InProcessMetrics}.
     */
    public static MiniCluster start(UnreadConfig config, int uiPort, Path dataDir, int parallelism)
            throws Exception {
        return start(config, uiPort, dataDir, parallelism, UnreadJob.COUNTER_NAME);
    }

    /** The same, counting the input of the operator named {@code countedOperator}. */
    public static MiniCluster start(
            UnreadConfig config, int uiPort, Path dataDir, int parallelism, String countedOperator)
            throws Exception {
        if (uiPort != 0) {
            return start(config, () -> uiPort, 1, dataDir, parallelism, countedOperator);
        }
        return start(
                config,
                LocalCluster::freePort,
                FREE_PORT_ATTEMPTS,
                dataDir,
                parallelism,
                countedOperator);
    }

    /**
     * The UI's port is chosen before the start (its answers name its own origin), so another socket
     * of this machine may take it in between: an outgoing connection gets its port from the same
     * range. A start that fails to bind tries the next port {@code ports} gives.
     */
    static MiniCluster start(
            UnreadConfig config,
            IntSupplier ports,
            int attempts,
            Path dataDir,
            int parallelism,
            String countedOperator)
            throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOn(ports.getAsInt(), config, dataDir, parallelism, countedOperator);
            } catch (Exception e) {
                if (attempt >= attempts
                        || !ExceptionUtils.findThrowable(e, BindException.class).isPresent()) {
                    throw e;
                }
            }
        }
    }

    private static MiniCluster startOn(
            int uiPort, UnreadConfig config, Path dataDir, int parallelism, String countedOperator)
            throws Exception {
        Configuration conf = clusterConfig(config, uiPort, dataDir, parallelism);
        String reporter = "metrics.reporter.in-process.";
        conf.setString(reporter + "factory.class", InProcessMetrics.Factory.class.getName());
        conf.setString(reporter + InProcessMetrics.OPERATOR_OPTION, countedOperator);
        InProcessMetrics.reset();
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(conf)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(parallelism)
                                .build());
        try {
            cluster.start();
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /**
     * Submits {@code job} at {@code parallelism}, restored from {@code savepoint} (null: empty
     * state), and returns its id without waiting for it to run.
     */
    public static JobID submit(
            MiniCluster cluster,
            UnreadJob job,
            UnreadConfig config,
            int parallelism,
            String savepoint)
            throws Exception {
        return submit(cluster, job::build, config, parallelism, savepoint);
    }

    /** The same for any pipeline {@code build} adds to the environment it is given. */
    public static JobID submit(
            MiniCluster cluster,
            Consumer<StreamExecutionEnvironment> build,
            UnreadConfig config,
            int parallelism,
            String savepoint)
            throws Exception {
        StreamExecutionEnvironment env =
                new StreamExecutionEnvironment(jobConfig(config, parallelism));
        build.accept(env);
        StreamGraph graph = env.getStreamGraph();
        graph.setJobName("unread");
        JobGraph jobGraph = graph.getJobGraph();
        if (savepoint != null) {
            jobGraph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint));
        }
        cluster.submitJob(jobGraph).get();
        return jobGraph.getJobID();
    }

    /**
     * True once the job and every one of its tasks run. Throws when the job has failed or ended,
     * the message naming {@code when} ("while starting"), the cause the job's failure.
     */
    public static boolean allRunning(MiniCluster cluster, JobID job, String when) throws Exception {
        AccessExecutionGraph graph = cluster.getExecutionGraph(job).get();
        ErrorInfo failure = graph.getFailureInfo();
        if (failure != null) {
            throw new IllegalStateException("the job failed " + when, failure.getException());
        }
        if (graph.getState().isGloballyTerminalState()) {
            throw new IllegalStateException("the job ended " + when + ": " + graph.getState());
        }
        if (graph.getState() != JobStatus.RUNNING) {
            return false;
        }
        boolean any = false;
        for (AccessExecutionVertex vertex : graph.getAllExecutionVertices()) {
            if (vertex.getExecutionState() != ExecutionState.RUNNING) {
                return false;
            }
            any = true;
        }
        return any;
    }

    /** Cancels the job unless it has ended, and waits until its tasks have closed. */
    public static void cancel(MiniCluster cluster, JobID job, Duration timeout) throws Exception {
        if (cluster.getJobStatus(job)
                .get(timeout.toSeconds(), TimeUnit.SECONDS)
                .isGloballyTerminalState()) {
            return;
        }
        cluster.cancelJob(job).get(timeout.toSeconds(), TimeUnit.SECONDS);
        // Cancelling returns at once; the tasks close their Kafka clients and sinks after it.
        cluster.requestJobResult(job).get(timeout.toSeconds(), TimeUnit.SECONDS);
    }

    private static Configuration clusterConfig(
            UnreadConfig config, int uiPort, Path dataDir, int parallelism) {
        Configuration conf = jobConfig(config, parallelism);
        // Nothing of the cluster is reachable from elsewhere: the UI, RPC and blob server bind
        // to the loopback address.
        conf.set(RestOptions.ADDRESS, HOST);
        conf.set(RestOptions.BIND_ADDRESS, HOST);
        conf.set(RestOptions.PORT, uiPort);
        // This process holds the API's token and secrets and the database password: no page
        // of another site may run a jar in it through the UI.
        conf.addAll(Configuration.fromMap(FlinkConf.webUi(FlinkConf.uiOrigin(HOST, uiPort))));
        conf.set(JobManagerOptions.ADDRESS, HOST);
        conf.set(JobManagerOptions.BIND_HOST, HOST);
        conf.set(TaskManagerOptions.HOST, HOST);
        conf.set(TaskManagerOptions.BIND_HOST, HOST);
        conf.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                dataDir.resolve("checkpoints").toUri().toString());
        conf.set(
                CheckpointingOptions.SAVEPOINT_DIRECTORY,
                dataDir.resolve("savepoints").toUri().toString());
        // In-flight data sized to what the tasks drain in a second, not to a fixed count of
        // buffers: barriers and records queue behind less of it.
        conf.set(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, true);
        // RocksDB's working files: a short path, since RocksDB refuses long ones.
        conf.set(CoreOptions.TMP_DIRS, dataDir.resolve("tmp").toString());
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, deployedManagedMemory());
        return conf;
    }

    /**
     * The managed memory of one TaskManager of the repository's {@code flink-conf/config.yaml}, as
     * Flink derives it from the process size there; it holds RocksDB's block cache and write
     * buffers. A MiniCluster's own default is 128 MB, a fifth of that, and the job measured on it
     * read cold what a deployed TaskManager holds in its cache: the channel of 100,000 members took
     * 1.27× the CPU for 0.80× the rate on 128 MB that it takes on the deployed size
     * (docs/benchmarks.md, "The bench's managed memory").
     */
    private static MemorySize deployedManagedMemory() {
        Path classes;
        try {
            classes =
                    Path.of(
                            LocalCluster.class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("where LocalCluster was loaded from", e);
        }
        Configuration deployed = FlinkConf.load(FlinkConf.findDir(classes), Map.of());
        return TaskExecutorProcessUtils.processSpecFromConfig(deployed).getManagedMemorySize();
    }

    /** A port on the loopback address that nothing listens on now. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Configuration jobConfig(UnreadConfig config, int parallelism) {
        Configuration conf = JobSettings.of(config);
        conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
        return conf;
    }
}
