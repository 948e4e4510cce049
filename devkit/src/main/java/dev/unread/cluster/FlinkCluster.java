package dev.unread.cluster;

import dev.unread.config.FlinkConf;
import dev.unread.minicluster.FlinkRest;
import dev.unread.minicluster.LocalCluster;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.configuration.ConfigConstants;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ConfigurationUtils;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;

/**
 * A Flink standalone session cluster on this machine as Flink's own scripts start one, each process
 * its own JVM: a JobManager ({@code StandaloneSessionClusterEntrypoint}), TaskManagers ({@code
 * TaskManagerRunner}) and Flink's CLI ({@code CliFrontend}, what {@code bin/flink} runs), on a lib
 * folder of Maven Central jars in place of a Flink distribution, plus the web UI's guard as the
 * project's image has it ({@code devkit/target/flink-cluster/lib}, written by the build). Memory
 * flags come from Flink's {@code BashJavaUtils}, as in {@code bin/jobmanager.sh}, and the
 * configuration is the project's {@code flink-conf/config.yaml} with this machine's addresses,
 * ports and paths: the cluster the job meets in production, for the cluster tests ({@code
 * FlinkClusterITCase}, {@code FlinkClusterLeakITCase}).
 */
public final class FlinkCluster implements AutoCloseable {

    static final String HOST = LocalCluster.HOST;

    private static final String JOB_MANAGER =
            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
    private static final String TASK_MANAGER =
            "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
    private static final String CLI = "org.apache.flink.client.cli.CliFrontend";
    private static final String BASH_JAVA_UTILS =
            "org.apache.flink.runtime.util.bash.BashJavaUtils";

    /** How BashJavaUtils marks its answer lines among whatever else it prints. */
    private static final String RESULT_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";

    private static final String LOG4J_SOURCE = "log4j-console.properties";
    private static final String LOG4J = "log4j.properties";
    private static final String LOG4J_CLI = "log4j-cli.properties";

    /** A cold JVM on a busy 2-core machine takes a while to bring up Flink. */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

    private static final Duration CLI_TIMEOUT = Duration.ofMinutes(3);

    /** One JobManager or TaskManager process. */
    public record Node(String name, Process process, Path log) {
        public long pid() {
            return process.pid();
        }
    }

    /** What one Flink CLI command printed, stdout and stderr together, and its exit status. */
    public record CliResult(List<String> command, int exitCode, String output) {}

    private final Path lib;
    private final Path conf;
    private final Path logs;
    private final Configuration config;
    private final URI rest;
    private final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    private final List<Node> nodes = new ArrayList<>();
    private int started;

    private FlinkCluster(Path lib, Path conf, Path logs, Configuration config) {
        this.lib = lib;
        this.conf = conf;
        this.logs = logs;
        this.config = config;
        this.rest = URI.create("http://" + HOST + ":" + config.get(RestOptions.PORT));
    }

