package dev.unread.bench;

import dev.unread.contract.Count;
import dev.unread.contract.RedisEndpoint;
import dev.unread.events.ChatEvent;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.Workload;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;

/**
 * The design the job replaces, measured: the unread sender badge counted on the fly in SQL ({@link
 * #BADGE_QUERY}) on every read, against the job's precomputed badge, one Redis GET.
 *
 * <p>What it models. A chat backend that keeps every message in one MySQL table and, whenever a
 * client shows the badge, counts the distinct senders since the user's last inbox open. The rows
 * are the message records of {@link TrafficGenerator} on a synthetic clock, so the table has the
 * receivers, senders and skew of the traffic the job is benchmarked on; a user's {@code
 * last_read_at} is the {@code readAt} of its latest {@code INBOX_OPENED} among the records
 * generated up to the last row, what {@code user_activity} would hold, kept in memory so that what
 * is timed is the badge query alone. Reads are sampled the way reads happen: the receivers of
 * uniformly drawn message rows (seeded, with replacement), so a user who gets ten times the
 * messages is asked ten times as often.
 *
 * <p>For each row count: a fresh table loaded with {@code LOAD DATA LOCAL INFILE} before any index
 * exists (the fast way to fill it), then for each {@link Index} layout in turn: build it, {@code
 * ANALYZE}, {@code EXPLAIN}, warm up, time the queries, drop it. Last, Redis GETs of {@code
 * {prefix}unread:senders:{id}} for the largest row count's sampled receivers, on one connection.
 *
 * <p>Bounds: a layout that cannot narrow a query to one receiver's recent rows scans a large part
 * of the table per query, so each layout's timed queries stop after 30 s ({@code QUERY_BUDGET}) and
 * {@link IndexRun#queries()} says how many ran.
 */
public final class SqlBaseline {

    private static final Logger LOG = LoggerFactory.getLogger(SqlBaseline.class);

    static final String TABLE = "bench_messages";

    /** The badge of docs/contract.md in SQL: distinct senders but the user since its last open. */
    static final String BADGE_QUERY =
            "SELECT COUNT(DISTINCT sender_id) FROM "
                    + TABLE
                    + " WHERE receiver_id = ? AND sent_at > ? AND sender_id <> ?";

    /**
     * Epoch milliseconds as the events carry them. No primary key: InnoDB clusters the rows by a
     * hidden row id in insertion order, as an auto-increment message id would.
     */
    private static final String CREATE_TABLE =
            "CREATE TABLE "
                    + TABLE
                    + " (receiver_id BIGINT NOT NULL, sent_at BIGINT NOT NULL,"
                    + " sender_id BIGINT NOT NULL) ENGINE=InnoDB";

    /** 2026-01-01T00:00:00Z: where the synthetic clock starts. */
    static final long START_MILLIS = 1_767_225_600_000L;

    /** Any rate gives the same rows in the same order; this one keeps the times readable. */
    static final double RECORDS_PER_SECOND = 1000;

    /**
     * At 10 million rows the layouts that scan average 0.1-0.2 s a query: 30 s still gives them a
     * couple of hundred, and the 1M + 10M run stays near four minutes on two cores.
     */
    static final Duration QUERY_BUDGET = Duration.ofSeconds(30);

    static final Duration WARMUP_BUDGET = Duration.ofSeconds(3);
    static final int WARMUP_QUERIES = 50;

    /** Rows per CSV file: bounds the temporary disk space whatever the row count. */
    static final int CHUNK_ROWS = 1_000_000;

    private static final long SAMPLE_SEED = 0x5e1ec7ed;
    private static final String REDIS_CLIENT = "unread-bench-sql";
    private static final int REDIS_TIMEOUT_MS = 5_000;

    private SqlBaseline() {}

    /** The index layouts compared; each is built alone, so the optimizer can pick nothing else. */
    public enum Index {
        /** One receiver's messages in time order: the query reads its unread range, index only. */
        RECEIVER_TIME_SENDER(
                "composite (receiver_id, sent_at, sender_id)",
                new Key("ix_receiver_time_sender", "receiver_id, sent_at, sender_id")),
        /** Time first: the range on sent_at spans every receiver's messages since that time. */
        TIME_RECEIVER_SENDER(
                "composite (sent_at, receiver_id, sender_id)",
                new Key("ix_time_receiver_sender", "sent_at, receiver_id, sender_id")),
        /** What a table often grows by accretion: one index per column the queries filter on. */
        SINGLE_COLUMNS(
                "single-column indexes on receiver_id, sent_at and sender_id",
                new Key("ix_receiver", "receiver_id"),
                new Key("ix_sent_at", "sent_at"),
                new Key("ix_sender", "sender_id"));

