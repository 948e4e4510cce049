package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import dev.unread.testing.JobHarness;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
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
 * {@code savepoint republish} on thread state (issue 25), written through the job's own descriptors
 * as the job holds it: RedisFlushITCase (seed 813494) found the republish wrote no {@code
 * chat:threads} or {@code chat:thread-mentions} and left thread mentions out of the totals, so a
 * thread whose counts did not change after the restore stayed missing from Redis.
 *
 * <ul>
 *   <li>user 1, conversation 7: follows thread 2 by taking part (3 unread, 1 mentions them) and
 *       unfollowed thread 5 (2 unread): shows thread 2 only;
 *   <li>user 2 left conversation 9 (membership −3), where it took part in thread 1 (2 unread):
 *       shows nothing.
 * </ul>
 */
class ThreadSavepointITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = JobHarness.miniCluster();

    @TempDir static Path root;

    private static String savepoint;
    private final String prefix = TestRedis.uniquePrefix();

    @BeforeAll
    static void writeASavepointWithThreads() throws Exception {
        savepoint = root.resolve("threads").toUri().toString();
        try (BatchJobs jobs = BatchJobs.start()) {
            StreamExecutionEnvironment env = jobs.environment();
            SavepointWriter.newSavepoint(env, CounterSavepoints.stateBackend(), 128)
                    .withOperator(
                            CounterSavepoints.COUNTER,
                            OperatorTransformation.bootstrapWith(env.fromData(1L, 2L))
                                    .keyBy(user -> user, Types.LONG)
                                    .transform(new UsersThreads()))
                    .write(savepoint);
            env.execute("write a savepoint with threads");
        }
    }

    @AfterEach
    void deleteKeys() {
        TestRedis.deleteKeys(prefix);
    }

    @Test
    void republishWritesTheFollowedThreadsAndTheirShareOfTheTotals() throws Exception {
        UnreadConfig config = TestRedis.config("redis://127.0.0.1:6379/0", prefix, 50);

        SavepointRepublish.Written written = SavepointRepublish.republish(savepoint, config);

        assertThat(TestRedis.hashes(prefix))
                .isEqualTo(
                        Map.of(
                                Count.THREAD.key(prefix, 1),
                                Map.of("7:2", "3"),
                                Count.THREAD_MENTIONS.key(prefix, 1),
                                Map.of("7:2", "1"),
                                Count.TOTAL_MESSAGES.key(prefix, 1),
                                Map.of("mentions", "1", "threads", "1")));
        assertThat(written).isEqualTo(new SavepointRepublish.Written(4, 0, 0, 0));
    }

    /** Each user's conversation and threads as described above. */
    static final class UsersThreads extends KeyedStateBootstrapFunction<Long, Long> {

        private transient MapState<Long, ConversationState> conversations;
        private transient MapState<Tuple2<Long, Long>, ThreadState> threads;

        @Override
        public void open(OpenContext openContext) {
            conversations = getRuntimeContext().getMapState(StateSchema.CONVERSATIONS);
            threads = getRuntimeContext().getMapState(StateSchema.THREADS);
        }

        @Override
        public void processElement(Long user, Context context) throws Exception {
            ConversationState conversation = new ConversationState();
            conversation.followedUnreadThreads = 1;
            if (user == 1) {
                conversation.followedMentionThreads = 1;
                conversation.followedThreadMentions = 1;
                conversations.put(7L, conversation);
                threads.put(Tuple2.of(7L, 2L), thread(1, 3, 1, true, 0));
                threads.put(Tuple2.of(7L, 5L), thread(2, 2, 0, false, -1));
            } else {
                conversation.membership = -3;
                conversations.put(9L, conversation);
                threads.put(Tuple2.of(9L, 1L), thread(1, 2, 0, true, 0));
            }
        }

        private static ThreadState thread(
                long sets, long unread, long mentions, boolean involved, long following) {
            ThreadState t = new ThreadState();
            t.sets = sets;
            t.unreadCount = unread;
            t.mentionCount = mentions;
            t.involved = involved;
            t.following = following;
            t.followSetAt = following == 0 ? 0 : 1;
            return t;
        }
    }
}
