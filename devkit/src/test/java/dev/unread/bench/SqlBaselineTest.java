package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.bench.SqlBaseline.Index;
import dev.unread.bench.SqlBaseline.IndexRun;
import dev.unread.bench.SqlBaseline.Loaded;
import dev.unread.bench.SqlBaseline.Result;
import dev.unread.events.ChatEvent;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.Workload;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.TestRedis;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import redis.clients.jedis.Jedis;

/**
 * The SQL baseline on the real servers, at a size that runs in seconds: the table holds the
 * generated messages, SQL counts the badge of docs/contract.md, each layout's plan uses its own
 * index, Redis is read where the job writes, and nothing is left behind. Timings are never
 * asserted.
 *
 * <p>With {@code -Dbench.sql.rows=1000000,10000000} (and optionally {@code -Dbench.sql.queries}) it
 * also runs the benchmark itself on the default workload and prints the figures.
 */
class SqlBaselineTest {

    private static final int ROWS = 20_000;

    /** Few receivers, so that 20,000 rows give each one a history and many a nonzero badge. */
    private static final Workload WORKLOAD = Workload.builder().receivers(500).build();

    private static final String REDIS_URL = "redis://127.0.0.1:6379";

    private static MySqlTestDatabase db;

    @BeforeAll
    static void createDatabase() throws SQLException {
        db = MySqlTestDatabase.create();
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        if (db != null) {
            db.close();
        }
    }

    @Test
    void tableHoldsEveryGeneratedMessageAndSqlCountsTheBadgeOfTheDesign() throws Exception {
        Oracle oracle = Oracle.of(WORKLOAD, ROWS);
        try (Connection c = SqlBaseline.connect(db.jdbcUrl(), db.name, db.password)) {
            Loaded loaded = SqlBaseline.load(c, WORKLOAD, ROWS, 200);

            assertThat(MySqlTestDatabase.queryLong(c, "SELECT COUNT(*) FROM bench_messages"))
                    .isEqualTo(ROWS);
            assertThat(loaded.lastReadAt()).isEqualTo(oracle.lastReadAt);
            assertThat(loaded.busiestReceiver()).isEqualTo(WORKLOAD.firstUserId());

            Set<Long> receivers = new TreeSet<>();
            for (long r : loaded.sample()) {
                receivers.add(r);
            }
            assertThat(oracle.received.keySet()).containsAll(receivers);
            // Receivers that were never sampled, never opened, or have nothing unread too.
            receivers.addAll(oracle.received.keySet().stream().limit(50).toList());
            assertThat(receivers.stream().map(oracle::badge).filter(b -> b > 1)).isNotEmpty();
            assertThat(receivers.stream().map(oracle::badge).filter(b -> b == 0)).isNotEmpty();

            for (Index index : Index.values()) {
                execute(c, index.ddl());
                try (PreparedStatement badge = c.prepareStatement(SqlBaseline.BADGE_QUERY)) {
                    for (long r : receivers) {
                        assertThat(SqlBaseline.badge(badge, r, loaded.lastReadAt(r)))
                                .as("badge of %d with %s", r, index)
                                .isEqualTo(oracle.badge(r));
                    }
                }
                execute(c, index.dropDdl());
            }

            SqlBaseline.cleanUp(c);
        }
        assertThat(db.tableExists(SqlBaseline.TABLE)).isFalse();
    }

    @Test
    void samplingFollowsTrafficAndRepeatsForTheSameWorkload() throws Exception {
        Oracle oracle = Oracle.of(WORKLOAD, ROWS);
        try (Connection c = SqlBaseline.connect(db.jdbcUrl(), db.name, db.password)) {
            long[] first = SqlBaseline.load(c, WORKLOAD, ROWS, 2_000).sample();
            long[] second = SqlBaseline.load(c, WORKLOAD, ROWS, 2_000).sample();
            SqlBaseline.cleanUp(c);

            assertThat(second).isEqualTo(first);
            long busiest = WORKLOAD.firstUserId();
            long drawn = Arrays.stream(first).filter(r -> r == busiest).count();
            double share = (double) oracle.received.get(busiest) / ROWS;
            // Weighted by messages: the busiest receiver's share of the reads is near its share of
            // the rows (several standard deviations of slack), far above a uniform 1/500.
            assertThat((double) drawn / first.length).isBetween(share * 0.7, share * 1.3);
            assertThat(share).isGreaterThan(10.0 / WORKLOAD.receivers());
        }
    }

    @Test
    void eachLayoutsPlanUsesItsOwnIndexAndTheTableIsDroppedAfterTheRun() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        List<Long> rowCounts = List.of(5_000L, (long) ROWS);
        int queries = 40;
        Result result =
                SqlBaseline.run(
                        db.jdbcUrl(),
                        db.name,
                        db.password,
                        rowCounts,
                        WORKLOAD,
                        queries,
                        REDIS_URL,
                        prefix);

