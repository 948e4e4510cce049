package dev.unread.channels;

import static dev.unread.events.ConversationEvent.joined;
import static dev.unread.events.ConversationEvent.left;
import static dev.unread.events.ConversationEvent.message;
import static dev.unread.events.ConversationEvent.reply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.unread.channels.ChannelRedisModel.Counts;
import dev.unread.contract.ChannelTrack;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.ConversationEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Mark all read and erasure in a channel: the floor, and the cursor a mark raises. */
class ChannelFloorsTest {

    private static final long C = 80001;
    private static final long U1 = 1;
    private static final long U2 = 2;
    private static final long U3 = 3;
    private static final long MINUTE = 60_000;

    private static ChatEvent allRead(long userId, long readAt) {
        ChatEvent e = ChatEvent.allRead(userId, readAt);
        e.conversationId = C;
        return e;
    }

    private static ChatEvent erased(long userId, long erasedAt) {
        ChatEvent e = ChatEvent.userErased(userId, erasedAt);
        e.conversationId = C;
        return e;
    }

    private static ConversationEvent all(ConversationEvent e) {
        e.mentionsAll = true;
        return e;
    }

    private static ConversationCursor byMark(long userId, long seq) {
        return ChannelStageHarness.cursor(userId, C, seq, 0);
    }

