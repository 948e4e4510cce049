package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import dev.unread.testing.MySqlTestDatabase;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A user's erasure through the MySQL sinks' writers, against the real server: the user's rows go
 * from both tables, after the cursors buffered before the erasure (which would otherwise bring a
 * row back when their batch is written later) and before those after it; other users' rows stay.
 */
class MySqlErasureTest {

    private static final long USER = 10086;
    private static final long OTHER = 10087;

    private MySqlTestDatabase db;
    private SinkWriter<ConversationCursor> members;
    private SinkWriter<InboxCursor> activity;

    @BeforeEach
    void open() throws Exception {
        db = MySqlTestDatabase.create();
        // With object reuse, as in the job, the connector's writer copies each record it buffers.
        members =
                MySqlCursors.conversationMember(db.config())
                        .createWriter(
                                new TestWriterContext(
                                        TypeInformation.of(ConversationCursor.class)
                                                .createSerializer(new SerializerConfigImpl())));
        activity =
                MySqlCursors.userActivity(db.config())
                        .createWriter(
                                new TestWriterContext(
                                        TypeInformation.of(InboxCursor.class)
                                                .createSerializer(new SerializerConfigImpl())));
    }

    @AfterEach
    void close() throws Exception {
        members.close();
        activity.close();
        db.close();
    }

    @Test
    void theUsersRowsGoAfterItsEarlierCursorsAndBeforeItsLaterOnes() throws Exception {
        for (long user : new long[] {USER, OTHER}) {
            members.write(new ConversationCursor(user, 80001, 5, 1), null);
            activity.write(new InboxCursor(user, 1_767_225_600_000L), null);
        }
        members.flush(false);
        activity.flush(false);
        assertThat(rowsOf(USER)).isEqualTo(2);

        // Buffered, unwritten, when the erasure comes: written first, then deleted.
        members.write(new ConversationCursor(USER, 80002, 3, 0), null);
        activity.write(new InboxCursor(USER, 1_767_225_700_000L), null);
        members.write(ConversationCursor.erasure(USER, 0), null);
        members.write(ConversationCursor.erasure(USER, 80001), null);
        members.write(ConversationCursor.erasure(USER, 80002), null);
        activity.write(InboxCursor.erasure(USER), null);
        members.flush(false);
        activity.flush(false);
        assertThat(rowsOf(USER)).as("every row of the erased user").isZero();
        assertThat(rowsOf(OTHER)).as("another user's rows").isEqualTo(2);

        // A cursor after the erasure starts the user afresh.
        members.write(ConversationCursor.erasure(USER, 0), null);
        members.write(new ConversationCursor(USER, 80003, 2, 0), null);
        members.flush(false);
        assertThat(
                        db.queryLong(
                                "SELECT COUNT(*) FROM conversation_member WHERE user_id = "
                                        + USER
                                        + " AND conversation_id = 80003"))
                .isEqualTo(1);
        assertThat(rowsOf(USER)).isEqualTo(1);
    }

    /**
     * A channel's erasure of the user can reach the channel stage, and so its sink subtask, long
     * after the user's state erased the user: when the user joins the channel after the erasure,
     * the user's state forwards the erasure it holds to the channel then. By that time the user may
     * have read another conversation afresh, through the user's state's subtask; the channel's
     * erasure deletes the user's row of that channel alone.
     */
    @Test
    void aConversationsErasureDeletesTheUsersRowThereAlone() throws Exception {
        SinkWriter<ConversationCursor> channelMembers = channelWriter();
        try {
            members.write(ConversationCursor.erasure(USER, 0), null);
            members.write(ConversationCursor.erasure(USER, 80001), null);
            members.write(new ConversationCursor(USER, 80001, 7, 0), null);
            members.flush(false);
            channelMembers.write(new ConversationCursor(USER, 90001, 4, 0), null);
            channelMembers.write(new ConversationCursor(OTHER, 90001, 4, 0), null);
            channelMembers.flush(false);

            channelMembers.write(ConversationCursor.erasure(USER, 90001), null);
            channelMembers.flush(false);

            assertThat(rowOf(USER, 80001))
                    .as("the user's row of a conversation it read after the erasure")
                    .isEqualTo(1);
            assertThat(rowOf(USER, 90001)).as("the user's row of the erased channel").isZero();
            assertThat(rowOf(OTHER, 90001)).as("another member's row").isEqualTo(1);
        } finally {
            channelMembers.close();
        }
    }

