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
    private static final long GROUP_RECORDS = 2_000;
    private static final double REPLY_SHARE = 0.3;

    private static final double GROUP_EDIT_SHARE = 0.05;
    private static final int STREAMS = 40;
    private static final long WARM_UP_EVENTS = 5_000;
    private static final int SPARSE_RECEIVERS = 4_000;
    private static final long SPARSE_RECORDS = 3_000;

    @Test
    void everyPartMeasuresTheSameRecordsAndTheJobEndsWithTheExactCounts() throws Exception {
        Workload full = Workload.builder().receivers(500).build();
        Workload badge = full.toBuilder().conversationShare(0).conversationReadRate(0).build();
        Workload groups =
                full.toBuilder()
                        .publishedGroupShare(1)
                        .publishedGroups(12)
                        .publishedGroupMaxSize(200)
                        .build();
        BenchOptions options =
                new BenchOptions(
                        badge,
                        full,
                        RECORDS,
                        2,
                        List.of(NaiveWorker.Mode.values()),
                        List.of(3_000L),
                        30,
                        Duration.ofSeconds(2),
                        // No rate given: the bench looks for the rate the job sustains.
                        0,
                        50,
                        new GroupBench.Options(
                                groups, GROUP_RECORDS, REPLY_SHARE, GROUP_EDIT_SHARE),
                        new LiveLoad.Options(STREAMS, Duration.ofSeconds(3)),
                        true,
                        WARM_UP_EVENTS,
                        Duration.ofSeconds(1),
                        full.toBuilder().deletedShare(0.02).build(),
                        0.2,
                        Duration.ofSeconds(2),
                        full.toBuilder().allReadShare(0.1).build(),
                        full.toBuilder().editShare(0.02).build(),
                        null,
                        true,
                        full.toBuilder().receivers(SPARSE_RECEIVERS).build(),
                        SPARSE_RECORDS,
                        // The channel runs have a test of their own: ChannelBenchITCase.
                        null);

        String prefix = TestRedis.uniquePrefix();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        BenchReport report;
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            Map<String, String> settings = new HashMap<>();
            settings.put("redis-key-prefix", prefix);
            settings.put("jdbc-url", db.jdbcUrl());
            settings.put("jdbc-user", db.name);
            settings.put("checkpoint-interval-ms", "500");
            try (Bench bench =
                    new Bench(
                            options,
                            settings,
                            Map.of(UnreadConfig.JDBC_PASSWORD_ENV, db.password),
                            new PrintStream(progress, true, StandardCharsets.UTF_8))) {
                report = bench.run();
            }
        }

        // The badge-only, full, and full with deletions, with ALL_READs, with edits and with
        // roots' senders tracked by the job: the deleted run ends only if the counting operator
        // took in each deletion once per participant, and the tracked one only if it took in a
        // copy of every conversation message for its sender, as the bench expects.
        assertThat(report.jobs())
                .extracting(job -> job.traffic().name())
                .containsExactly(
                        "badge-only",
                        "full",
                        BesideFull.DELETED_RUN,
                        BesideFull.ALL_READ_RUN,
                        BesideFull.EDITED_RUN,
                        BesideFull.TRACKED_RUN);
        JobFigures badgeJob = report.jobs().get(0);
        JobFigures fullJob = report.jobs().get(1);
        assertThat(report.jobs().get(5).traffic().counterEvents())
                .isGreaterThan(fullJob.traffic().counterEvents());
        for (JobFigures job : report.jobs()) {
            assertThat(job.traffic().records()).isEqualTo(RECORDS);
            assertThat(job.redisCommands()).isPositive();
            assertThat(job.redisCpuNanos()).isPositive();
            assertThat(job.mysqlStatements()).isPositive();
            assertThat(job.checkpoints().completed()).isGreaterThanOrEqualTo(2);
            assertThat(job.savepointBytes()).isPositive();
            assertThat(job.state().badgeMismatches()).isZero();
            assertThat(job.commandsBySink()).containsKey("Redis counts: Writer");
            assertThat(job.commandsBySink().values().stream().mapToLong(Long::longValue).sum())
                    .isEqualTo(job.redisCommands());
        }
        // The same records again with a fifth of the receivers live: their counts written every
        // flush interval, with their versions and change messages.
        assertThat(report.liveJobs()).hasSize(2);
        for (JobFigures live : report.liveJobs()) {
            assertThat(live.traffic().records()).isEqualTo(RECORDS);
            assertThat(live.callsByCommand()).containsKey("publish");
            assertThat(live.state().badgeMismatches()).isZero();
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
            assertThat(worker.redisCpuNanos()).isPositive();
        }

        assertThat(report.rivals().passThrough().messages())
                .isEqualTo(badgeJob.traffic().messages());
        assertThat(report.rivals().passThrough().cpuNanos()).isPositive();
        assertThat(report.rivals().statefulPassThrough().messages())
                .isEqualTo(badgeJob.traffic().messages());
        assertThat(report.rivals().statefulPassThrough().cpuNanos()).isPositive();
        assertThat(report.rivals().peer().messages()).isEqualTo(badgeJob.traffic().messages());
        assertThat(report.rivals().peer().redisCommands()).isPositive();
        assertThat(report.rivals().peer().redisCpuNanos()).isPositive();

        assertThat(report.latency().afterRestore().probes()).isEqualTo(50);
        assertThat(report.latency().steady().probes()).isEqualTo(100);
        assertThat(report.latency().steadyLive().probes()).isEqualTo(50);
        assertThat(report.latency().steadyOther().probes()).isEqualTo(50);
        assertThat(report.latency().sustainedRecordsPerSecond()).isPositive();
        assertThat(report.latency().recordsPerSecond())
                .isEqualTo(
                        SustainedRate.LATENCY_SHARE * report.latency().sustainedRecordsPerSecond());
        assertThat(report.latency().landed()).isEqualTo(report.latency().probes());
        assertThat(report.latency().p50Millis())
                .isPositive()
                .isLessThanOrEqualTo(report.latency().p99Millis());
        // Issue 46: at 0.7× too, in the same job, before the 0.8× measure, whose probes then
        // took no longer than a probe can (its probe users not the first measure's).
        long measureMillis =
                report.options()
                        .latencyWarmUp()
                        .plus(report.options().latency())
                        .plus(Latency.SETTLE_TIMEOUT)
                        .toMillis();
        assertThat(report.latency().maxMillis()).isLessThan(measureMillis);
        assertThat(report.latency().afterRestore().maxMillis()).isLessThan(measureMillis);
        assertThat(report.lighterLatency().steady().probes()).isEqualTo(100);
        assertThat(report.lighterLatency().steady().landed()).isEqualTo(100);
        assertThat(report.lighterLatency().recordsPerSecond())
                .isEqualTo(
                        SustainedRate.LIGHTER_SHARE * report.latency().sustainedRecordsPerSecond());
        assertThat(report.markdown("bench")).contains("Before it, in the same job:");

        assertThat(report.sql().runs()).hasSize(SqlBaseline.Index.values().length);

        assertSparse(report.sparse(), report.options().sparseWorkload());
        assertGroups(report.groups(), groups);
        assertGroupThreads(report.groups().threads(), report.groups().options());
        assertGroupEdits(report.groups().edits(), report.groups().options());
        assertCluster(report.cluster(), fullJob);
        assertLive(report.live());
        // The same streams at the latency run's lighter rate, first.
        assertLive(report.lighterLive());
        assertThat(report.lighterLive().recordsPerSecond())
                .isEqualTo(report.lighterLatency().recordsPerSecond());

        String markdown = report.markdown("unread bench (test)");
        assertThat(markdown)
                .contains(
                        "| **the job** |",
                        "## The job against the ceiling",
                        "## Latency",
                        "## Reading the badge",
                        "## Targets",
                        "Redis CPU µs per message",
                        "| ≤ 0.35 Redis commands per message (full, no user live;",
                        "| ≤ 0.30 Redis commands per message (full, no user live; issue 46) |",
                        "| ≥ 0.35× the stateful pass-through per CPU-second (full; issue 46 asks",
                        "| records/s | UNREAD_CHANGED to stream users |",
                        "## Users with a live stream: 20% of the receivers live beside none",
                        "| full, 20% live |",
                        "| Kafka → Redis p99 ≤ 500 ms for live users",
                        "The live users' tail:",
                        // Either side of the checkpoint split may have no probe in 2 s.
                        "| live probes | probes | landed |",
                        "| all, from the send to the broker's acknowledgement |",
                        "| Redis counts: Writer |",
                        "the job sustained for 2 s with the producer running")
                .contains("## Groups published once", "## Redis Cluster", "## Live push")
                .contains("### The same groups with threads")
                .contains("### The same groups with edits and channel-wide mentions")
                .contains("| with / without edits |")
                .contains("## Deleted messages: 2% of the conversation messages deleted")
                .contains("## Edits and channel-wide mentions: 2% of the conversation messages")
                .contains("| edited / full |")
                .contains("## Roots' senders tracked by the job")
                .contains("| tracked / full |")
                .contains("## Mark all as read: 10% of the read steps ALL_READ")
                .contains("## The sparse regime: 4,000 receivers, 3,000 records from warm state")
                .contains("| savepoint bytes per entry, raw |")
                .contains("| messages/s | stolen | JIT |")
                .contains("| all read / full |")
                .contains(String.format("%,d", RECORDS));
        assertThat(TestRedis.keys(TestRedis.connect(0), prefix)).isEmpty();
        assertThat(progress.toString(StandardCharsets.UTF_8))
                .contains("bench: warming up: the job on 5,000 events of the full records")
                .contains("bench: the job on the full");
    }

    /**
     * The sparse run restored the warm-up's savepoint: it took in only the records after the
     * warm-up's, and its state is what all of them make, as the oracle gives it. Its savepoint is
     * compressed: raw is larger.
     */
    private static void assertSparse(SparseBench.Result sparse, Workload workload) {
        assertThat(sparse.warmUp().records()).isEqualTo(SPARSE_RECORDS);
        JobFigures job = sparse.job();
        assertThat(job.traffic().records()).isEqualTo(SPARSE_RECORDS);
        assertThat(job.traffic().workload().receivers()).isEqualTo(SPARSE_RECEIVERS);
        assertThat(job.state().badgeMismatches()).isZero();
        Oracle oracle = Oracle.of(events(workload, 2 * SPARSE_RECORDS));
        assertThat(job.state().senders())
                .isEqualTo(oracle.badges().values().stream().mapToLong(Long::longValue).sum());
        assertThat(job.rawSavepointBytes()).isGreaterThan(job.savepointBytes());
    }

    /**
     * Both ways of publishing group traffic give the job the same deliveries and end in the same
     * per-user state, the oracle's for the producer's fanned-out records.
     */
    private static void assertGroups(GroupBench.Result result, Workload workload) {
        TrafficGenerator generator = Bench.generator(workload);
        Fanned fanned = Fanned.of(generator);
        ProducerFanOut fanOut = fanned.fanOut();
        long onceValid = fanned.valid();
        GroupBench.Run once = result.once();
        GroupBench.Run producer = result.producer();
        assertThat(generator.publishedMessages()).isPositive();
        assertThat(result.groupMessages()).isEqualTo(generator.publishedMessages());
        assertThat(once.recordsIn()).isEqualTo(onceValid);
        assertThat(producer.recordsIn()).isEqualTo(fanned.events().size());
        assertThat(once.deliveries())
                .isEqualTo(producer.deliveries())
                .isEqualTo(fanOut.deliveries())
                .isEqualTo(
                        result.sizes().stream().mapToLong(GroupBench.SizeClass::deliveries).sum())
                .isGreaterThan(result.groupMessages());
        assertThat(once.memberships()).isEqualTo(generator.memberships());
        assertThat(once.job().state().groups().members()).isEqualTo(generator.memberships());
        long unread = conversationUnread(fanned.events());
        assertThat(unread).isPositive();
        assertThat(once.job().state().unreadSeqs()).isEqualTo(unread);
        assertThat(producer.job().state().unreadSeqs()).isEqualTo(unread);
        assertThat(once.job().savepointBytes()).isPositive();
        assertThat(once.job().redisCommands()).isPositive();
    }

    /**
     * The run with threads read the same groups' records with replies, thread reads and follows,
     * and its replies counted in no conversation: its unread seqs are the oracle's for them.
     */
    private static void assertGroupThreads(GroupBench.Threads threads, GroupBench.Options options) {
        TrafficGenerator generator = Bench.generator(GroupBench.threadWorkload(options));
        Fanned fanned = Fanned.of(generator);
        assertThat(threads.replies()).isEqualTo(generator.replies()).isPositive();
        assertThat(threads.threadReads()).isEqualTo(generator.threadReads()).isPositive();
        assertThat(threads.threadFollows()).isEqualTo(generator.threadFollows()).isPositive();
        GroupBench.Run run = threads.run();
        assertThat(run.recordsIn()).isEqualTo(fanned.valid());
        assertThat(run.deliveries()).isEqualTo(fanned.fanOut().deliveries()).isPositive();
        assertThat(run.memberships()).isEqualTo(generator.memberships());
        long unread = conversationUnread(fanned.events());
        assertThat(unread).isPositive();
        assertThat(run.job().state().unreadSeqs()).isEqualTo(unread);
        assertThat(run.job().savepointBytes()).isPositive();
        assertThat(run.job().redisCommands()).isPositive();
    }

    /**
     * The run with edits read the same groups' records with a share of their messages edited, each
     * edit fanned out to the members its message reached: its unread seqs are the oracle's for the
     * producer's records of them, edits included.
     */
    private static void assertGroupEdits(GroupBench.Edits edits, GroupBench.Options options) {
        TrafficGenerator generator = Bench.generator(GroupBench.editWorkload(options));
        Fanned fanned = Fanned.of(generator);
        assertThat(edits.edits()).isEqualTo(fanned.fanOut().edits()).isPositive();
        assertThat(edits.editDeliveries())
                .isEqualTo(fanned.fanOut().editDeliveries())
                .isGreaterThan(edits.edits());
        GroupBench.Run run = edits.run();
        assertThat(run.recordsIn()).isEqualTo(fanned.valid());
        assertThat(run.deliveries()).isEqualTo(fanned.fanOut().deliveries()).isPositive();
        long unread = conversationUnread(fanned.events());
        assertThat(unread).isPositive();
        assertThat(run.job().state().unreadSeqs()).isEqualTo(unread);
        assertThat(run.job().redisCommands()).isPositive();
    }

    private static long conversationUnread(List<ChatEvent> events) {
        return Oracle.of(events).conversationUnread().values().stream()
                .flatMap(c -> c.values().stream())
                .mapToLong(Long::longValue)
                .sum();
    }

    /** A generator's group records as the producer's fan-out publishes them. */
    private record Fanned(long valid, List<ChatEvent> events, ProducerFanOut fanOut) {
        static Fanned of(TrafficGenerator generator) {
            ProducerFanOut fanOut = new ProducerFanOut();
            List<ChatEvent> events = new ArrayList<>();
            long valid = 0;
            for (long i = 0; i < GROUP_RECORDS; i++) {
                TrafficRecord record = generator.next();
                if (record.valid()) {
                    valid++;
                }
                fanOut.apply(
                        record,
                        r -> {
                            if (r.valid()) {
                                events.add(r.event());
                            }
                        });
            }
            return new Fanned(valid, events, fanOut);
        }
    }

    /** The cluster run read the same records and ended in the same state; its flushes counted. */
    private static void assertCluster(ClusterBench.Result result, JobFigures fullJob) {
        assertThat(result.primaries()).isEqualTo(3);
        JobFigures single = result.single();
        JobFigures cluster = result.cluster();
        for (JobFigures run : List.of(single, cluster)) {
            assertThat(run.traffic().records()).isEqualTo(RECORDS);
            assertThat(run.state().unreadSeqs()).isEqualTo(fullJob.state().unreadSeqs());
            assertThat(run.state().senders()).isEqualTo(fullJob.state().senders());
            assertThat(run.state().badgeMismatches()).isZero();
            assertThat(run.redisCommands()).isPositive();
            assertThat(run.redisFlushes()).isPositive();
        }
        assertThat(single.redisRoundTrips()).isGreaterThanOrEqualTo(single.redisFlushes());
        // A flush's keys lie on several primaries: a round trip to each.
        assertThat(cluster.redisRoundTrips()).isGreaterThan(cluster.redisFlushes());
        assertThat(cluster.badgeKeys().keys()).isPositive();
    }

    /** Every stream opened with its snapshot and saw changes the job published for its user. */
    private static void assertLive(LiveLoad.Result live) {
        assertThat(live.requested()).isEqualTo(STREAMS);
        assertThat(live.streams()).isEqualTo(STREAMS);
        assertThat(live.failed()).isZero();
        assertThat(live.rssAfter()).isPositive();
        assertThat(live.heapAfter()).isPositive();
        assertThat(live.published()).isPositive();
        assertThat(live.delivered()).isPositive().isLessThanOrEqualTo(live.expected());
        assertThat(live.p50Millis()).isLessThanOrEqualTo(live.p99Millis());
        // The stream users are live: their versions and changes are among the commands.
        assertThat(live.messages()).isPositive();
        assertThat(live.callsByCommand()).containsKeys("setex", "publish", "zmscore");
        assertThat(live.commandsPerMessage()).isPositive();
    }

    /** The valid events among the first {@link #RECORDS} records the bench publishes. */
    private static List<ChatEvent> events(Workload workload) {
        return events(workload, RECORDS);
    }

    /** The valid events among the first {@code records} records the bench publishes. */
    private static List<ChatEvent> events(Workload workload, long records) {
        TrafficGenerator generator = Bench.generator(workload);
        List<ChatEvent> events = new ArrayList<>();
        for (long i = 0; i < records; i++) {
            TrafficRecord record = generator.next();
            if (record.valid()) {
                events.add(record.event());
            }
        }
        return events;
    }
}