        private final String description;
        private final List<Key> keys;

        Index(String description, Key... keys) {
            this.description = description;
            this.keys = List.of(keys);
        }

        /** Builds this layout's indexes in one statement, so InnoDB reads the table once. */
        public String ddl() {
            return "ALTER TABLE "
                    + TABLE
                    + keys.stream()
                            .map(k -> " ADD INDEX " + k.name + " (" + k.columns + ")")
                            .collect(Collectors.joining(","));
        }

        String dropDdl() {
            return "ALTER TABLE "
                    + TABLE
                    + keys.stream()
                            .map(k -> " DROP INDEX " + k.name)
                            .collect(Collectors.joining(","));
        }

        public String describe() {
            return description;
        }

        /** The index names, as EXPLAIN's {@code key} column shows them. */
        public List<String> keyNames() {
            return keys.stream().map(Key::name).toList();
        }
    }

    private record Key(String name, String columns) {}

    /**
     * One layout at one row count.
     *
     * @param explain the plan for the busiest receiver, then which key the plans of the timed
     *     queries used and how often
     * @param queries queries timed, fewer than asked when the layout's 30 s ran out
     */
    public record IndexRun(
            long rows,
            Index index,
            String explain,
            int queries,
            double p50Micros,
            double p99Micros,
            double meanMicros) {}

    /**
     * @param loadSeconds per row count, the time LOAD DATA took, not generating the rows
     */
    public record Result(
            List<IndexRun> runs,
            Map<Long, Double> loadSeconds,
            double redisP50Micros,
            double redisP99Micros) {}

    /** A loaded table and what the timed reads need to know about it. */
    record Loaded(
            long rows,
            double loadSeconds,
            long busiestReceiver,
            long[] sample,
            Map<Long, Long> lastReadAt) {

        long lastReadAt(long user) {
            return lastReadAt.getOrDefault(user, 0L);
        }
    }

    /**
     * One row of EXPLAIN, the columns that say how the rows are found. {@code rows} is text: with a
     * rowid filter MariaDB shows the filter's share there too, as in {@code 121 (7%)}.
     */
    record Plan(String type, String key, String rows, String extra) {
        @Override
        public String toString() {
            return "type=" + type + " key=" + key + " rows=" + rows + " Extra=" + extra;
        }
    }

    /**
     * Measures every layout at every row count, then Redis, and drops the table.
     *
     * @param rowCounts message rows per table, each loaded afresh
     * @param queries timed queries per layout and for Redis, after a short warm-up
     */
    public static Result run(
            String jdbcUrl,
            String user,
            String password,
            List<Long> rowCounts,
            Workload workload,
            int queries,
            String redisUrl,
            String redisKeyPrefix)
            throws Exception {
        if (rowCounts.isEmpty() || rowCounts.stream().anyMatch(n -> n < 1)) {
            throw new IllegalArgumentException("row counts must be >= 1, were " + rowCounts);
        }
        if (new HashSet<>(rowCounts).size() != rowCounts.size()) {
            throw new IllegalArgumentException("row counts must differ, were " + rowCounts);
        }
        if (queries < 1) {
            throw new IllegalArgumentException("queries must be >= 1, was " + queries);
        }
        List<IndexRun> runs = new ArrayList<>();
        Map<Long, Double> loadSeconds = new LinkedHashMap<>();
        // Connected first, so that an unreachable Redis fails the run before minutes of SQL.
        try (Jedis jedis =
                        RedisEndpoint.of(redisUrl, "", "").connect(REDIS_CLIENT, REDIS_TIMEOUT_MS);
                Connection c = connect(jdbcUrl, user, password)) {
            jedis.ping();
            Loaded largest = null;
            try {
                for (long rows : rowCounts) {
                    Loaded loaded = load(c, workload, rows, WARMUP_QUERIES + queries);
                    loadSeconds.put(rows, loaded.loadSeconds());
                    for (Index index : Index.values()) {
                        runs.add(measure(c, loaded, index, queries));
                    }
                    if (largest == null || rows > largest.rows()) {
                        largest = loaded;
                    }
                }
            } finally {
                cleanUp(c);
            }
            double[] redis = timeRedis(jedis, redisKeyPrefix, largest.sample());
            return new Result(
                    List.copyOf(runs),
                    Collections.unmodifiableMap(loadSeconds),
                    Percentiles.nearestRank(redis, 50),
                    Percentiles.nearestRank(redis, 99));
        }
    }