    /**
     * Writes the configuration directory of a cluster under {@code dir} ({@code dir/conf}; logs in
     * {@code dir/log}, checkpoints, savepoints and RocksDB files in {@code dir/data}): {@code
     * projectConf}'s config.yaml with every address on the loopback interface, free ports for the
     * JobManager's RPC and REST endpoints (fixed, so a JobManager started after one died is found
     * at the same address), the web UI's answers allowing that REST endpoint's own origin only, no
     * metrics reporter (its fixed port would clash between processes on one machine) and then
     * {@code overrides}. Starts nothing.
     */
    public static FlinkCluster configure(
            Path lib, Path projectConf, Path dir, Map<String, String> overrides)
            throws IOException {
        if (!Files.isDirectory(lib)) {
            throw new IllegalArgumentException(
                    "no Flink lib folder at " + lib + "; `mvn -DskipTests package` writes it");
        }
        Path data = dir.resolve("data");
        Map<String, String> local = new LinkedHashMap<>(FlinkConf.localPaths(data));
        local.put(JobManagerOptions.ADDRESS.key(), HOST);
        local.put(JobManagerOptions.BIND_HOST.key(), HOST);
        local.put(JobManagerOptions.PORT.key(), String.valueOf(LocalCluster.freePort()));
        local.put(RestOptions.ADDRESS.key(), HOST);
        local.put(RestOptions.BIND_ADDRESS.key(), HOST);
        int restPort = LocalCluster.freePort();
        local.put(RestOptions.PORT.key(), String.valueOf(restPort));
        // config.yaml's web UI settings, with this UI's own origin for the one they allow.
        local.put(WebOptions.ACCESS_CONTROL_ALLOW_ORIGIN.key(), FlinkConf.uiOrigin(HOST, restPort));
        local.put(TaskManagerOptions.HOST.key(), HOST);
        local.put(TaskManagerOptions.BIND_HOST.key(), HOST);
        // RocksDB refuses long instance paths: callers keep dir short.
        local.put(CoreOptions.TMP_DIRS.key(), data.resolve("tmp").toString());
        local.putAll(overrides);
        Configuration config = FlinkConf.load(projectConf, local);
        config.removeConfig(MetricOptions.REPORTERS_LIST);
        for (String key : config.keySet()) {
            if (key.startsWith(ConfigConstants.METRICS_REPORTER_PREFIX)) {
                config.removeKey(key);
            }
        }

        Path conf = Files.createDirectories(dir.resolve("conf"));
        Path logs = Files.createDirectories(dir.resolve("log"));
        Files.createDirectories(data.resolve("tmp"));
        Files.write(
                conf.resolve(FlinkConf.FILE_NAME),
                ConfigurationUtils.convertConfigToWritableLines(config, true),
                StandardCharsets.UTF_8);
        Files.copy(projectConf.resolve(LOG4J_SOURCE), conf.resolve(LOG4J));
        // The CLI logs to its file only, so that its output is what it prints for the operator.
        Files.writeString(
                conf.resolve(LOG4J_CLI),
                String.join(
                        "\n",
                        "rootLogger.level = INFO",
                        "rootLogger.appenderRef.file.ref = FileAppender",
                        "appender.file.name = FileAppender",
                        "appender.file.type = File",
                        "appender.file.append = true",
                        "appender.file.fileName = ${sys:log.file}",
                        "appender.file.layout.type = PatternLayout",
                        "appender.file.layout.pattern = %d %-5p %-60c %x - %m%n",
                        ""));
        return new FlinkCluster(lib, conf, logs, config);
    }

    /** The cluster's configuration as its processes read it. */
    public Configuration config() {
        return config;
    }

    public Path confDir() {
        return conf;
    }

    /** The JobManager's REST API and web UI. */
    public URI restUri() {
        return rest;
    }

    public FlinkRest rest() {
        return new FlinkRest(rest);
    }

    /** Starts a JobManager and returns once its REST API answers. */
    public Node startJobManager() throws Exception {
        Node node =
                start(
                        "jobmanager",
                        JOB_MANAGER,
                        "GET_JM_RESOURCE_PARAMS",
                        CoreOptions.FLINK_JM_JVM_OPTIONS.key());
        FlinkRest api = rest();
        await(
                node,
                "the JobManager's REST API at " + rest,
                () -> {
                    try {
                        api.get("/overview");
                        return true;
                    } catch (IOException e) {
                        return false;
                    }
                });
        return node;
    }

    /** Starts a TaskManager; it registers with the JobManager by itself. */
    public Node startTaskManager() throws Exception {
        return start(
                "taskmanager",
                TASK_MANAGER,
                "GET_TM_RESOURCE_PARAMS",
                CoreOptions.FLINK_TM_JVM_OPTIONS.key());
    }

    /** Waits until exactly {@code count} TaskManagers are registered with the JobManager. */
    public void awaitTaskManagers(int count) throws Exception {
        FlinkRest api = rest();
        await(
                null,
                count + " TaskManagers registered",
                () -> {
                    try {
                        return api.get("/overview").path("taskmanagers").asInt() == count;
                    } catch (IOException e) {
                        return false;
                    }
                });
    }

    /** Kills {@code node} as {@code kill -9} does: no shutdown hook, no goodbye to anyone. */
    public void kill(Node node) throws InterruptedException {
        node.process().destroyForcibly();
        node.process().waitFor();
    }

