package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.TrafficRecord;
import dev.unread.generator.Workload;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Oracle;
import dev.unread.testing.TestRedis;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code unread bench} end to end on a small workload: every part runs and measures the records it
 * was given. No figure is judged here (speed belongs to the benchmark's report, not to tests); what
 * is checked is that the counts the ratios rest on are right, and that the job's state at the end
 * is what the semantics of docs/contract.md give for those records.
 */
class BenchITCase {

    private static final long RECORDS = 20_000;

    @Test
    void everyPartMeasuresTheSameRecordsAndTheJobEndsWithTheExactCounts() throws Exception {
        Workload full = Workload.builder().receivers(500).build();
        Workload badge = full.toBuilder().conversationShare(0).conversationReadRate(0).build();
        Bench.Options options =
                new Bench.Options(
                        badge,
                        full,
                        RECORDS,
                        2,
                        List.of(NaiveWorker.Mode.values()),
                        List.of(3_000L),
                        30,
                        Duration.ofSeconds(2),
                        1000,
                        50);
        String prefix = TestRedis.uniquePrefix();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        BenchReport report;
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            Map<String, String> settings = new HashMap<>();
            settings.put("redis-key-prefix", prefix);
            settings.put("jdbc-url", db.jdbcUrl());
            settings.put("jdbc-user", db.name);
            settings.put("checkpoint-interval-ms", "500");
            report =
                    new Bench(
                                    options,
                                    settings,
                                    Map.of(UnreadConfig.JDBC_PASSWORD_ENV, db.password),
                                    new PrintStream(progress, true, StandardCharsets.UTF_8))
                            .run();
        }

        assertThat(report.jobs()).hasSize(2);
        Bench.JobFigures badgeJob = report.jobs().get(0);
        Bench.JobFigures fullJob = report.jobs().get(1);
        for (Bench.JobFigures job : report.jobs()) {
            assertThat(job.traffic().records()).isEqualTo(RECORDS);
            assertThat(job.redisCommands()).isPositive();
            assertThat(job.mysqlStatements()).isPositive();
            assertThat(job.checkpoints().completed()).isGreaterThanOrEqualTo(2);
            assertThat(job.savepointBytes()).isPositive();
            assertThat(job.state().badgeMismatches()).isZero();
        }
        assertThat(badgeJob.badgeKeys().keys()).isPositive();
        assertThat(badgeJob.badgeKeys().bytesPerKey()).isPositive();
        assertThat(badgeJob.conversationKeys().keys()).isZero();
        assertThat(fullJob.conversationKeys().hashFields())
                .isGreaterThanOrEqualTo(fullJob.conversationKeys().keys())
                .isPositive();
        assertThat(badgeJob.traffic().conversationReads()).isZero();
        assertThat(fullJob.traffic().conversationReads()).isPositive();

        Oracle badgeOracle = Oracle.of(events(badge));
        assertThat(badgeJob.state().senders())
                .isEqualTo(badgeOracle.badges().values().stream().mapToLong(Long::longValue).sum());
        Oracle fullOracle = Oracle.of(events(full));
        assertThat(fullJob.state().unreadSeqs())
                .isEqualTo(
                        fullOracle.conversationUnread().values().stream()
                                .flatMap(c -> c.values().stream())
                                .mapToLong(Long::longValue)
                                .sum());

        assertThat(report.workers())
                .extracting(NaiveWorker.Result::mode)
                .containsExactly(NaiveWorker.Mode.values());
        for (NaiveWorker.Result worker : report.workers()) {
            assertThat(worker.messages()).isEqualTo(badgeJob.traffic().messages());
            assertThat(worker.inboxOpens()).isEqualTo(badgeJob.traffic().inboxOpens());
            // Writing only changes is the point of the job; the worker writes every message.
            assertThat(badgeJob.commandsPerMessage()).isLessThan(worker.commandsPerMessage());
        }

        assertThat(report.rivals().passThrough().messages())
                .isEqualTo(badgeJob.traffic().messages());
        assertThat(report.rivals().passThrough().cpuNanos()).isPositive();
        assertThat(report.rivals().peer().messages()).isEqualTo(badgeJob.traffic().messages());
        assertThat(report.rivals().peer().redisCommands()).isPositive();

        assertThat(report.latency().landed()).isEqualTo(report.latency().probes()).isEqualTo(100);
        assertThat(report.latency().p50Millis())
                .isPositive()
                .isLessThanOrEqualTo(report.latency().p99Millis());

        assertThat(report.sql().runs()).hasSize(SqlBaseline.Index.values().length);

        String markdown = report.markdown("unread bench (test)");
        assertThat(markdown)
                .contains(
                        "| **the job** |",
                        "## The job against the ceiling",
                        "## Latency",
                        "## Reading the badge",
                        "## Targets")
                .contains(String.format("%,d", RECORDS));
        assertThat(TestRedis.keys(TestRedis.connect(0), prefix)).isEmpty();
        assertThat(progress.toString(StandardCharsets.UTF_8))
                .contains("bench: the job on the full");
    }

    /** The valid events among the first {@link #RECORDS} records the bench publishes. */
    private static List<ChatEvent> events(Workload workload) {
        TrafficGenerator generator = Bench.generator(workload);
        List<ChatEvent> events = new ArrayList<>();
        for (long i = 0; i < RECORDS; i++) {
            TrafficRecord record = generator.next();
            if (record.valid()) {
                events.add(record.event());
            }
        }
        return events;
    }
}
