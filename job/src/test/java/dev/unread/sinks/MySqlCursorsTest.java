package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.MySqlSchema;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import dev.unread.testing.MySqlTestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.datasource.statements.JdbcQueryStatement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The upserts and the schema of {@link MySqlCursors} on the real server, written the way the
 * connector writes them (bound, added to a batch, the batch executed on a connection with the
 * sink's own properties) but without Flink, so each case controls exactly what reaches the table.
 *
 * <p>Neither the JVM nor the database session runs in UTC here, so any time zone conversion would
 * show in the DATETIME columns.
 */
class MySqlCursorsTest {

    private static final long USER = 10086;
    private static final long CONVERSATION = 80001;

    /** 2026-01-01T00:00:00Z. */
    private static final long NEW_YEAR = 1_767_225_600_000L;

    private static MySqlTestDatabase db;
    private static TimeZone jvmTimeZone;

    @BeforeAll
    static void createDatabase() throws SQLException {
        jvmTimeZone = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("America/Los_Angeles"));
        db = MySqlTestDatabase.create();
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        TimeZone.setDefault(jvmTimeZone);
        if (db != null) {
            db.close();
        }
    }

    @BeforeEach
    void freshTables() throws SQLException {
        db.dropTables();
        try (Connection c = sinkConnection();
                Statement st = c.createStatement()) {
            st.execute(MySqlSchema.CREATE_USER_ACTIVITY);
            st.execute(MySqlSchema.CREATE_CONVERSATION_MEMBER);
        }
    }

    @Test
    void replayingAnOlderInboxCursorNeverMovesLastReadAtBack() throws SQLException {
        writeInbox(new InboxCursor(USER, NEW_YEAR + 5_000));
        String updatedAt = updatedAt(USER);

        writeInbox(new InboxCursor(USER, NEW_YEAR + 1_000));
        writeInbox(new InboxCursor(USER, NEW_YEAR + 5_000));

        assertThat(lastReadAt(USER)).isEqualTo("2026-01-01 00:00:05.000");
        assertThat(updatedAt(USER)).isEqualTo(updatedAt);
    }

    @Test
    void updatedAtMovesOnlyWhenLastReadAtAdvances() throws SQLException {
        writeInbox(new InboxCursor(USER, NEW_YEAR));
        String first = updatedAt(USER);

        awaitServerClockPast(first);
        writeInbox(new InboxCursor(USER, NEW_YEAR));
        writeInbox(new InboxCursor(USER, NEW_YEAR - 1));
        assertThat(updatedAt(USER)).isEqualTo(first);

        writeInbox(new InboxCursor(USER, NEW_YEAR + 1));
        assertThat(updatedAt(USER)).isGreaterThan(first);
        assertThat(lastReadAt(USER)).isEqualTo("2026-01-01 00:00:00.001");
    }

    @Test
    void datetimesAreUtcWhateverTheJvmAndSessionTimeZones() throws SQLException {
        try (Connection c = sinkConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT @@session.time_zone")) {
            rs.next();
            assertThat(rs.getString(1)).isEqualTo("+09:00");
        }
        assertThat(TimeZone.getDefault().getRawOffset()).isNotZero();
        LocalDateTime before = LocalDateTime.now(ZoneOffset.UTC);

        writeInbox(new InboxCursor(USER, NEW_YEAR + 123));

        LocalDateTime after = LocalDateTime.now(ZoneOffset.UTC);
        assertThat(lastReadAt(USER)).isEqualTo("2026-01-01 00:00:00.123");
        // The clocks of the JVM and the server are the same host's.
        assertThat(LocalDateTime.parse(updatedAt(USER).replace(' ', 'T')))
                .isBetween(before.minusSeconds(1), after.plusSeconds(1));
    }

    @Test
    void replayingAnOlderConversationCursorLeavesSeqAndUnreadCount() throws SQLException {
        writeConversation(new ConversationCursor(USER, CONVERSATION, 1038, 4));

        writeConversation(new ConversationCursor(USER, CONVERSATION, 1000, 42));

        assertThat(member(USER, CONVERSATION)).containsExactly("1038", "4");
    }

    @Test
    void anEqualReadSeqLeavesUnreadCountAlone() throws SQLException {
        writeConversation(new ConversationCursor(USER, CONVERSATION, 1038, 4));

        writeConversation(new ConversationCursor(USER, CONVERSATION, 1038, 7));

        assertThat(member(USER, CONVERSATION)).containsExactly("1038", "4");
    }

    @Test
    void aGreaterReadSeqReplacesUnreadCountWhateverItsValue() throws SQLException {
        writeConversation(new ConversationCursor(USER, CONVERSATION, 1038, 4));

        // Messages that arrived since may leave more unread after a later read, not only fewer.
        writeConversation(new ConversationCursor(USER, CONVERSATION, 1040, 9));
        assertThat(member(USER, CONVERSATION)).containsExactly("1040", "9");

        writeConversation(new ConversationCursor(USER, CONVERSATION, 1050, 0));
        assertThat(member(USER, CONVERSATION)).containsExactly("1050", "0");
    }

    @Test
    void cursorsOfOneUserInOtherConversationsAreSeparateRows() throws SQLException {
        writeConversation(
                new ConversationCursor(USER, CONVERSATION, 1038, 4),
                new ConversationCursor(USER, CONVERSATION + 1, 7, 1),
                new ConversationCursor(USER + 1, CONVERSATION, 2, 30));

        assertThat(member(USER, CONVERSATION)).containsExactly("1038", "4");
        assertThat(member(USER, CONVERSATION + 1)).containsExactly("7", "1");
        assertThat(member(USER + 1, CONVERSATION)).containsExactly("2", "30");
    }

    @Test
    void shuffledBatchesWithDuplicatesEndAtTheGreatestCursors() throws SQLException {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        List<InboxCursor> inbox = new ArrayList<>();
        List<ConversationCursor> conversations = new ArrayList<>();
        Map<Long, Long> lastReadAt = new TreeMap<>();
        Map<List<Long>, Long> lastReadSeq = new TreeMap<>(MySqlCursorsTest::compareKeys);
        for (int i = 0; i < 2_000; i++) {
            long user = 1 + random.nextInt(20);
            long readAt = NEW_YEAR + random.nextInt(100_000);
            inbox.add(new InboxCursor(user, readAt));
            lastReadAt.merge(user, readAt, Math::max);

            long conversation = 1 + random.nextInt(5);
            long seq = 1 + random.nextInt(500);
            conversations.add(new ConversationCursor(user, conversation, seq, unreadAfter(seq)));
            lastReadSeq.merge(List.of(conversation, user), seq, Math::max);
        }
        // Every cursor twice, in any order, in batches of any size, as replays deliver them.
        inbox.addAll(new ArrayList<>(inbox));
        conversations.addAll(new ArrayList<>(conversations));
        Collections.shuffle(inbox, random);
        Collections.shuffle(conversations, random);
        for (List<InboxCursor> batch : batches(inbox, random)) {
            writeInbox(batch.toArray(new InboxCursor[0]));
        }
        for (List<ConversationCursor> batch : batches(conversations, random)) {
            writeConversation(batch.toArray(new ConversationCursor[0]));
        }

        List<List<String>> expectedInbox = new ArrayList<>();
        lastReadAt.forEach((user, at) -> expectedInbox.add(List.of(user.toString(), datetime(at))));
        List<List<String>> expectedMembers = new ArrayList<>();
        lastReadSeq.forEach(
                (key, seq) ->
                        expectedMembers.add(
                                List.of(
                                        key.get(0).toString(),
                                        key.get(1).toString(),
                                        seq.toString(),
                                        Long.toString(unreadAfter(seq)))));
        assertThat(
                        db.rows(
                                "SELECT user_id, CAST(last_read_at AS CHAR) FROM user_activity"
                                        + " ORDER BY user_id"))
                .as("seed %d", seed)
                .isEqualTo(expectedInbox);
        assertThat(
                        db.rows(
                                "SELECT conversation_id, user_id, last_read_seq, unread_count"
                                        + " FROM conversation_member ORDER BY conversation_id, user_id"))
                .as("seed %d", seed)
                .isEqualTo(expectedMembers);
    }

    @Test
    void valuesBeyondTheColumnsAreClampedRatherThanRefused() throws SQLException {
        writeInbox(new InboxCursor(USER, Long.MAX_VALUE));
        writeConversation(new ConversationCursor(USER, CONVERSATION, Long.MAX_VALUE, 1L << 40));

        assertThat(lastReadAt(USER)).isEqualTo("9999-12-31 23:59:59.999");
        assertThat(member(USER, CONVERSATION))
                .containsExactly(
                        Long.toString(Long.MAX_VALUE), Integer.toString(Integer.MAX_VALUE));
    }

    @Test
    void schemaHasTheContractsColumnsAndCanBeCreatedAgain() throws SQLException {
        try (Connection c = sinkConnection();
                Statement st = c.createStatement()) {
            st.execute(MySqlSchema.CREATE_USER_ACTIVITY);
            st.execute(MySqlSchema.CREATE_CONVERSATION_MEMBER);
        }

        assertThat(columns(MySqlSchema.USER_ACTIVITY))
                .containsExactly(
                        List.of("user_id", "bigint", "NO", "PRI", "null", "null"),
                        List.of("last_read_at", "datetime", "NO", "", "3", "null"),
                        List.of("updated_at", "datetime", "NO", "", "3", "null"));
        assertThat(columns(MySqlSchema.CONVERSATION_MEMBER))
                .containsExactly(
                        List.of("conversation_id", "bigint", "NO", "PRI", "null", "null"),
                        List.of("user_id", "bigint", "NO", "PRI", "null", "null"),
                        List.of("last_read_seq", "bigint", "NO", "", "null", "0"),
                        List.of("unread_count", "int", "NO", "", "null", "0"));
    }

    @Test
    void conversationMemberIsCreatedWithItsUserIndex() throws Exception {
        try (Connection c = sinkConnection()) {
            MySqlSchema.create(c, MySqlSchema.CONVERSATION_MEMBER);
            MySqlSchema.create(c, MySqlSchema.CONVERSATION_MEMBER);
        }
        assertThat(userIndex()).containsExactly(List.of("ix_conversation_member_user", "user_id"));
    }

    @Test
    void twoWritersStartingAtOnceAddTheIndexToATableThatLacksIt() throws Exception {
        try (Connection c = sinkConnection();
                Statement st = c.createStatement()) {
            // The table as the job's first release created it.
            st.execute("DROP TABLE conversation_member");
            st.execute(
                    "CREATE TABLE conversation_member (conversation_id BIGINT NOT NULL,"
                            + " user_id BIGINT NOT NULL, last_read_seq BIGINT NOT NULL DEFAULT 0,"
                            + " unread_count INT NOT NULL DEFAULT 0,"
                            + " PRIMARY KEY (conversation_id, user_id))");
            st.execute("INSERT INTO conversation_member VALUES (80001, 10086, 5, 1)");
        }
        assertThat(userIndex()).isEmpty();

        CyclicBarrier start = new CyclicBarrier(2);
        ExecutorService writers = Executors.newFixedThreadPool(2);
        try {
            List<Future<Object>> opened =
                    writers.invokeAll(List.of(() -> openWriter(start), () -> openWriter(start)));
            for (Future<Object> writer : opened) {
                writer.get();
            }
        } finally {
            writers.shutdownNow();
        }

        assertThat(userIndex()).containsExactly(List.of("ix_conversation_member_user", "user_id"));
        assertThat(member(10086, 80001)).containsExactly("5", "1");
    }

    private static Object openWriter(CyclicBarrier start) throws Exception {
        try (Connection c = sinkConnection()) {
            start.await();
            MySqlSchema.create(c, MySqlSchema.CONVERSATION_MEMBER);
        }
        return null;
    }

    /** The indexes on conversation_member other than its primary key, with their columns. */
    private static List<List<String>> userIndex() throws SQLException {
        return db.rows(
                "SELECT index_name, column_name FROM information_schema.statistics"
                        + " WHERE table_schema = '"
                        + db.name
                        + "' AND table_name = 'conversation_member'"
                        + " AND index_name <> 'PRIMARY' ORDER BY index_name, seq_in_index");
    }

    // ---- writing as the connector does ----

    private static Connection sinkConnection() throws SQLException {
        JdbcConnectionOptions options =
                MySqlCursors.connectionOptions(db.config(MySqlTestDatabase.SESSION_IN_TOKYO));
        return DriverManager.getConnection(options.getDbURL(), options.getProperties());
    }

    private static void writeInbox(InboxCursor... cursors) throws SQLException {
        write(new MySqlCursors.UserActivityUpsert(), List.of(cursors));
    }

    private static void writeConversation(ConversationCursor... cursors) throws SQLException {
        write(new MySqlCursors.ConversationMemberUpsert(), List.of(cursors));
    }

    /** What the connector's batch executor does with one batch. */
    private static <T> void write(JdbcQueryStatement<T> upsert, List<T> batch) throws SQLException {
        try (Connection c = sinkConnection();
                PreparedStatement ps = c.prepareStatement(upsert.query())) {
            for (T record : batch) {
                upsert.statement(ps, record);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    // ---- reading ----

    private static String lastReadAt(long user) throws SQLException {
        return single(
                "SELECT CAST(last_read_at AS CHAR) FROM user_activity WHERE user_id = " + user);
    }

    private static String updatedAt(long user) throws SQLException {
        return single("SELECT CAST(updated_at AS CHAR) FROM user_activity WHERE user_id = " + user);
    }

    private static List<String> member(long user, long conversation) throws SQLException {
        List<List<String>> rows =
                db.rows(
                        "SELECT last_read_seq, unread_count FROM conversation_member"
                                + " WHERE user_id = "
                                + user
                                + " AND conversation_id = "
                                + conversation);
        assertThat(rows).hasSize(1);
        return rows.get(0);
    }

    private static String single(String sql) throws SQLException {
        List<List<String>> rows = db.rows(sql);
        assertThat(rows).hasSize(1);
        return rows.get(0).get(0);
    }

    private static List<List<String>> columns(String table) throws SQLException {
        return db.rows(
                "SELECT column_name, data_type, is_nullable, column_key,"
                        + " COALESCE(datetime_precision, 'null'), COALESCE(column_default, 'null')"
                        + " FROM information_schema.columns"
                        + " WHERE table_schema = '"
                        + db.name
                        + "' AND table_name = '"
                        + table
                        + "' ORDER BY ordinal_position");
    }

    /** Polls until the server's UTC clock reads later than {@code datetime}. */
    private static void awaitServerClockPast(String datetime) throws SQLException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
        try (Connection c = db.connect()) {
            String passed = "SELECT UTC_TIMESTAMP(3) > '" + datetime + "'";
            while (MySqlTestDatabase.queryLong(c, passed) == 0) {
                assertThat(Instant.now()).as("server clock passes %s", datetime).isBefore(deadline);
            }
        }
    }

    // ---- the oracle's helpers ----

    private static final DateTimeFormatter DATETIME_3 =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    private static String datetime(long epochMillis) {
        return DATETIME_3.format(Instant.ofEpochMilli(epochMillis));
    }

    /** The unread count a read up to {@code seq} leaves: one value per seq, as the job's is. */
    private static long unreadAfter(long seq) {
        return (seq * 7919) % 97;
    }

    private static <T> List<List<T>> batches(List<T> records, Random random) {
        List<List<T>> batches = new ArrayList<>();
        for (int from = 0; from < records.size(); ) {
            int to = Math.min(records.size(), from + 1 + random.nextInt(MySqlCursors.BATCH_SIZE));
            batches.add(records.subList(from, to));
            from = to;
        }
        return batches;
    }

    private static int compareKeys(List<Long> a, List<Long> b) {
        int byConversation = Long.compare(a.get(0), b.get(0));
        return byConversation != 0 ? byConversation : Long.compare(a.get(1), b.get(1));
    }
}