        assertThat(result.runs()).hasSize(rowCounts.size() * Index.values().length);
        assertThat(result.runs())
                .extracting(IndexRun::rows)
                .containsExactly(5_000L, 5_000L, 5_000L, 20_000L, 20_000L, 20_000L);
        for (IndexRun run : result.runs()) {
            assertThat(planKeys(run.explain()))
                    .as("%s at %d rows: %s", run.index(), run.rows(), run.explain())
                    .isNotEmpty()
                    .isSubsetOf(run.index().keyNames());
            assertThat(run.queries()).isBetween(1, queries);
            assertThat(run.explain()).contains("keys over " + run.queries() + " timed queries");
            assertThat(run.p50Micros()).isPositive().isLessThanOrEqualTo(run.p99Micros());
            assertThat(run.meanMicros()).isPositive();
        }
        for (IndexRun run : result.runs()) {
            if (run.index() == Index.RECEIVER_TIME_SENDER) {
                assertThat(planKeys(run.explain())).containsExactly("ix_receiver_time_sender");
                assertThat(run.explain()).contains("Using index");
            }
        }
        assertThat(result.loadSeconds()).containsOnlyKeys(rowCounts);
        assertThat(result.redisP50Micros())
                .isPositive()
                .isLessThanOrEqualTo(result.redisP99Micros());
        assertThat(db.tableExists(SqlBaseline.TABLE)).isFalse();
    }

    @Test
    void redisBadgeIsTheValueUnderTheContractKey() {
        String prefix = TestRedis.uniquePrefix();
        try (Jedis jedis = TestRedis.connect(0)) {
            jedis.set(prefix + "unread:senders:10001", "3");
            jedis.set(prefix + "unread:senders:10002", "17");

            assertThat(SqlBaseline.badge(jedis, prefix, 10001)).isEqualTo("3");
            assertThat(SqlBaseline.badge(jedis, prefix, 10002)).isEqualTo("17");
            assertThat(SqlBaseline.badge(jedis, prefix, 10003)).isNull();
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    @Test
    @EnabledIfSystemProperty(named = "bench.sql.rows", matches = "\\d+(,\\d+)*")
    void benchmarksTheRowCountsGivenOnTheCommandLine() throws Exception {
        List<Long> rowCounts =
                Arrays.stream(System.getProperty("bench.sql.rows").split(","))
                        .map(Long::valueOf)
                        .toList();
        int queries = Integer.getInteger("bench.sql.queries", 1_000);
        long start = System.nanoTime();
        Result result =
                SqlBaseline.run(
                        db.jdbcUrl(),
                        db.name,
                        db.password,
                        rowCounts,
                        Workload.defaults(),
                        queries,
                        REDIS_URL,
                        TestRedis.uniquePrefix());
        double wall = (System.nanoTime() - start) / 1e9;

        StringBuilder report = new StringBuilder();
        report.append(String.format("SQL baseline, wall %.0f s%n", wall));
        result.loadSeconds()
                .forEach(
                        (rows, s) ->
                                report.append(String.format("load %d rows: %.1f s%n", rows, s)));
        for (IndexRun run : result.runs()) {
            report.append(
                    String.format(
                            "%d rows, %s: %d queries, p50 %.0f us, p99 %.0f us, mean %.0f us%n"
                                    + "  %s%n",
                            run.rows(),
                            run.index().describe(),
                            run.queries(),
                            run.p50Micros(),
                            run.p99Micros(),
                            run.meanMicros(),
                            run.explain()));
        }
        report.append(
                String.format(
                        "Redis GET: p50 %.0f us, p99 %.0f us%n",
                        result.redisP50Micros(), result.redisP99Micros()));
        System.out.print(report);
        assertThat(result.runs()).hasSize(rowCounts.size() * Index.values().length);
    }

    /**
     * The indexes in the {@code key} column of the busiest receiver's plan: one name, or several
     * joined by '|' (a rowid filter) or ',' (an index merge).
     */
    private static List<String> planKeys(String explain) {
        int from = explain.indexOf("key=") + "key=".length();
        String key = explain.substring(from, explain.indexOf(" rows=", from));
        return key.equals("null") ? List.of() : List.of(key.split("[|,]"));
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /**
     * The badges of docs/contract.md computed from the generated events themselves: each user's
     * last inbox open, and who wrote to it when.
     */
    private static final class Oracle {
        final Map<Long, Long> lastReadAt = new HashMap<>();

        /** Receiver → its messages as {sender, sentAt}. */
        final Map<Long, List<long[]>> messages = new HashMap<>();

        /** Receiver → message rows it received. */
        final Map<Long, Long> received = new HashMap<>();

        static Oracle of(Workload workload, long rows) {
            Oracle oracle = new Oracle();
            TrafficGenerator traffic = SqlBaseline.traffic(workload);
            long seen = 0;
            while (seen < rows) {
                ChatEvent e = traffic.next().event();
                if (e == null) {
                    continue;
                }
                if (e.kind == ChatEvent.Kind.INBOX_OPENED) {
                    oracle.lastReadAt.merge(e.userId, e.time, Math::max);
                } else if (e.kind == ChatEvent.Kind.MESSAGE) {
                    oracle.messages
                            .computeIfAbsent(e.userId, u -> new ArrayList<>())
                            .add(new long[] {e.senderId, e.time});
                    oracle.received.merge(e.userId, 1L, Long::sum);
                    seen++;
                }
            }
            return oracle;
        }

        long badge(long user) {
            long readAt = lastReadAt.getOrDefault(user, 0L);
            Set<Long> senders = new HashSet<>();
            for (long[] m : messages.getOrDefault(user, List.of())) {
                if (m[0] != user && m[1] > readAt) {
                    senders.add(m[0]);
                }
            }
            return senders.size();
        }
    }
}
