package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import dev.unread.testing.Oracle;
import dev.unread.testing.RedisModel;
import dev.unread.testing.ThreadStreams;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * docs/contract.md, "Who follows a thread" and "Replies name their root's sender", one rule at a
 * time, each case in every order of its events: Alice's thread 1 of conversation 80001 shows its
 * unread replies exactly when the rule says she follows it, in the oracle and in the job alike.
 */
class ThreadFollowsTest {

    private static final long ALICE = 10086;
    private static final long BOB = 10087;
    private static final long CAROL = 10088;
    private static final long CHAT = 80001;
    private static final long ROOT = 1;
    private static final String THREAD = CHAT + ":" + ROOT;

    /** Bob's reply to Alice, unread, so that the thread shows when she follows it. */
    private static ChatEvent unreadReply() {
        return ChatEvent.reply(BOB, ALICE, CHAT, 10, ROOT, 500, false);
    }

    private static ChatEvent follow(boolean following, long setAt) {
        return ChatEvent.threadFollowed(ALICE, CHAT, ROOT, following, setAt);
    }

    /** Alice's own reply, sent at {@code sentAt}, as the job copies it to her key. */
    private static ChatEvent ownReply(long seq, long sentAt) {
        return ChatEvent.reply(ALICE, ALICE, CHAT, seq, ROOT, sentAt, false);
    }

    /** Carol's reply naming Alice, sent at {@code sentAt}. */
    private static ChatEvent namingReply(long seq, long sentAt) {
        return ChatEvent.reply(CAROL, ALICE, CHAT, seq, ROOT, sentAt, true);
    }

    private static ChatEvent namingRootSender(ChatEvent reply, long rootSender) {
        reply.rootSenderId = rootSender;
        return reply;
    }

    @Test
    void anUnfollowHoldsUntilTheUserRepliesAgain() throws Exception {
        assertFollows(false, unreadReply(), ownReply(5, 100), follow(false, 200));
        assertFollows(true, unreadReply(), follow(false, 200), ownReply(11, 300));
    }

    @Test
    void anUnfollowHoldsUntilTheUserIsNamedInAReplyAgain() throws Exception {
        assertFollows(false, unreadReply(), namingReply(5, 100), follow(false, 200));
        assertFollows(true, unreadReply(), follow(false, 200), namingReply(11, 300));
    }

    @Test
    void aFollowHoldsUntilAnUnfollowAfterIt() throws Exception {
        assertFollows(true, unreadReply(), follow(false, 100), follow(true, 200));
        assertFollows(
                false, unreadReply(), follow(true, 100), ownReply(5, 150), follow(false, 200));
    }

    @Test
    void anExplicitFactWinsATieWithAnImplicitOne() throws Exception {
        assertFollows(false, unreadReply(), ownReply(5, 200), follow(false, 200));
        assertFollows(false, unreadReply(), namingReply(5, 200), follow(false, 200));
        assertFollows(
                true, unreadReply(), namingReply(5, 200), follow(false, 200), ownReply(6, 201));
    }

    @Test
    void twoExplicitFactsTiedMeanNotFollowing() throws Exception {
        assertFollows(false, unreadReply(), follow(true, 200), follow(false, 200));
    }

    @Test
    void aRootSenderFollowsByDefaultOnlyWhenARepliesNamesThem() throws Exception {
        assertFollows(false, unreadReply());
        assertFollows(true, namingRootSender(unreadReply(), ALICE));
        assertFollows(false, namingRootSender(unreadReply(), CAROL));
    }

    @Test
    void aDefaultIsOlderThanAnyFact() throws Exception {
        // The unfollow is older than the reply that names Alice the root's sender: still off.
        assertFollows(false, namingRootSender(unreadReply(), ALICE), follow(false, 1));
        // Named in the root as sent: a default too.
        assertFollows(
                false,
                ChatEvent.mention(BOB, ALICE, CHAT, ROOT, 50),
                unreadReply(),
                follow(false, 1));
        assertFollows(true, ChatEvent.mention(BOB, ALICE, CHAT, ROOT, 50), unreadReply());
    }

    @Test
    void sendingTheRootMakesAFollowerOnlyWhenRootSendersAreTracked() throws Exception {
        ChatEvent root = ChatEvent.message(ALICE, BOB, CHAT, ROOT, 50);
        assertFollows(false, false, root, unreadReply());
        assertFollows(true, true, root, unreadReply());
        assertFollows(false, true, root, unreadReply(), follow(false, 1));
        // A message to oneself is sending the root alike.
        assertFollows(false, false, ChatEvent.message(ALICE, ALICE, CHAT, ROOT, 50), unreadReply());
        assertFollows(true, true, ChatEvent.message(ALICE, ALICE, CHAT, ROOT, 50), unreadReply());
    }

    private static void assertFollows(boolean follows, ChatEvent... events) throws Exception {
        assertFollows(follows, false, events);
    }

    /**
     * In every order of {@code events} (with the copies the job sends senders), the thread shows
     * the unread reply iff {@code follows}; the oracle says the same.
     */
    private static void assertFollows(boolean follows, boolean track, ChatEvent... events)
            throws Exception {
        List<ChatEvent> all = ThreadStreams.withOwnCopies(List.of(events), track);
        Map<String, Map<String, String>> expected =
                Oracle.of(all, List.of(), track).redisThreadHashes("", false);
        assertThat(expected.getOrDefault(Oracle.THREADS_KEY + ALICE, Map.of()).containsKey(THREAD))
                .as("the oracle: Alice follows")
                .isEqualTo(follows);
        for (List<ChatEvent> order : permutations(all)) {
            assertThat(threads(order, track)).as("%s", order).isEqualTo(expected);
        }
    }

    private static Map<String, Map<String, String>> threads(List<ChatEvent> order, boolean track)
            throws Exception {
        RedisModel redis = new RedisModel();
        try (KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new UnreadCounter(0, track)),
                        e -> e.userId,
                        Types.LONG)) {
            harness.open();
            for (ChatEvent e : order) {
                harness.processElement(e, 0L);
            }
            harness.extractOutputValues().forEach(redis::apply);
        }
        return redis.threads;
    }

    private static List<List<ChatEvent>> permutations(List<ChatEvent> events) {
        List<List<ChatEvent>> result = new ArrayList<>();
        if (events.isEmpty()) {
            result.add(new ArrayList<>());
            return result;
        }
        for (int i = 0; i < events.size(); i++) {
            List<ChatEvent> rest = new ArrayList<>(events);
            ChatEvent first = rest.remove(i);
            for (List<ChatEvent> tail : permutations(rest)) {
                tail.add(0, first);
                result.add(tail);
            }
        }
        return result;
    }
}
