package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.generator.Workload;
import dev.unread.kafka.EmbeddedKafka;
import dev.unread.kafka.TempDirs;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.TestRedis;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.Condition;
import org.junit.jupiter.api.Test;

/**
 * The Redis commands the job sends for a fixed generated workload, against a budget (issue 24), so
 * that the cost of version 2 cannot creep back unnoticed: a new command per user, field or flush
 * shows here as a rise of its share of the commands.
 *
 * <p>Not timed, and not at the mercy of flush or checkpoint timing: the flush interval is an hour,
 * the background interval two, and there is no periodic checkpoint, only the one the bench takes
 * once the records are counted, so the sinks send each key's last value once (and when a buffer
 * fills, at points set by the records: there, the live users' counts). Each workload runs twice:
 * with no user live, and with a fifth of the receivers live (issue 35), whose counts each full
 * buffer writes with their versions and change messages. The budgets are this build's counts with a
 * tenth on top; lower them when a change lowers the counts.
 */
class RedisCommandBudgetITCase {

    private static final long RECORDS = 20_000;

    /**
     * Commands per message of this build's sinks on these records, with no live users (no stream is
     * open): full 0.1236 (0.1591 with a SET or DEL per badge, 0.2429 while a fresh job wrote the
     * zeros of each record's first touch, 0.5661 with a command per field, 0.2815 with a command
     * per key and flush while every changed user got a version and a message, 0.2294 before
     * threads), badge-only 0.0002 (0.0251 with a SET or DEL per badge, 0.0256, 0.0765): the run's
     * four commands are the badges' one MSET, the read of who is live, and the marks' HMGET and
     * HSET, so its budget allows a fifth command rather than a tenth of one.
     *
     * <p>A fresh job knows Redis holds nothing of its users, so a record's first counts go without
     * their zeros (issue 46): before, a user's first totals of an incarnation were written whole,
     * and {@code threads} 0 alone cost an HDEL of the totals per user (0.0135 on these records,
     * which have no reply). The copies of each message for its sender cost nothing here (the same
     * count with them left out of the job).
     */
    private static final double FULL_MEASURED = 0.1236;

    private static final double BADGE_MEASURED = 0.00025;

    /**
     * The same with a fifth of the receivers live: full 0.1341 (0.1709 with a SET or DEL per badge,
     * 0.2538 before issue 46), badge-only 0.0104 (0.0354 with a SET or DEL per badge). A live
     * user's counts are written at every full buffer with its version and message (SETEX, PUBLISH),
     * so they are coalesced over a buffer, not over the run; with no user live the background tier
     * holds every count to the checkpoint, as the hour-long interval did before it, so the figures
     * without live users are unchanged (0.2430 and 0.0256 measured with it).
     */
    private static final double FULL_LIVE_MEASURED = 0.1341;

    private static final double BADGE_LIVE_MEASURED = 0.0104;

    private static final double LIVE_SHARE = 0.2;

    @Test
    void theJobSendsNoMoreRedisCommandsPerMessageThanItsBudget() throws Exception {
        Workload full = Workload.builder().receivers(500).build();
        Workload badge = full.toBuilder().conversationShare(0).conversationReadRate(0).build();
        Map<String, Double> perMessage = new HashMap<>();
        Map<String, String> runs = new HashMap<>();
        Map<String, Long> checkpoints = new HashMap<>();
        Path dataDir = TempDirs.create("unread-command-budget-");
        try (MySqlTestDatabase db = MySqlTestDatabase.create();
                EmbeddedKafka kafka = EmbeddedKafka.start(0)) {
            Map<String, String> settings = new HashMap<>();
            settings.put("redis-key-prefix", TestRedis.uniquePrefix());
            settings.put("jdbc-url", db.jdbcUrl());
            settings.put("jdbc-user", db.name);
            settings.put("flush-interval-ms", "3600000");
            settings.put("background-flush-interval-ms", "7200000");
            // A checkpoint while counting writes every held count once more (0.3149 against
            // 0.2538 with live users), and Flink sets the first periodic one at a random moment
            // within the first interval: at 30 s it landed while counting on a loaded machine
            // (issue 45).
            settings.put("checkpoint-interval-ms", String.valueOf(Bench.NO_PERIODIC_CHECKPOINTS));
            ByteArrayOutputStream progress = new ByteArrayOutputStream();
            try (Bench bench =
                    new Bench(
                            options(badge, full),
                            settings,
                            Map.of(UnreadConfig.JDBC_PASSWORD_ENV, db.password),
                            new PrintStream(progress, true, StandardCharsets.UTF_8))) {
                for (Workload workload : List.of(badge, full)) {
                    String name = workload == badge ? "badge-only" : "full";
                    UnreadConfig config = bench.config(kafka, name);
                    Traffic traffic = bench.publish(kafka, config, name, Bench.generator(workload));
                    JobFigures job = bench.runJob(config, traffic, dataDir.resolve(name));
                    perMessage.put(name, job.commandsPerMessage());
                    runs.put(name, describe(job));
                    checkpoints.put(name, job.checkpoints().completed());
                    RedisKeys.deleteUnder(config.redisEndpoint(), config.redisKeyPrefix);
                    JobFigures live =
                            BesideFull.runLive(
                                    bench, kafka, name, traffic, dataDir.resolve(name + "-live"));
                    perMessage.put(name + ", live", live.commandsPerMessage());
                    runs.put(name + ", live", describe(live));
                    checkpoints.put(name + ", live", live.checkpoints().completed());
                }
            }
        } finally {
            TempDirs.delete(dataDir);
        }

        System.out.printf("Redis commands per message: %s; the runs: %s%n", perMessage, runs);
        assertThat(checkpoints)
                .as("each run's checkpoints: the one taken once its records were counted")
                .containsOnlyKeys(perMessage.keySet())
                .allSatisfy((run, completed) -> assertThat(completed).as(run).isEqualTo(1));
        assertThat(perMessage)
                .as("Redis commands per message, at most a tenth over this build's (%s)", runs)
                .hasEntrySatisfying("badge-only", within(BADGE_MEASURED))
                .hasEntrySatisfying("full", within(FULL_MEASURED))
                .hasEntrySatisfying("badge-only, live", within(BADGE_LIVE_MEASURED))
                .hasEntrySatisfying("full, live", within(FULL_LIVE_MEASURED));
    }

    /** What makes a run's commands: a checkpoint while counting writes every count once more. */
    private static String describe(JobFigures job) {
        return job.redisFlushes()
                + " flushes, "
                + job.checkpoints().completed()
                + " checkpoints, "
                + job.callsByCommand();
    }

    private static Condition<Double> within(double measured) {
        return new Condition<>(
                perMessage -> perMessage <= measured * 1.1, "at most %.4f", measured * 1.1);
    }

    private static BenchOptions options(Workload badge, Workload full) {
        return new BenchOptions(
                badge,
                full,
                RECORDS,
                1,
                List.of(),
                List.of(),
                0,
                Duration.ZERO,
                0,
                0,
                null,
                null,
                false,
                0,
                Duration.ZERO,
                null,
                LIVE_SHARE,
                Duration.ZERO,
                null,
                null,
                null,
                false,
                null,
                0,
                null);
    }
}
