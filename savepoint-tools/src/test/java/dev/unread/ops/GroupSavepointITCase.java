package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import dev.unread.counter.ConversationSeqs;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.testing.JobHarness;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The savepoint tools on group state: a savepoint written through the job's own descriptors
 * (UnreadCounter's conversations with a membership, ConversationReaders' participants and cursors),
 * as the job holds it after group traffic.
 *
 * <ul>
 *   <li>user 1 left conversation 7 (membership −5) with seqs 3 and 4 unread: hidden;
 *   <li>user 2 is a member of conversation 7 (membership +1), seqs 3 and 4 unread;
 *   <li>user 3 has seqs 3 and 4 unread in conversation 9, a chat-messages conversation;
 *   <li>readers of 7: user 1 read to 4, user 2 a participant who never read, user 5 known only by a
 *       cursor (6); readers of 9: user 3 read to 2;
 *   <li>members of 7 (GroupFanOut): user 1 joined at 1 and left at 5, user 2 joined at 1, user 4
 *       joined at 2, left at 3 and joined again at 6.
 * </ul>
 */
class GroupSavepointITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = JobHarness.miniCluster();

    private static final long[] UNREAD_SEQS = {3, 4};

    @TempDir static Path root;

    private static String savepoint;
    private final String prefix = TestRedis.uniquePrefix();

    @BeforeAll
    static void writeASavepointWithGroupState() throws Exception {
        savepoint = root.resolve("groups").toUri().toString();
        try (BatchJobs jobs = BatchJobs.start()) {
            StreamExecutionEnvironment env = jobs.environment();
            SavepointWriter.newSavepoint(env, CounterSavepoints.stateBackend(), 128)
                    .withOperator(
                            CounterSavepoints.COUNTER,
                            OperatorTransformation.bootstrapWith(
                                            env.fromData(
                                                    Tuple3.of(1L, 7L, -5L),
                                                    Tuple3.of(2L, 7L, 1L),
                                                    Tuple3.of(3L, 9L, 0L)))
                                    .keyBy(row -> row.f0, Types.LONG)
                                    .transform(new Conversations()))
                    .withOperator(
                            CounterSavepoints.READERS,
                            OperatorTransformation.bootstrapWith(
                                            env.fromData(
                                                    Tuple3.of(7L, 1L, 4L),
                                                    Tuple3.of(7L, 2L, 0L),
                                                    Tuple3.of(7L, 5L, -6L),
                                                    Tuple3.of(9L, 3L, 2L)))
                                    .keyBy(row -> row.f0, Types.LONG)
                                    .transform(new Readers()))
                    .withOperator(
                            CounterSavepoints.FAN_OUT,
                            OperatorTransformation.bootstrapWith(
                                            env.fromData(
                                                    Tuple2.of(1L, new long[] {1, -5}),
                                                    Tuple2.of(2L, new long[] {1}),
                                                    Tuple2.of(4L, new long[] {2, -3, 6})))
                                    .keyBy(row -> 7L, Types.LONG)
                                    .transform(new Members()))
                    .write(savepoint);
            env.execute("write a savepoint with group state");
        }
    }

    @AfterEach
    void deleteKeys() {
        TestRedis.deleteKeys(prefix);
    }

    @Test
    void republishHidesTheCountsOfAMemberWhoLeftAndRebuildsTheReaders() throws Exception {
        UnreadConfig config = TestRedis.config("redis://127.0.0.1:6379/0", prefix, 50);

        SavepointRepublish.Written written = SavepointRepublish.republish(savepoint, config);

        assertThat(TestRedis.hashes(prefix))
                .isEqualTo(
                        Map.of(
                                Count.CONVERSATION.key(prefix, 2),
                                Map.of("7", "2"),
                                Count.CONVERSATION.key(prefix, 3),
                                Map.of("9", "2"),
                                Count.TOTAL_MESSAGES.key(prefix, 2),
                                Map.of("messages", "2", "conversations", "1"),
                                Count.TOTAL_MESSAGES.key(prefix, 3),
                                Map.of("messages", "2", "conversations", "1")));
        assertThat(TestRedis.sortedSets(prefix))
                .isEqualTo(
                        Map.of(
                                RedisNames.readersKey(prefix, 7), Map.of("1", 4.0),
                                RedisNames.readersKey(prefix, 9), Map.of("3", 2.0)));
        // Two counts and two totals each for users 2 and 3; user 1 left, so shows none.
        assertThat(written).isEqualTo(new SavepointRepublish.Written(6, 2, 0, 0));
    }

    @Test
    void inspectCountsMembersLeaversParticipantsAndReaders() throws Exception {
        SavepointInspect.Summary summary = SavepointInspect.inspect(savepoint, 10);

        assertThat(summary.groups()).isEqualTo(new SavepointInspect.Groups(1, 2, 1, 2, 3, 2));
        assertThat(summary.users()).isEqualTo(3);
        assertThat(summary.unreadSeqs()).isEqualTo(6);
    }

    /**
     * {@code inspect --user}: user 1's conversation and cursor are its own data, its membership
     * events a fact of conversation 7; user 4 has only membership events, which an erasure keeps;
     * user 6 has nothing.
     */
    @Test
    void inspectOfOneUserTellsItsOwnDataFromConversationFacts() throws Exception {
        SavepointUser.Report one = SavepointUser.inspect(savepoint, 1);
        assertThat(one.holdsUsersData()).isTrue();
        assertThat(one.holdings())
                .containsExactlyInAnyOrder(
                        new SavepointUser.Holding(
                                UnreadJob.COUNTER_UID, StateSchema.CONVERSATIONS.getName(), 1, 1),
                        new SavepointUser.Holding(
                                UnreadJob.FAN_OUT_UID, StateSchema.MEMBERS.getName(), 1, 0),
                        new SavepointUser.Holding(
                                UnreadJob.READERS_UID, StateSchema.READERS.getName(), 1, 1));

        SavepointUser.Report four = SavepointUser.inspect(savepoint, 4);
        assertThat(four.holdsUsersData()).isFalse();
        assertThat(four.holdings())
                .containsExactly(
                        new SavepointUser.Holding(
                                UnreadJob.FAN_OUT_UID, StateSchema.MEMBERS.getName(), 1, 0));

        SavepointUser.Report six = SavepointUser.inspect(savepoint, 6);
        assertThat(six.holdsUsersData()).isFalse();
        assertThat(six.holdings()).isEmpty();
    }

    /** Each row: a member of conversation 7 and their membership events. */
    static final class Members extends KeyedStateBootstrapFunction<Long, Tuple2<Long, long[]>> {

        private transient MapState<Long, long[]> members;

        @Override
        public void open(OpenContext openContext) {
            members = getRuntimeContext().getMapState(StateSchema.MEMBERS);
        }

        @Override
        public void processElement(Tuple2<Long, long[]> row, Context context) throws Exception {
            members.put(row.f0, row.f1);
        }
    }

    /** Each row: a user's conversation with its membership and the seqs 3 and 4 unread. */
    static final class Conversations
            extends KeyedStateBootstrapFunction<Long, Tuple3<Long, Long, Long>> {

        private transient MapState<Long, ConversationState> conversations;
        private transient ConversationSeqs unreadSeqs;

        @Override
        public void open(OpenContext openContext) {
            conversations = getRuntimeContext().getMapState(StateSchema.CONVERSATIONS);
            unreadSeqs = ConversationSeqs.unread(getRuntimeContext());
        }

        @Override
        public void processElement(Tuple3<Long, Long, Long> row, Context context) throws Exception {
            ConversationState state = new ConversationState();
            state.membership = row.f2;
            for (long seq : UNREAD_SEQS) {
                unreadSeqs.add(row.f1, state, seq);
            }
            conversations.put(row.f1, state);
        }
    }

    /** Each row: conversation, user, ConversationReaders' value for the user. */
    static final class Readers extends KeyedStateBootstrapFunction<Long, Tuple3<Long, Long, Long>> {

        private transient MapState<Long, Long> readers;

        @Override
        public void open(OpenContext openContext) {
            readers = getRuntimeContext().getMapState(StateSchema.READERS);
        }

        @Override
        public void processElement(Tuple3<Long, Long, Long> row, Context context) throws Exception {
            readers.put(row.f1, row.f2);
        }
    }
}
