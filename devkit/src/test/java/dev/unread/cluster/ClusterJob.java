package dev.unread.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.testing.JobHarness;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Observed;
import dev.unread.testing.Oracle;
import dev.unread.testing.Poll;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The job on a {@link FlinkCluster}, driven as an operator drives it: the shaded jar the build
 * wrote, submitted, stopped and resubmitted with Flink's CLI, watched through the REST API, and the
 * TaskManager's JVM looked into with {@code jcmd}.
 */
final class ClusterJob {

    /** Long enough for a loaded 2-core machine to schedule, restore and run the job. */
    static final Duration TIMEOUT = Duration.ofMinutes(3);

    private static final Path ROOT = FlinkConf.findDir().getParent();
    private static final Pattern SUBMITTED =
            Pattern.compile("Job has been submitted with JobID ([0-9a-f]{32})");
    private static final Pattern SAVEPOINT = Pattern.compile("Savepoint completed\\. Path: (\\S+)");

    /** An argument bash passes on as it is written. */
    private static final Pattern SHELL_WORD = Pattern.compile("[\\w./:=,@%+$-]+");

    private ClusterJob() {}

    /** The Flink lib folder the build wrote, standing in for a distribution's lib/. */
    static Path lib() {
        return ROOT.resolve("devkit/target/flink-cluster/lib");
    }

    /** The shaded job jar of the package phase (failsafe runs after it). */
    static Path jar() throws IOException {
        try (Stream<Path> files = Files.list(ROOT.resolve("job/target"))) {
            // The shaded jar, not the test-jar beside it.
            return files.filter(
                            p ->
                                    p.getFileName().toString().matches("unread-job-.*\\.jar")
                                            && !p.getFileName().toString().endsWith("-tests.jar"))
                    .findFirst()
                    .orElseThrow(
                            () ->
                                    new IllegalStateException(
                                            "no shaded job jar in job/target; run `mvn package` first"));
        }
    }

    /** The job's flags for {@code config}, as an operator appends them to {@code flink run}. */
    static List<String> args(UnreadConfig config) {
        return List.of(
                "--kafka-bootstrap", config.kafkaBootstrap,
                "--messages-topic", config.messagesTopic,
                "--reads-topic", config.readsTopic,
                "--conversations-topic", config.conversationsTopic,
                "--dead-letter-topic", config.deadLetterTopic,
                "--group-id", config.groupId,
                "--redis-key-prefix", config.redisKeyPrefix,
                "--jdbc-url", config.jdbcUrl,
                "--flush-interval-ms", String.valueOf(config.flushIntervalMs),
                "--checkpoint-interval-ms", String.valueOf(config.checkpointIntervalMs));
    }

    /**
     * The arguments of {@code flink run -d [-s SAVEPOINT] [-p N] JAR FLAGS}. {@code savepoint}
     * null: empty state; {@code parallelism} 0: the cluster's default. docs/operations.md shows
     * them ({@link ClusterDocTest}).
     */
    static List<String> runCommand(
            String jar, UnreadConfig config, String savepoint, int parallelism) {
        List<String> command = new ArrayList<>(List.of("run", "-d"));
        if (savepoint != null) {
            command.addAll(List.of("-s", savepoint));
        }
        if (parallelism > 0) {
            command.addAll(List.of("-p", String.valueOf(parallelism)));
        }
        command.add(jar);
        command.addAll(args(config));
        return command;
    }

    /** The arguments of {@code flink stop --savepointPath DIR JOB}. */
    static List<String> stopCommand(String savepointDir, String job) {
        return List.of("stop", "--savepointPath", savepointDir, job);
    }

    /** The arguments of {@code flink list -r}: the running jobs. */
    static List<String> listCommand() {
        return List.of("list", "-r");
    }

    /** The arguments of {@code flink cancel JOB}. */
    static List<String> cancelCommand(String job) {
        return List.of("cancel", job);
    }

    /**
     * {@code args} as docs/operations.md writes a command for bash: {@code flink}, its options and
     * the jar on one line, then each of the job's flags and its value on a line of its own; an
     * empty value or one with characters the shell would take apart in single quotes ({@code $}
     * left alone, for a variable such as {@code $JOB}).
     */
    static String shown(List<String> args) {
        StringBuilder line = new StringBuilder("flink");
        for (String arg : args) {
            boolean jobFlag =
                    arg.startsWith("--") && UnreadConfig.defaults().containsKey(arg.substring(2));
            line.append(jobFlag ? " \\\n    " : " ")
                    .append(SHELL_WORD.matcher(arg).matches() ? arg : "'" + arg + "'");
        }
        return line.toString();
    }

