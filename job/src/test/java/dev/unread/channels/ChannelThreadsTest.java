package dev.unread.channels;

import static dev.unread.events.ConversationEvent.deleted;
import static dev.unread.events.ConversationEvent.joined;
import static dev.unread.events.ConversationEvent.left;
import static dev.unread.events.ConversationEvent.message;
import static dev.unread.events.ConversationEvent.reply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unread.channels.ChannelRedisModel.Counts;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Threads of a channel: who follows them and what their tracks count (contract.md, "Threads"). */
class ChannelThreadsTest {

    private static final long C = 80001;
    private static final long U1 = 1;
    private static final long U2 = 2;
    private static final long U3 = 3;
    private static final long U4 = 4;
    private static final long T = 3;

    private static ConversationEvent all(ConversationEvent e) {
        e.mentionsAll = true;
        return e;
    }

    private static ChannelStageHarness thread(ChannelStageHarness stage) throws Exception {
        stage.records(
                joined(C, U1, 1),
                joined(C, U2, 1),
                joined(C, U3, 1),
                message(C, T, U2, 30, U3),
                reply(C, 4, T, U1, 40),
                all(reply(C, 5, T, U1, 50, U2)));
        return stage;
    }

    @Test
    void theRootsSenderAndWhomItNamedFollowByDefaultAndAReplierFollows() throws Exception {
        try (ChannelStageHarness stage = thread(ChannelStageHarness.open())) {
            assertEquals(new Counts(2, 1, 0), stage.redis.threadCounts(U2, C, T));
            assertEquals(new Counts(2, 1, 1), stage.redis.threadCounts(U3, C, T));
            assertTrue(stage.redis.follows(U1, C, T));
            assertEquals(Counts.NONE, stage.redis.threadCounts(U1, C, T), "sending reads");
            assertEquals(
                    new Counts(1, 0, 0),
                    stage.counts(U1, C),
                    "the root alone: replies count apart");
        }
    }

    @Test
    void theNewestFactDecidesExplicitWinsATieAndTwoTiedExplicitAreFalse() throws Exception {
        try (ChannelStageHarness stage = thread(ChannelStageHarness.open())) {
            stage.facts(ChatEvent.threadFollowed(U2, C, T, false, 60));
            assertFalse(stage.redis.follows(U2, C, T));
            stage.records(reply(C, 6, T, U1, 70, U2));
            assertEquals(new Counts(3, 2, 0), stage.redis.threadCounts(U2, C, T));
            stage.facts(ChatEvent.threadFollowed(U2, C, T, false, 70));
            assertFalse(stage.redis.follows(U2, C, T), "explicit wins a tie with a named reply");
            stage.facts(
                    ChatEvent.threadFollowed(U3, C, T, true, 80),
                    ChatEvent.threadFollowed(U3, C, T, false, 80));
            assertFalse(stage.redis.follows(U3, C, T));
            stage.facts(ChatEvent.threadFollowed(U3, C, T, true, 80));
            assertFalse(stage.redis.follows(U3, C, T), "a duplicate leaves the tie");
        }
    }

    @Test
    void threadReadsDeletionsAndLeavingMoveTheThreadsCounts() throws Exception {
        try (ChannelStageHarness stage = thread(ChannelStageHarness.open())) {
            stage.facts(ChatEvent.threadRead(U3, C, T, 4, 90));
            assertEquals(new Counts(1, 1, 1), stage.redis.threadCounts(U3, C, T));
            stage.records(deleted(C, T));
            assertEquals(new Counts(1, 1, 1), stage.redis.threadCounts(U3, C, T));
            stage.records(deleted(C, 5));
            assertEquals(Counts.NONE, stage.redis.threadCounts(U3, C, T));
            assertEquals(new Counts(1, 0, 0), stage.redis.threadCounts(U2, C, T));
            stage.records(left(C, U2, 9));
            assertEquals(Counts.NONE, stage.redis.threadCounts(U2, C, T));
        }
    }