    /**
     * The user's state sends the erasure of every row to its sink subtask, where it waits for the
     * subtask's next write or flush; meanwhile the channel stage, through another subtask, erases
     * the user's row of a channel and writes it again (the cursor it keeps, or a read after the
     * erasure). The delayed erasure deletes every other row of the user, but leaves the channel's.
     */
    @Test
    void aDelayedErasureOfEveryRowLeavesTheRowsOfTheUsersChannels() throws Exception {
        SinkWriter<ConversationCursor> channelMembers = channelWriter();
        try {
            members.write(new ConversationCursor(USER, 80001, 5, 1), null);
            members.write(new ConversationCursor(OTHER, 80001, 5, 1), null);
            members.flush(false);
            members.write(ConversationCursor.erasureBut(USER, new long[] {90001}), null);

            channelMembers.write(ConversationCursor.erasure(USER, 90001), null);
            channelMembers.write(new ConversationCursor(USER, 90001, 4, 0), null);
            channelMembers.flush(false);
            members.flush(false);

            assertThat(rowOf(USER, 90001))
                    .as("the user's row the channel stage wrote after the erasure")
                    .isEqualTo(1);
            assertThat(rowOf(USER, 80001)).as("the user's row of another conversation").isZero();
            assertThat(rowOf(OTHER, 80001)).as("another user's row").isEqualTo(1);
        } finally {
            channelMembers.close();
        }
    }

    /**
     * A user in more channels than one statement leaves: every other row goes, those below the
     * first channel, between channels and above the last included; and a channel's erasure of the
     * user that reaches the same subtask while the erasure of every row waits there still deletes
     * the user's row of that channel.
     */
    @Test
    void theErasureOfEveryRowLeavesAnyNumberOfChannels() throws Exception {
        int count = 2 * JdbcCursorSink.KEPT_PER_DELETE + 50;
        long[] channels = new long[count];
        members.write(new ConversationCursor(USER, 1, 1, 0), null);
        members.write(new ConversationCursor(USER, 1_000_000_000_000L, 1, 0), null);
        for (int i = 0; i < count; i++) {
            channels[i] = 100_000 + 2 * i;
            members.write(new ConversationCursor(USER, channels[i], 1, 0), null);
            members.write(new ConversationCursor(USER, channels[i] + 1, 1, 0), null);
        }
        members.write(new ConversationCursor(OTHER, channels[0] + 1, 1, 0), null);
        members.flush(false);

        members.write(ConversationCursor.erasureBut(USER, channels), null);
        members.write(ConversationCursor.erasure(USER, channels[0] + 1), null);
        members.write(ConversationCursor.erasure(USER, channels[7]), null);
        members.flush(false);

        assertThat(
                        db.queryLong(
                                "SELECT COUNT(*) FROM conversation_member WHERE user_id = "
                                        + USER
                                        + " AND conversation_id % 2 = 0"
                                        + " AND conversation_id BETWEEN "
                                        + channels[0]
                                        + " AND "
                                        + channels[count - 1]))
                .as("the user's rows of its channels but the one erased")
                .isEqualTo(count - 1);
        assertThat(rowOf(USER, channels[7])).as("the channel erased").isZero();
        assertThat(db.queryLong("SELECT COUNT(*) FROM conversation_member WHERE user_id = " + USER))
                .as("every row of the user but its channels'")
                .isEqualTo(count - 1);
        assertThat(rowOf(OTHER, channels[0] + 1)).as("another user's row").isEqualTo(1);
    }

    private SinkWriter<ConversationCursor> channelWriter() throws Exception {
        return MySqlCursors.conversationMember(db.config())
                .createWriter(
                        new TestWriterContext(
                                TypeInformation.of(ConversationCursor.class)
                                        .createSerializer(new SerializerConfigImpl())));
    }

    private long rowOf(long user, long conversation) throws Exception {
        return db.queryLong(
                "SELECT COUNT(*) FROM conversation_member WHERE user_id = "
                        + user
                        + " AND conversation_id = "
                        + conversation);
    }

    private long rowsOf(long user) throws Exception {
        return db.queryLong("SELECT COUNT(*) FROM conversation_member WHERE user_id = " + user)
                + db.queryLong("SELECT COUNT(*) FROM user_activity WHERE user_id = " + user);
    }
}