    @Test
    void aMessageSentByAMarkThatArrivesAfterItIsReadWhenItComes() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(
                    joined(C, U1, 1),
                    joined(C, U2, 1),
                    message(C, 2, U2, 10),
                    message(C, 3, U2, 20, U1));
            stage.takeCursors();
            stage.facts(allRead(U1, 25));
            assertEquals(Counts.NONE, stage.counts(U1, C));
            assertEquals(List.of(byMark(U1, 3)), stage.takeCursors());
            stage.records(message(C, 4, U2, 24, U1));
            assertEquals(Counts.NONE, stage.counts(U1, C));
            assertEquals(4, stage.redis.channelTrack(U1, C).floor());
            assertEquals(
                    List.of(ChannelStageHarness.cursor(U1, C, 4, 0)),
                    stage.takeCursors().stream().filter(c -> c.userId == U1).toList(),
                    "a late message moves its own cursor, as a read's");
            stage.records(message(C, 5, U2, 30, U1));
            assertEquals(new Counts(1, 1, 0), stage.counts(U1, C));
            stage.facts(allRead(U1, 22));
            assertEquals(new Counts(1, 1, 0), stage.counts(U1, C), "an older mark reads no more");
        }
    }

    @Test
    void aMarkRaisesTheCursorToTheLastRootOfAnotherWhileAMember() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(
                    joined(C, U1, 1),
                    joined(C, U2, 1),
                    message(C, 2, U2, 10),
                    left(C, U1, 3),
                    message(C, 4, U2, 15),
                    joined(C, U1, 5),
                    reply(C, 6, 2, U2, 18),
                    message(C, 7, U2, 40));
            stage.takeCursors();
            stage.facts(allRead(U1, 25));
            ChannelTrack track = stage.redis.channelTrack(U1, C);
            assertEquals(6, track.floor(), "any message, a reply too");
            assertEquals(2, track.read());
            assertEquals(new Counts(1, 0, 0), stage.counts(U1, C));
            ConversationCursor raised = byMark(U1, 2);
            raised.unreadCount = 1;
            assertEquals(List.of(raised), stage.takeCursors());
        }
    }

    @Test
    void erasureDropsTheMembersFactsAndLateMessagesBelowItCountNothing() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(joined(C, U1, 1), message(C, 2, U2, 10), message(C, 3, U2, 20, U1));
            stage.facts(
                    ChatEvent.ignoreChannelMentions(U1, C, ChatEvent.NONE, true, 5),
                    ChatEvent.conversationRead(U1, C, 2, 21));
            stage.takeCursors();
            stage.facts(erased(U1, 25));
            assertEquals(List.of(ConversationCursor.erasure(U1, C)), stage.takeCursors());
            ChannelTrack track = stage.redis.channelTrack(U1, C);
            assertEquals(
                    new ChannelTrack(
                            track.members(),
                            0,
                            3,
                            0,
                            0,
                            ChannelTrack.EMPTY.preference(),
                            false,
                            false),
                    track);
            stage.records(message(C, 4, U2, 22, U1));
            assertEquals(Counts.NONE, stage.counts(U1, C));
            assertEquals(4, stage.redis.channelTrack(U1, C).floor());
            stage.takeCursors();
            stage.facts(ChatEvent.conversationRead(U1, C, 9, 24));
            assertEquals(List.of(), stage.takeCursors(), "a read before the erasure is dropped");
            stage.records(all(message(C, 5, U2, 30, U1)));
            assertEquals(new Counts(1, 1, 0), stage.counts(U1, C));
            stage.facts(
                    erased(U1, 25),
                    ChatEvent.ignoreChannelMentions(U1, C, ChatEvent.ALL, true, 26));
            assertFalse(stage.takeCursors().stream().anyMatch(c -> c.erased));
            assertEquals(new Counts(1, 1, 0), stage.counts(U1, C));
        }
    }

    @Test
    void anErasureArrivingAfterARootSentAfterItKeepsThatCursorInTheRowAndTheScore()
            throws Exception {
        // ChannelsModelTest seed 4: the erasure, forwarded once the member's late join made the
        // channel the user's, deleted the row and the score of a cursor it keeps.
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(joined(C, U1, 1), message(C, 2, U2, 10), message(C, 3, U1, 30));
            assertEquals(
                    List.of(ChannelStageHarness.cursor(U1, C, 3, 0)),
                    stage.takeCursors().stream().filter(c -> c.userId == U1).toList());
            stage.facts(erased(U1, 25));
            assertEquals(3, stage.redis.channelTrack(U1, C).read());
            assertEquals(
                    List.of(
                            ConversationCursor.erasure(U1, C),
                            ChannelStageHarness.cursor(U1, C, 3, 0)),
                    stage.takeCursors(),
                    "the erasure's removal, then the cursor it keeps");
        }
    }

    @Test
    void aLateMessageRaisesTheFloorsOfTheMarksItFallsUnderAlone() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(
                    joined(C, U1, 1),
                    joined(C, U2, 1),
                    joined(C, U3, 1),
                    message(C, 2, U3, MINUTE));
            stage.facts(allRead(U1, 30 * MINUTE), allRead(U2, 3 * MINUTE), erased(U3, 2 * MINUTE));
            stage.records(
                    message(C, 3, U3, 2 * MINUTE),
                    message(C, 4, U3, 10 * MINUTE),
                    message(C, 5, U3, 31 * MINUTE));
            assertEquals(4, stage.redis.channelTrack(U1, C).floor());
            assertEquals(3, stage.redis.channelTrack(U2, C).floor());
            assertEquals(3, stage.redis.channelTrack(U3, C).floor());
            assertEquals(new Counts(1, 0, 0), stage.counts(U1, C));
            assertEquals(new Counts(2, 0, 0), stage.counts(U2, C));
            assertEquals(Counts.NONE, stage.counts(U3, C), "the sender read its own");
            stage.facts(allRead(U2, 40 * MINUTE));
            stage.records(message(C, 6, U3, 35 * MINUTE));
            assertEquals(6, stage.redis.channelTrack(U2, C).floor());
            assertEquals(4, stage.redis.channelTrack(U1, C).floor());
        }
    }

    @Test
    void lateMessagesFindTheMarksOfOtherDaysAndAMarkThatMovedOn() throws Exception {
        long day = 24 * 60 * MINUTE;
        long u4 = 4;
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(joined(C, U1, 1), joined(C, U2, 1), joined(C, U3, 1), joined(C, u4, 1));
            stage.facts(
                    allRead(U1, day),
                    allRead(U2, 3 * day),
                    erased(U3, 2 * day),
                    allRead(U1, 5 * day));
            stage.records(
                    message(C, 2, u4, day / 2),
                    message(C, 3, u4, 3 * day / 2),
                    message(C, 4, u4, 5 * day / 2),
                    message(C, 5, u4, 4 * day),
                    message(C, 6, u4, 6 * day));
            assertEquals(5, stage.redis.channelTrack(U1, C).floor());
            assertEquals(4, stage.redis.channelTrack(U2, C).floor());
            assertEquals(3, stage.redis.channelTrack(U3, C).floor());
            assertEquals(new Counts(1, 0, 0), stage.counts(U1, C));
            assertEquals(new Counts(2, 0, 0), stage.counts(U2, C));
            assertEquals(new Counts(3, 0, 0), stage.counts(U3, C));
        }
    }
}