    /**
     * Runs Flink's CLI ({@code flink ARGS}) against this cluster with {@code env} added to its
     * environment (the job reads its {@code UNREAD_*} settings from there) and returns what it
     * printed; fails when it does not end within a few minutes.
     */
    public CliResult flink(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(javaOptions(null));
        command.add("-Dlog.file=" + logs.resolve("client.log"));
        command.add("-Dlog4j.configurationFile=" + conf.resolve(LOG4J_CLI).toUri());
        command.addAll(List.of("-cp", classpath(), CLI));
        command.addAll(Arrays.asList(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put(ConfigConstants.ENV_FLINK_CONF_DIR, conf.toString());
        builder.environment().putAll(env);
        Process process = builder.start();
        // A job's client output is small; read it whole once the command ends.
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(CLI_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(
                    "flink " + String.join(" ", args) + " did not end within " + CLI_TIMEOUT);
        }
        return new CliResult(
                List.of(args), process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    /** {@link #flink}, failing with its output unless it exits with 0. */
    public String flinkOrFail(Map<String, String> env, String... args) throws Exception {
        CliResult result = flink(env, args);
        if (result.exitCode() != 0) {
            throw new IllegalStateException(
                    "flink "
                            + String.join(" ", args)
                            + " exited with "
                            + result.exitCode()
                            + ":\n"
                            + result.output());
        }
        return result.output();
    }

    /** Kills every process this cluster started that is still alive. */
    @Override
    public void close() throws InterruptedException {
        for (Node node : nodes) {
            if (node.process().isAlive()) {
                kill(node);
            }
        }
    }

    private Node start(String name, String mainClass, String resources, String roleOptions)
            throws Exception {
        List<String> memory = bashJavaUtils(resources);
        Path log = logs.resolve(name + "-" + (++started) + ".log");
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(split(memory.get(0)));
        command.addAll(javaOptions(roleOptions));
        command.add("-Dlog.file=" + log);
        command.add("-Dlog4j.configurationFile=" + conf.resolve(LOG4J).toUri());
        command.addAll(List.of("-cp", classpath(), mainClass, "--configDir", conf.toString()));
        command.addAll(split(memory.get(1)));
        Process process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(logs.resolve(name + "-" + started + ".out").toFile())
                        .start();
        Node node = new Node(name, process, log);
        nodes.add(node);
        return node;
    }

    /**
     * What Flink's scripts ask BashJavaUtils for: the JVM's memory flags ({@code -Xmx}, {@code
     * -XX:MaxMetaspaceSize}, ...) and the memory sizes derived from the configuration as {@code -D}
     * properties for the process, two lines.
     */
    private List<String> bashJavaUtils(String command) throws Exception {
        Process process =
                new ProcessBuilder(
                                java,
                                "-cp",
                                classpath(),
                                BASH_JAVA_UTILS,
                                command,
                                "--configDir",
                                conf.toString())
                        .redirectErrorStream(true)
                        .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        List<String> results =
                output.lines()
                        .filter(line -> line.startsWith(RESULT_PREFIX))
                        .map(line -> line.substring(RESULT_PREFIX.length()))
                        .toList();
        if (process.exitValue() != 0 || results.size() < 2) {
            throw new IllegalStateException("BashJavaUtils " + command + " failed:\n" + output);
        }
        return results.subList(results.size() - 2, results.size());
    }

    /** {@code env.java.opts.all} (Java 17's module flags) and the role's own options. */
    private List<String> javaOptions(String roleOptions) {
        List<String> options =
                new ArrayList<>(split(config.getString(CoreOptions.FLINK_JVM_OPTIONS.key(), "")));
        if (roleOptions != null) {
            options.addAll(split(config.getString(roleOptions, "")));
        }
        return options;
    }

    private String classpath() {
        return lib.toAbsolutePath() + "/*";
    }

    private void await(Node node, String what, Callable<Boolean> done) throws Exception {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!done.call()) {
            if (node != null && !node.process().isAlive()) {
                throw new IllegalStateException(
                        node.name()
                                + " exited with "
                                + node.process().exitValue()
                                + " before "
                                + what
                                + "; see "
                                + node.log()
                                + " and its .out");
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        "not within " + START_TIMEOUT + ": " + what + "; logs in " + logs);
            }
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    private static List<String> split(String options) {
        return options.isBlank() ? List.of() : Arrays.asList(options.trim().split("\\s+"));
    }
}
