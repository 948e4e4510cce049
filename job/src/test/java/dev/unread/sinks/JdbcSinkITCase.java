package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.MySqlSchema;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import dev.unread.testing.MySqlTestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TimeZone;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sinks of {@link MySqlCursors} in real Flink jobs on a MiniCluster against the real server:
 * proof that the JDBC connector built for Flink 2.0 runs on the Flink this project uses, that the
 * tables appear by themselves, that any order and any duplicates of cursors end at their greatest
 * values, and that a lost connection or an unreachable database loses no write.
 */
class JdbcSinkITCase {

    private static final int PARALLELISM = 2;

    /** 2026-01-01T00:00:00Z. */
    private static final long NEW_YEAR = 1_767_225_600_000L;

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final DateTimeFormatter DATETIME_3 =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(PARALLELISM)
                            .build());

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

    @BeforeEach
    void noTables() throws SQLException {
        db.dropTables();
        Gate.reset();
    }

    /** A failed test must not leave a job holding the cluster's slots for the next one. */
    @AfterEach
    void cancelUnfinishedJobs(@InjectMiniCluster MiniCluster cluster) throws Exception {
        for (JobStatusMessage job : cluster.listJobs().get()) {
            if (!job.getJobState().isGloballyTerminalState()) {
                cluster.cancelJob(job.getJobId()).get();
            }
        }
    }

    @Test
    void shuffledDuplicatedCursorsEndAsTheirGreatestInTablesTheSinksCreate() throws Exception {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        List<InboxCursor> inbox = new ArrayList<>();
        List<ConversationCursor> conversations = new ArrayList<>();
        Map<Long, Long> lastReadAt = new TreeMap<>();
        Map<String, long[]> lastRead = new TreeMap<>();
        for (int i = 0; i < 3_000; i++) {
            long user = 1 + random.nextInt(50);
            long readAt = NEW_YEAR + random.nextInt(1_000_000);
            inbox.add(new InboxCursor(user, readAt));
            lastReadAt.merge(user, readAt, Math::max);

            long conversation = 1 + random.nextInt(10);
            long seq = 1 + random.nextInt(10_000);
            conversations.add(new ConversationCursor(user, conversation, seq, unreadAfter(seq)));
            lastRead.merge(
                    String.format("%03d/%03d", conversation, user),
                    new long[] {conversation, user, seq},
                    (a, b) -> a[2] >= b[2] ? a : b);
        }
        inbox.addAll(new ArrayList<>(inbox));
        conversations.addAll(new ArrayList<>(conversations));
        Collections.shuffle(inbox, random);
        Collections.shuffle(conversations, random);
        assertThat(db.tableExists(MySqlSchema.USER_ACTIVITY)).isFalse();
        assertThat(db.tableExists(MySqlSchema.CONVERSATION_MEMBER)).isFalse();

        run(db.config(), inbox, conversations);

        List<List<String>> expectedInbox = new ArrayList<>();
        lastReadAt.forEach((user, at) -> expectedInbox.add(List.of(user.toString(), datetime(at))));
        List<List<String>> expectedMembers = new ArrayList<>();
        for (long[] read : lastRead.values()) {
            expectedMembers.add(
                    List.of(
                            Long.toString(read[0]),
                            Long.toString(read[1]),
                            Long.toString(read[2]),
                            Long.toString(unreadAfter(read[2]))));
        }
        assertThat(userActivity()).as("seed %d", seed).isEqualTo(expectedInbox);
        assertThat(conversationMembers()).as("seed %d", seed).isEqualTo(expectedMembers);

        // A replay after a restore: everything again, plus older cursors, changes nothing, not
        // even the time of the last change.
        List<List<String>> withUpdatedAt = userActivityWithUpdatedAt();
        List<InboxCursor> olderInbox = new ArrayList<>(inbox);
        lastReadAt.forEach((user, at) -> olderInbox.add(new InboxCursor(user, at - 1)));
        List<ConversationCursor> olderConversations = new ArrayList<>(conversations);
        for (long[] read : lastRead.values()) {
            olderConversations.add(new ConversationCursor(read[1], read[0], read[2] - 1, 999));
            olderConversations.add(new ConversationCursor(read[1], read[0], read[2], 999));
        }
        run(db.config(), olderInbox, olderConversations);

        assertThat(userActivityWithUpdatedAt()).as("seed %d", seed).isEqualTo(withUpdatedAt);
        assertThat(conversationMembers()).as("seed %d", seed).isEqualTo(expectedMembers);
    }

    @Test
    void datetimesAreUtcWhateverTheJvmAndSessionTimeZones() throws Exception {
        TimeZone jvmTimeZone = TimeZone.getDefault();
        LocalDateTime before;
        try {
            // The task threads of the MiniCluster run in this JVM.
            TimeZone.setDefault(TimeZone.getTimeZone("America/Los_Angeles"));
            before = LocalDateTime.now(ZoneOffset.UTC);
            run(
                    db.config(MySqlTestDatabase.SESSION_IN_TOKYO),
                    List.of(new InboxCursor(7, NEW_YEAR + 123), new InboxCursor(8, NEW_YEAR - 1)),
                    List.of());
        } finally {
            TimeZone.setDefault(jvmTimeZone);
        }
        LocalDateTime after = LocalDateTime.now(ZoneOffset.UTC);

        List<List<String>> rows = userActivityWithUpdatedAt();
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0).subList(0, 2)).containsExactly("7", "2026-01-01 00:00:00.123");
        assertThat(rows.get(1).subList(0, 2)).containsExactly("8", "2025-12-31 23:59:59.999");
        for (List<String> row : rows) {
            // The clocks of the JVM and the server are the same host's.
            assertThat(LocalDateTime.parse(row.get(2).replace(' ', 'T')))
                    .isBetween(before.minusSeconds(1), after.plusSeconds(1));
        }
    }

    @Test
    void aConnectionLostBetweenBatchesIsReopenedAndTheBatchRetried(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        List<ConversationCursor> cursors = cursorsThroughTheGate();
        JobClient job = start(db.config(), cursors);
        awaitRows(Gate.AT - 1);
        assertThat(db.killUserConnections()).as("connections of the sink").isPositive();

        Gate.open();
        job.getJobExecutionResult().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        assertThat(conversationMembers()).isEqualTo(expectedRows(cursors));
        assertThat(highestAttempt(cluster, job.getJobID())).as("restarts").isZero();
    }

    /**
     * Also proves that the failed task's writer closes without taking the TaskManager down: the
     * MiniCluster has one, and the restarted job needs it.
     */
    @Test
    void aDatabaseGoneLongerThanTheRetriesFailsTheTaskAndTheRestartWritesEverything(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        List<ConversationCursor> cursors = cursorsThroughTheGate();
        JobClient job = start(db.config(), cursors);
        awaitRows(Gate.AT - 1);
        db.lockUser(true);
        try {
            db.killUserConnections();
            Gate.open();
            Instant deadline = Instant.now().plus(TIMEOUT);
            // Attempt 1 fails too, opening its writer on the locked database.
            while (highestAttempt(cluster, job.getJobID()) < 2) {
                assertThat(Instant.now()).as("the task fails and restarts").isBefore(deadline);
            }
        } finally {
            db.lockUser(false);
        }
        job.getJobExecutionResult().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        assertThat(conversationMembers()).isEqualTo(expectedRows(cursors));
    }

    // ---- jobs ----

    private static StreamExecutionEnvironment environment(int parallelism) {
        Configuration conf = new Configuration();
        // As in production (UnreadJob.settings): records are reused and POJOs must not fall back
        // to Kryo, so the connector's copying of buffered records is exercised as it runs there.
        conf.set(PipelineOptions.OBJECT_REUSE, true);
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 100);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.configure(conf);
        env.setParallelism(parallelism);
        return env;
    }

    private static void run(
            UnreadConfig config, List<InboxCursor> inbox, List<ConversationCursor> conversations)
            throws Exception {
        StreamExecutionEnvironment env = environment(PARALLELISM);
        if (!inbox.isEmpty()) {
            env.fromData(inbox).sinkTo(MySqlCursors.userActivity(config)).name("user_activity");
        }
        if (!conversations.isEmpty()) {
            env.fromData(conversations)
                    .sinkTo(MySqlCursors.conversationMember(config))
                    .name("conversation_member");
        }
        env.execute("cursors to MySQL");
    }

    /** Starts a job that writes {@code cursors} and pauses at the {@link Gate}. */
    private static JobClient start(UnreadConfig config, List<ConversationCursor> cursors)
            throws Exception {
        StreamExecutionEnvironment env = environment(1);
        env.fromData(cursors)
                .map(new Gate())
                .sinkTo(MySqlCursors.conversationMember(config))
                .name("conversation_member");
        return env.executeAsync("cursors to MySQL through a gate");
    }

    /** The highest attempt number of any task of the job: above 0 once a task was restarted. */
    private static int highestAttempt(MiniCluster cluster, JobID job) throws Exception {
        int highest = 0;
        for (AccessExecutionVertex vertex :
                cluster.getExecutionGraph(job).get().getAllExecutionVertices()) {
            highest = Math.max(highest, vertex.getCurrentExecutionAttempt().getAttemptNumber());
        }
        return highest;
    }

    /**
     * Holds back the cursor of conversation {@link #AT} in the first attempt of its task until the
     * test opens it, so the test can break the database between two batches. A static latch reaches
     * the MiniCluster's tasks because they run in this JVM.
     */
    static final class Gate extends RichMapFunction<ConversationCursor, ConversationCursor> {
        static final int AT = 100;
        private static volatile CountDownLatch opened = new CountDownLatch(1);

        private transient int attempt;

        static void reset() {
            opened = new CountDownLatch(1);
        }

        static void open() {
            opened.countDown();
        }

        @Override
        public void open(OpenContext context) {
            attempt = getRuntimeContext().getTaskInfo().getAttemptNumber();
        }

        @Override
        public ConversationCursor map(ConversationCursor cursor) throws InterruptedException {
            if (cursor.conversationId == AT && attempt == 0) {
                assertThat(opened.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                        .as("gate opened")
                        .isTrue();
            }
            return cursor;
        }
    }

    /** Cursors of conversations 1..2·AT in order: those before AT are written before the gate. */
    private static List<ConversationCursor> cursorsThroughTheGate() {
        List<ConversationCursor> cursors = new ArrayList<>();
        for (long conversation = 1; conversation <= 2 * Gate.AT; conversation++) {
            cursors.add(new ConversationCursor(10086, conversation, conversation * 10, 3));
        }
        return cursors;
    }

    private static List<List<String>> expectedRows(List<ConversationCursor> cursors) {
        List<List<String>> rows = new ArrayList<>();
        for (ConversationCursor c : cursors) {
            rows.add(
                    List.of(
                            Long.toString(c.conversationId),
                            Long.toString(c.userId),
                            Long.toString(c.lastReadSeq),
                            Long.toString(c.unreadCount)));
        }
        return rows;
    }

    /** Polls until the sink has written the rows before the gate; it flushes every 200 ms. */
    private static void awaitRows(int count) throws SQLException {
        Instant deadline = Instant.now().plus(TIMEOUT);
        String rows =
                "SELECT COUNT(*) FROM information_schema.tables t"
                        + " WHERE t.table_schema = DATABASE() AND t.table_name = '"
                        + MySqlSchema.CONVERSATION_MEMBER
                        + "'";
        try (Connection c = db.connect()) {
            while (MySqlTestDatabase.queryLong(c, rows) == 0
                    || MySqlTestDatabase.queryLong(c, "SELECT COUNT(*) FROM conversation_member")
                            < count) {
                assertThat(Instant.now()).as("%d rows written", count).isBefore(deadline);
            }
        }
        assertThat(db.queryLong("SELECT COUNT(*) FROM conversation_member")).isEqualTo(count);
    }

    // ---- reading ----

    private static List<List<String>> userActivity() throws SQLException {
        return db.rows(
                "SELECT user_id, CAST(last_read_at AS CHAR) FROM user_activity ORDER BY user_id");
    }

    private static List<List<String>> userActivityWithUpdatedAt() throws SQLException {
        return db.rows(
                "SELECT user_id, CAST(last_read_at AS CHAR), CAST(updated_at AS CHAR)"
                        + " FROM user_activity ORDER BY user_id");
    }

    private static List<List<String>> conversationMembers() throws SQLException {
        return db.rows(
                "SELECT conversation_id, user_id, last_read_seq, unread_count"
                        + " FROM conversation_member ORDER BY conversation_id, user_id");
    }

    private static String datetime(long epochMillis) {
        return DATETIME_3.format(Instant.ofEpochMilli(epochMillis));
    }

    /** The unread count a read up to {@code seq} leaves: one value per seq, as the job's is. */
    private static long unreadAfter(long seq) {
        return (seq * 7919) % 97;
    }
}