    @Test
    void aLateJoinMakesAReplyNameAMemberAndAReplyBeforeItsRootCounts() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(
                    joined(C, U1, 1),
                    reply(C, 8, 7, U1, 80, U4),
                    reply(C, 9, 7, U1, 90),
                    joined(C, U2, 1));
            assertFalse(stage.redis.follows(U2, C, 7));
            stage.records(message(C, 7, U2, 70));
            assertEquals(new Counts(2, 0, 0), stage.redis.threadCounts(U2, C, 7));
            stage.records(joined(C, U4, 2));
            assertEquals(new Counts(2, 1, 0), stage.redis.threadCounts(U4, C, 7));
        }
    }

    /**
     * A {@code chat-conversations} edit carries no {@code threadSeq}: the stage takes the reply's
     * thread from the reply.
     */
    @Test
    void anEditOfAReplyMovesItsThreadsMentions() throws Exception {
        try (ChannelStageHarness stage = thread(ChannelStageHarness.open())) {
            stage.records(ConversationEvent.edited(C, 5, 60, false));
            assertEquals(new Counts(2, 0, 0), stage.redis.threadCounts(U2, C, T));
            assertEquals(new Counts(2, 0, 0), stage.redis.threadCounts(U3, C, T));
            stage.records(ConversationEvent.edited(C, 4, 70, true, U2));
            assertEquals(new Counts(2, 1, 0), stage.redis.threadCounts(U2, C, T));
            assertEquals(new Counts(2, 1, 1), stage.redis.threadCounts(U3, C, T));
        }
    }

    /** A thread's root is a message without threadSeq: a reply names no one a root's sender. */
    @Test
    void aReplyToAReplyMakesNeitherItsSenderNorWhomItNamedADefaultFollower() throws Exception {
        try (ChannelStageHarness stage = thread(ChannelStageHarness.open())) {
            stage.records(reply(C, 6, 5, U2, 60));
            assertTrue(stage.redis.follows(U2, C, 5), "the replier follows");
            assertFalse(stage.redis.follows(U1, C, 5), "seq 5 is U1's reply, no root");
            assertEquals(Counts.NONE, stage.redis.threadCounts(U1, C, 5));
        }
    }

    /**
     * The user's state forwards an erasure to a channel when it learns of the channel, which may be
     * after replies the member sent and was named in after the erasure: those stay.
     */
    @Test
    void anErasureThatArrivesLateKeepsTheThreadsTheMemberTookPartInAfterIt() throws Exception {
        try (ChannelStageHarness stage = thread(ChannelStageHarness.open())) {
            stage.records(
                    reply(C, 6, T, U3, 60),
                    reply(C, 7, T, U1, 70, U4),
                    reply(C, 8, T, U1, 80),
                    joined(C, U4, 1));
            ChatEvent erasedU3 = ChatEvent.userErased(U3, 55);
            erasedU3.conversationId = C;
            ChatEvent erasedU4 = ChatEvent.userErased(U4, 65);
            erasedU4.conversationId = C;
            stage.facts(erasedU3, erasedU4);
            assertTrue(stage.redis.follows(U3, C, T), "U3 replied after the erasure");
            assertEquals(new Counts(2, 0, 0), stage.redis.threadCounts(U3, C, T));
            assertTrue(stage.redis.follows(U4, C, T), "U4 was named after the erasure");
            assertEquals(new Counts(2, 1, 0), stage.redis.threadCounts(U4, C, T));
        }
    }

    @Test
    void erasureAndTheBoundOfBareThreadsTakeTheirFieldsAway() throws Exception {
        try (ChannelStageHarness stage =
                thread(ChannelStageHarness.open(new ChannelStage(1 << 20, 2)))) {
            ChatEvent erased = ChatEvent.userErased(U3, 100);
            erased.conversationId = C;
            stage.facts(erased);
            assertFalse(stage.redis.follows(U3, C, T));
            stage.facts(
                    ChatEvent.threadFollowed(U4, C, 10, true, 1),
                    ChatEvent.threadFollowed(U4, C, 11, true, 1));
            stage.records(joined(C, U4, 1));
            assertTrue(stage.redis.follows(U4, C, 10));
            stage.facts(ChatEvent.threadRead(U4, C, 12, 3, 2));
            assertFalse(stage.redis.follows(U4, C, 10), "the least recently touched goes");
            assertTrue(stage.redis.follows(U4, C, 11));
        }
    }

    @Test
    void aRestoredStageWritesAThreadsFieldAtItsFirstTouch() throws Exception {
        try (ChannelStageHarness stage = thread(ChannelStageHarness.open())) {
            stage.facts(ChatEvent.threadRead(U3, C, T, 4, 90));
            try (ChannelStageHarness restored = stage.restore(stage.snapshot())) {
                restored.facts(ChatEvent.threadRead(U3, C, T, 4, 90));
                assertEquals(
                        List.of("u3 c80001", "u3 c80001:3"),
                        restored.takeWrites().stream()
                                .map(
                                        w ->
                                                "u"
                                                        + w.userId
                                                        + " c"
                                                        + w.conversationId
                                                        + (w.threadSeq > 0
                                                                ? ":" + w.threadSeq
                                                                : ""))
                                .sorted()
                                .toList());
                restored.facts(ChatEvent.threadRead(U3, C, T, 4, 90));
                assertEquals(List.of(), restored.takeWrites());
                assertEquals(new Counts(1, 1, 1), restored.redis.threadCounts(U3, C, T));
            }
        }
    }
}