    /** Runs {@code flink ARGS} against {@code cluster}; returns what it printed. */
    static String flink(FlinkCluster cluster, List<String> args) throws Exception {
        return cluster.flinkOrFail(Map.of(), args.toArray(String[]::new));
    }

    /** {@link #runCommand} with the jar the build wrote; returns the job's id. */
    static String run(FlinkCluster cluster, UnreadConfig config, String savepoint, int parallelism)
            throws Exception {
        String output =
                flink(cluster, runCommand(jar().toString(), config, savepoint, parallelism));
        return find(SUBMITTED, output, "a job id");
    }

    /**
     * {@link #stopCommand} into the cluster's savepoint directory; returns the savepoint's path.
     */
    static String stop(FlinkCluster cluster, String job) throws Exception {
        String savepoints = cluster.config().getString("execution.checkpointing.savepoint-dir", "");
        return find(SAVEPOINT, flink(cluster, stopCommand(savepoints, job)), "a savepoint path");
    }

    /** Waits until the job and every one of its vertices run; fails if the job ends first. */
    static void awaitRunning(FlinkCluster cluster, String job) throws Exception {
        Poll.until(
                "job " + job + " and all its tasks RUNNING",
                TIMEOUT,
                () -> {
                    JsonNode details;
                    try {
                        details = cluster.rest().get("/jobs/" + job);
                    } catch (IOException e) {
                        // A JobManager that has just taken over may not know the job yet.
                        return null;
                    }
                    String state = details.path("state").asText();
                    if (List.of("FAILED", "CANCELED", "FINISHED").contains(state)) {
                        throw new AssertionError("job " + job + " ended: " + state);
                    }
                    if (!state.equals("RUNNING") || details.path("vertices").isEmpty()) {
                        return null;
                    }
                    for (JsonNode vertex : details.path("vertices")) {
                        if (!vertex.path("status").asText().equals("RUNNING")) {
                            return null;
                        }
                    }
                    return true;
                });
    }

    /** Waits until the job has completed more than {@code than} checkpoints; returns how many. */
    static long awaitCheckpointsAfter(FlinkCluster cluster, String job, long than)
            throws Exception {
        return Poll.until(
                "job " + job + ": more than " + than + " checkpoints",
                TIMEOUT,
                () -> {
                    try {
                        long completed =
                                cluster.rest()
                                        .get("/jobs/" + job + "/checkpoints")
                                        .path("counts")
                                        .path("completed")
                                        .asLong();
                        return completed > than ? completed : null;
                    } catch (IOException e) {
                        return null;
                    }
                });
    }

    /**
     * Waits until Redis and MySQL equal the oracle of every event {@code published} so far: the
     * counts depend only on the set of events, so runs with their own traffic add up. Not for the
     * job's committed offsets first: its Kafka source commits them from the fetcher's thread, which
     * sits in a 10 s poll once a topic is drained, so each wait took ~10 s more for offsets no step
     * needs (a stop takes a savepoint, and a restore replays what came after the last checkpoint).
     */
    static void awaitAgreement(
            List<JobHarness.Traffic> published, String prefix, MySqlTestDatabase db, String context)
            throws Exception {
        List<ChatEvent> events = new ArrayList<>();
        List<ConversationEvent> conversations = new ArrayList<>();
        for (JobHarness.Traffic traffic : published) {
            events.addAll(traffic.events());
            conversations.addAll(traffic.conversations());
        }
        Observed.awaitAgreement(
                Oracle.of(events, conversations),
                prefix,
                db,
                TIMEOUT,
                context + ", after " + published.get(published.size() - 1).describe());
    }

    /** {@code jcmd PID COMMAND}'s output. */
    static String jcmd(long pid, String... command) throws Exception {
        List<String> line =
                new ArrayList<>(
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                                String.valueOf(pid)));
        line.addAll(List.of(command));
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException("jcmd " + String.join(" ", line) + ":\n" + output);
        }
        return output;
    }

    private static String find(Pattern pattern, String output, String what) {
        Matcher m = pattern.matcher(output);
        if (!m.find()) {
            throw new AssertionError("no " + what + " in the CLI's output:\n" + output);
        }
        return m.group(1);
    }
}
