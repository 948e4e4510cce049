package dev.unread.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import dev.unread.kafka.TempDirs;
import dev.unread.testing.BadRecords;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A session cluster lives for months while the job on it is stopped and resubmitted for every
 * upgrade and rescale. Each submission loads the job jar in a class loader of its own on the
 * TaskManager; when the job stops, Flink drops it, and it must then be collectable, or every
 * upgrade leaves its classes, threads and metaspace behind until the TaskManager runs out.
 *
 * <p>The job is submitted, fed, and stopped with a savepoint {@link #CYCLES} times on one
 * TaskManager process, each run restoring the last one's savepoint. After every stop, a full
 * garbage collection in the TaskManager ({@code jcmd GC.class_histogram}) must find no job class
 * loader alive and none of the job's threads running, and the TaskManager's live classes and thread
 * count after the last cycle must be those after the first: nothing grows with the number of
 * cycles. Each run counts its own records before it stops (channels among them, so that the code of
 * every sink and stage has run), and the counts equal the oracle of all of them at the end.
 */
class FlinkClusterLeakITCase {

    /**
     * A leaked loader shows after the first stop already, and one more per cycle; three cycles show
     * growth (docs/operations.md measured five, the fourth and fifth alike).
     */
    private static final int CYCLES = 3;

    /**
     * The class of every job's own class loader ({@code classloader.resolve-order: child-first}).
     */
    private static final String JOB_CLASS_LOADER = "org.apache.flink.util.ChildFirstClassLoader";

    /** Threads the job's libraries start that must end with the job. */
    private static final List<String> JOB_THREADS =
            List.of(
                    "mysql-cj-abandoned-connection-cleanup",
                    "commons-pool-evictor",
                    "kafka-producer-network-thread");

    /** After GC: what a leaked job class loader would hold is ~2,600 classes, well above this. */
    private static final long CLASS_SLACK = 500;

    /**
     * Flink's pools that start threads on demand up to a bound, whatever jobs run: the
     * TaskManager's I/O pool ({@code cluster.io-pool.size}) and Pekko's dispatchers, which also
     * retire idle threads. Measured, they alone move between cycles (64 to 69 threads in all), so
     * they are left out of the count; the rest stayed at 38 in every cycle.
     */
    private static final Pattern BOUNDED_POOL_THREAD =
            Pattern.compile("^flink-taskexecutor-io-thread-\\d+$|-dispatcher-\\d+$");

    /** A leak adds at least one thread per cycle, CYCLES - 1 after the first. */
    private static final int THREAD_SLACK = CYCLES - 2;

    private static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @Test
    void stoppingAndResubmittingTheJobLeavesNothingBehindOnTheTaskManager() throws Exception {
        long seed = JobHarness.seed("FlinkClusterLeakITCase");
        String context = JobHarness.context(seed);
        String prefix = JobHarness.prefix("leak", seed);
        Path dir = TempDirs.create("fcl");
        try (MySqlTestDatabase db = MySqlTestDatabase.create();
                FlinkCluster cluster =
                        FlinkCluster.configure(
                                ClusterJob.lib(),
                                FlinkConf.findDir(),
                                dir,
                                FlinkClusterITCase.OVERRIDES)) {
            Map<String, String> settings = JobHarness.settings(prefix, db.jdbcUrl());
            settings.put("checkpoint-interval-ms", "1000");
            UnreadConfig config = KAFKA.freshTopics(settings);
            List<JobHarness.Traffic> published = new ArrayList<>();

            cluster.startJobManager();
            FlinkCluster.Node taskManager = cluster.startTaskManager();
            cluster.awaitTaskManagers(1);
            long pid = taskManager.pid();

            String savepoint = null;
            Jvm first = null;
            Jvm last = null;
            try {
                for (int cycle = 1; cycle <= CYCLES; cycle++) {
                    String job = ClusterJob.run(cluster, config, savepoint, 2);
                    ClusterJob.awaitRunning(cluster, job);
                    // Each cycle its own traffic, all counted before the job stops; channels
                    // and erasures too, so that every sink's and stage's code has run.
                    JobHarness.Traffic traffic =
                            JobHarness.trafficWithChannels(
                                    config,
                                    seed + cycle,
                                    200,
                                    new BadRecords(seed + cycle, 1024).of(1));
                    KAFKA.produce(traffic.records());
                    published.add(traffic);
                    ClusterJob.awaitAgreement(published, prefix, db, context);
                    savepoint = ClusterJob.stop(cluster, job);

                    Jvm[] seen = new Jvm[1];
                    try {
                        last =
                                Poll.until(
                                        "cycle "
                                                + cycle
                                                + ": the TaskManager released the"
                                                + " job's class loader and threads",
                                        RELEASE_TIMEOUT,
                                        () -> {
                                            seen[0] = Jvm.read(pid);
                                            return seen[0].released() ? seen[0] : null;
                                        });
                    } catch (AssertionError e) {
                        throw new AssertionError(e.getMessage() + "; still: " + seen[0], e);
                    }
                    System.out.printf("FlinkClusterLeakITCase: after cycle %d %s%n", cycle, last);
                    if (cycle == 1) {
                        first = last;
                    }
                }
                assertThat(last.liveClasses)
                        .as("live classes after %d cycles vs. after 1", CYCLES)
                        .isLessThan(first.liveClasses + CLASS_SLACK);
                assertThat(last.threads)
                        .as("threads after %d cycles vs. after 1", CYCLES)
                        .isLessThanOrEqualTo(first.threads + THREAD_SLACK);

                ClusterJob.awaitAgreement(published, prefix, db, context + ", after the last stop");
            } finally {
                TestRedis.deleteKeys(prefix);
            }
        } finally {
            TempDirs.delete(dir);
        }
    }

    /** What the TaskManager's JVM holds right after a full garbage collection. */
    private record Jvm(
            long jobClassLoaders,
            List<String> jobThreads,
            long threads,
            long liveClasses,
            long metaspaceBytes) {

        private static final Pattern COUNTER =
                Pattern.compile("^(\\S+)=(\\d+)$", Pattern.MULTILINE);

        static Jvm read(long pid) throws Exception {
            // The histogram of live objects collects everything unreachable first.
            String histogram = ClusterJob.jcmd(pid, "GC.class_histogram");
            long loaders = 0;
            for (String line : histogram.split("\n")) {
                String[] columns = line.trim().split("\\s+");
                if (columns.length >= 4 && columns[3].equals(JOB_CLASS_LOADER)) {
                    loaders = Long.parseLong(columns[1]);
                }
            }
            String threadDump = ClusterJob.jcmd(pid, "Thread.print");
            List<String> jobThreads =
                    threadDump
                            .lines()
                            .filter(
                                    line ->
                                            JOB_THREADS.stream()
                                                    .anyMatch(t -> line.startsWith("\"" + t)))
                            .map(line -> line.substring(1, line.indexOf('"', 1)))
                            .toList();
            long threads =
                    threadDump
                            .lines()
                            .filter(line -> line.startsWith("\""))
                            .map(line -> line.substring(1, line.indexOf('"', 1)))
                            .filter(name -> !BOUNDED_POOL_THREAD.matcher(name).find())
                            .count();
            Map<String, Long> counters = new HashMap<>();
            Matcher m = COUNTER.matcher(ClusterJob.jcmd(pid, "PerfCounter.print"));
            while (m.find()) {
                counters.put(m.group(1), Long.parseLong(m.group(2)));
            }
            return new Jvm(
                    loaders,
                    jobThreads,
                    threads,
                    counters.getOrDefault("java.cls.loadedClasses", 0L)
                            - counters.getOrDefault("java.cls.unloadedClasses", 0L),
                    counters.getOrDefault("sun.gc.metaspace.used", 0L));
        }

        boolean released() {
            return jobClassLoaders == 0 && jobThreads.isEmpty();
        }

        @Override
        public String toString() {
            return jobClassLoaders
                    + " job class loaders, job threads "
                    + jobThreads
                    + ", "
                    + threads
                    + " threads outside Flink's bounded pools, "
                    + liveClasses
                    + " live classes, metaspace "
                    + metaspaceBytes / 1024
                    + " KiB";
        }
    }
}