    /**
     * A connection that may send local files (LOAD DATA LOCAL) and prepares on the server: the
     * badge query is parsed once, the fairest case for SQL.
     */
    static Connection connect(String jdbcUrl, String user, String password) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        if (password != null) {
            properties.setProperty("password", password);
        }
        properties.setProperty("allowLoadLocalInfile", "true");
        properties.setProperty("useServerPrepStmts", "true");
        return DriverManager.getConnection(jdbcUrl, properties);
    }

    /**
     * Replaces the table with {@code rows} generated message rows and no index, and draws {@code
     * samples} receivers the way reads come.
     */
    static Loaded load(Connection c, Workload workload, long rows, int samples)
            throws SQLException, IOException {
        cleanUp(c);
        execute(c, CREATE_TABLE);
        long[] sample = new long[samples];
        // Row numbers to sample, visited in order while the rows stream past; each fills its slot.
        SplittableRandom random = new SplittableRandom(SAMPLE_SEED ^ workload.seed());
        long[] pick = random.longs(samples, 0, rows).toArray();
        int[] slots =
                IntStream.range(0, samples)
                        .boxed()
                        .sorted((a, b) -> Long.compare(pick[a], pick[b]))
                        .mapToInt(Integer::intValue)
                        .toArray();
        int nextSlot = 0;

        TrafficGenerator traffic = traffic(workload);
        Map<Long, Long> lastReadAt = new HashMap<>();
        Path csv = Files.createTempFile(TABLE, ".csv");
        long written = 0;
        long loadNanos = 0;
        try {
            while (written < rows) {
                long chunkEnd = Math.min(rows, written + CHUNK_ROWS);
                try (BufferedWriter out = Files.newBufferedWriter(csv)) {
                    while (written < chunkEnd) {
                        ChatEvent event = traffic.next().event();
                        if (event == null) {
                            continue;
                        }
                        if (event.kind == ChatEvent.Kind.INBOX_OPENED) {
                            lastReadAt.merge(event.userId, event.time, Math::max);
                        } else if (event.kind == ChatEvent.Kind.MESSAGE) {
                            out.write(
                                    event.userId + "," + event.time + "," + event.senderId + "\n");
                            while (nextSlot < samples && pick[slots[nextSlot]] == written) {
                                sample[slots[nextSlot++]] = event.userId;
                            }
                            written++;
                        }
                    }
                }
                long start = System.nanoTime();
                execute(c, loadData(csv));
                loadNanos += System.nanoTime() - start;
            }
        } finally {
            Files.deleteIfExists(csv);
        }
        double seconds = loadNanos / 1e9;
        LOG.info("{} rows loaded in {} s", rows, String.format("%.1f", seconds));
        return new Loaded(rows, seconds, traffic.mostActiveReceiver(), sample, lastReadAt);
    }

    private static String loadData(Path csv) {
        String path = csv.toAbsolutePath().toString().replace("\\", "\\\\").replace("'", "\\'");
        return "LOAD DATA LOCAL INFILE '"
                + path
                + "' INTO TABLE "
                + TABLE
                + " FIELDS TERMINATED BY ',' LINES TERMINATED BY '\\n'"
                + " (receiver_id, sent_at, sender_id)";
    }

    /** The traffic the rows come from: the same workload gives the same rows on every run. */
    static TrafficGenerator traffic(Workload workload) {
        return TrafficGenerator.synthetic(workload, START_MILLIS, RECORDS_PER_SECOND);
    }

    static IndexRun measure(Connection c, Loaded loaded, Index index, int queries)
            throws SQLException {
        long start = System.nanoTime();
        execute(c, index.ddl());
        // Fresh statistics, or the optimizer would judge the new index by an empty table's.
        execute(c, "ANALYZE TABLE " + TABLE);
        LOG.info(
                "{} rows: {} built in {} s",
                loaded.rows(),
                index,
                String.format("%.1f", (System.nanoTime() - start) / 1e9));
        try (PreparedStatement badge = c.prepareStatement(BADGE_QUERY)) {
            long[] sample = loaded.sample();
            long warmupEnd = System.nanoTime() + WARMUP_BUDGET.toNanos();
            for (int i = 0; i < WARMUP_QUERIES && System.nanoTime() < warmupEnd; i++) {
                badge(badge, sample[i], loaded.lastReadAt(sample[i]));
            }
            double[] micros = new double[queries];
            int done = 0;
            long end = System.nanoTime() + QUERY_BUDGET.toNanos();
            do {
                long receiver = sample[WARMUP_QUERIES + done];
                long lastReadAt = loaded.lastReadAt(receiver);
                long t = System.nanoTime();
                badge(badge, receiver, lastReadAt);
                micros[done++] = (System.nanoTime() - t) / 1e3;
            } while (done < queries && System.nanoTime() < end);
            micros = Arrays.copyOf(micros, done);
            long[] timed = Arrays.copyOfRange(sample, WARMUP_QUERIES, WARMUP_QUERIES + done);
            String explain = explain(c, loaded, timed);
            return new IndexRun(
                    loaded.rows(),
                    index,
                    explain,
                    done,
                    Percentiles.nearestRank(micros, 50),
                    Percentiles.nearestRank(micros, 99),
                    Arrays.stream(micros).average().orElseThrow());
        } finally {
            execute(c, index.dropDdl());
        }
    }

    /**
     * The busiest receiver's plan in full, then the keys the timed queries' plans chose: with
     * several indexes the optimizer picks per query, by how selective each range looks.
     */
    static String explain(Connection c, Loaded loaded, long[] timed) throws SQLException {
        try (PreparedStatement explain = c.prepareStatement("EXPLAIN " + BADGE_QUERY)) {
            long busiest = loaded.busiestReceiver();
            Plan plan = plan(explain, busiest, loaded.lastReadAt(busiest));
            Map<String, Integer> keys = new TreeMap<>();
            for (long receiver : timed) {
                Plan timedPlan = plan(explain, receiver, loaded.lastReadAt(receiver));
                keys.merge(String.valueOf(timedPlan.key()), 1, Integer::sum);
            }
            return "receiver "
                    + busiest
                    + " after "
                    + loaded.lastReadAt(busiest)
                    + ": "
                    + plan
                    + "; keys over "
                    + timed.length
                    + " timed queries: "
                    + keys.entrySet().stream()
                            .map(e -> e.getKey() + " x" + e.getValue())
                            .collect(Collectors.joining(", "));
        }
    }

    static Plan plan(PreparedStatement explain, long receiver, long lastReadAt)
            throws SQLException {
        bind(explain, receiver, lastReadAt);
        try (ResultSet rs = explain.executeQuery()) {
            rs.next();
            return new Plan(
                    rs.getString("type"),
                    rs.getString("key"),
                    rs.getString("rows"),
                    rs.getString("Extra"));
        }
    }

    /** The badge of {@code receiver} as the SQL design reads it. */
    static long badge(PreparedStatement badge, long receiver, long lastReadAt) throws SQLException {
        bind(badge, receiver, lastReadAt);
        try (ResultSet rs = badge.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void bind(PreparedStatement st, long receiver, long lastReadAt)
            throws SQLException {
        st.setLong(1, receiver);
        st.setLong(2, lastReadAt);
        st.setLong(3, receiver);
    }

    /** The badge of {@code receiver} as the job's readers read it; null when the key is absent. */
    static String badge(Jedis jedis, String keyPrefix, long receiver) {
        return jedis.get(Count.SENDERS.key(keyPrefix, receiver));
    }

    /** Microseconds per GET for the timed part of {@code sample}, after the same warm-up. */
    static double[] timeRedis(Jedis jedis, String keyPrefix, long[] sample) {
        for (int i = 0; i < WARMUP_QUERIES; i++) {
            badge(jedis, keyPrefix, sample[i]);
        }
        double[] micros = new double[sample.length - WARMUP_QUERIES];
        for (int i = 0; i < micros.length; i++) {
            long t = System.nanoTime();
            badge(jedis, keyPrefix, sample[WARMUP_QUERIES + i]);
            micros[i] = (System.nanoTime() - t) / 1e3;
        }
        return micros;
    }

    /** Drops the table; safe when it is already gone. */
    static void cleanUp(Connection c) throws SQLException {
        execute(c, "DROP TABLE IF EXISTS " + TABLE);
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
