package dev.unread.channels;

import static dev.unread.events.ConversationEvent.deleted;
import static dev.unread.events.ConversationEvent.edited;
import static dev.unread.events.ConversationEvent.joined;
import static dev.unread.events.ConversationEvent.left;
import static dev.unread.events.ConversationEvent.message;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unread.channels.ChannelRedisModel.Counts;
import dev.unread.contract.ChannelTrack;
import dev.unread.contract.InputField.CountPreference;
import dev.unread.events.ChannelWrite;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.ConversationEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The channel stage's roots, as a reader counts them from what it writes (DESIGN, version 5). */
class ChannelRootsTest {

    private static final long C = 80001;
    private static final long U1 = 1;
    private static final long U2 = 2;
    private static final long U3 = 3;

    private static ConversationEvent all(ConversationEvent e) {
        e.mentionsAll = true;
        return e;
    }

    @Test
    void rootsCountUnreadNamedAndChannelWideMentions() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(
                    joined(C, U1, 1),
                    joined(C, U2, 2),
                    message(C, 3, U2, 100),
                    message(C, 4, U2, 101, U1),
                    all(message(C, 5, U2, 102)),
                    all(message(C, 6, U2, 103, U1)));
            assertEquals(new Counts(4, 3, 1), stage.counts(U1, C));
            assertEquals(Counts.NONE, stage.counts(U2, C));
            ChannelTrack track = stage.redis.channelTrack(U1, C);
            assertEquals(2, track.named());
            assertEquals(1, track.namedAll());
            assertEquals(List.of(ChannelTrack.Interval.open(2)), track.members());
            assertEquals(6, stage.redis.channelTrack(U2, C).read());
            assertEquals(4, stage.redis.notices().size());
        }
    }

    @Test
    void sendingReadsAndEmitsTheSendersCursors() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(
                    joined(C, U1, 1), joined(C, U2, 2), joined(C, U3, 2), message(C, 3, U1, 100));
            stage.takeCursors();
            stage.records(message(C, 4, U1, 101), message(C, 5, U2, 102, U1));
            assertEquals(new Counts(1, 1, 0), stage.counts(U1, C));
            assertEquals(
                    List.of(
                            ChannelStageHarness.cursor(U1, C, 4, 0),
                            ChannelStageHarness.cursor(U2, C, 5, 0)),
                    stage.takeCursors());
            stage.facts(ChatEvent.conversationRead(U3, C, 4, 200));
            assertEquals(List.of(ChannelStageHarness.cursor(U3, C, 4, 1)), stage.takeCursors());
            assertEquals(new Counts(1, 0, 0), stage.counts(U3, C));
            stage.facts(ChatEvent.conversationRead(U1, C, 5, 200));
            assertEquals(Counts.NONE, stage.counts(U1, C));
            assertEquals(List.of(ChannelStageHarness.cursor(U1, C, 5, 0)), stage.takeCursors());
            stage.facts(ChatEvent.conversationRead(U1, C, 3, 300));
            assertEquals(List.of(), stage.takeCursors(), "a cursor never moves back");
        }
    }

    @Test
    void lateMembershipsGovernEarlierMessagesAndALeaveWinsATie() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(
                    message(C, 6, U2, 100, U1),
                    message(C, 7, U2, 101),
                    message(C, 8, U2, 102, U1),
                    message(C, 9, U2, 103, U1),
                    message(C, 10, U2, 104));
            assertNull(stage.redis.channelTrack(U1, C), "no track without a membership");
            stage.records(joined(C, U1, 8), left(C, U1, 7), joined(C, U1, 5));
            // [6,7] and [9..]: 6, 7, 9 and 10.
            assertEquals(new Counts(4, 2, 0), stage.counts(U1, C));
            stage.records(left(C, U1, 8));
            // Joined and left at 8: the leave wins, so U1 has left.
            assertTrue(stage.redis.channelTrack(U1, C).left());
            assertEquals(Counts.NONE, stage.counts(U1, C));
            stage.records(joined(C, U1, 9));
            // [6,7] and [10..]: 6, 7 and 10; named 6 only.
            assertEquals(new Counts(3, 1, 0), stage.counts(U1, C));
        }
    }

    @Test
    void aDeletionBeforeItsMessageIsKept() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(joined(C, U1, 1), deleted(C, 3), all(message(C, 3, U2, 100, U1)));
            stage.records(message(C, 4, U2, 101, U1), all(message(C, 5, U2, 102)));
            assertEquals(new Counts(2, 2, 1), stage.counts(U1, C));
            stage.records(deleted(C, 4), deleted(C, 5), deleted(C, 4));
            assertEquals(Counts.NONE, stage.counts(U1, C));
            List<ChannelWrite.Change> changes =
                    stage.redis.notices().stream().map(n -> n.change).toList();
            assertEquals(
                    List.of(
                            ChannelWrite.Change.DELETED,
                            ChannelWrite.Change.MESSAGE,
                            ChannelWrite.Change.MESSAGE,
                            ChannelWrite.Change.MESSAGE,
                            ChannelWrite.Change.DELETED,
                            ChannelWrite.Change.DELETED),
                    changes);
        }
    }

    @Test
    void theNewestEditDecidesAndTiedEditsDecideEachFieldOnItsOwn() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(joined(C, U1, 1), joined(C, U3, 1), message(C, 3, U2, 100));
            assertEquals(new Counts(1, 0, 0), stage.counts(U1, C));
            stage.records(edited(C, 3, 200, true, U1, U3), edited(C, 3, 200, true, U3));
            // Tied: names U3 (both do) but not U1; mentions everyone (both do).
            assertEquals(new Counts(1, 1, 1), stage.counts(U1, C));
            assertEquals(new Counts(1, 1, 0), stage.counts(U3, C));
            stage.records(edited(C, 3, 150, false, U1));
            assertEquals(new Counts(1, 1, 1), stage.counts(U1, C), "an older edit changes nothing");
            stage.records(edited(C, 3, 300, false, U1));
            assertEquals(new Counts(1, 1, 0), stage.counts(U1, C));
            assertEquals(new Counts(1, 0, 0), stage.counts(U3, C));
            stage.records(edited(C, 3, 300, true, U1, U3));
            assertEquals(new Counts(1, 1, 0), stage.counts(U1, C), "a tie takes, never adds");
        }
    }

    /**
     * A {@code chat-conversations} edit names no thread, so there is no edit "of another thread"
     * for the stage to drop: see ChannelThreadsTest for an edit of a reply.
     */
    @Test
    void anEditOfAnUnseenMessageChangesNothing() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(joined(C, U1, 1), edited(C, 3, 200, true, U1), message(C, 3, U2, 100));
            assertEquals(new Counts(1, 0, 0), stage.counts(U1, C));
            assertEquals(1, stage.redis.notices().size());
        }
    }

    @Test
    void preferencesAndIgnoringChannelMentionsGoToTheTrack() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(joined(C, U1, 1), all(message(C, 3, U2, 100)));
            stage.facts(
                    ChatEvent.ignoreChannelMentions(U1, C, ChatEvent.MENTIONS, true, 50),
                    ChatEvent.ignoreChannelMentions(
                            U1, C, ChatEvent.NO_COUNT_PREFERENCE, false, 50));
            ChannelTrack track = stage.redis.channelTrack(U1, C);
            assertEquals(CountPreference.MENTIONS, track.preference());
            assertTrue(track.ignoreAll(), "a tie ignores");
            assertEquals(new Counts(1, 0, 0), stage.counts(U1, C));
            stage.facts(
                    ChatEvent.ignoreChannelMentions(U1, C, ChatEvent.ALL, false, 60),
                    ChatEvent.preference(U1, C, ChatEvent.NONE, 60),
                    ChatEvent.preference(U1, C, ChatEvent.ALL, 55));
            track = stage.redis.channelTrack(U1, C);
            assertEquals(CountPreference.NONE, track.preference(), "a tie, the quieter");
            assertEquals(new Counts(1, 1, 1), stage.counts(U1, C));
        }
    }

    @Test
    void aMessagePastTheBoundCountsForNobody() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open(new ChannelStage(100, 8))) {
            stage.records(joined(C, U1, 1));
            stage.takeWrites();
            stage.records(message(C, 101, U2, 100, U1), deleted(C, 101));
            assertEquals(List.of(), stage.takeWrites());
            assertEquals(Counts.NONE, stage.counts(U1, C));
        }
    }

    @Test
    void duplicatesWriteNothing() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            ConversationEvent[] events = {
                joined(C, U1, 1), all(message(C, 3, U2, 100, U1)), edited(C, 3, 200, false, U1)
            };
            stage.records(events);
            stage.facts(ChatEvent.conversationRead(U1, C, 2, 150));
            Counts counts = stage.counts(U1, C);
            stage.takeWrites();
            stage.records(events);
            stage.facts(ChatEvent.conversationRead(U1, C, 2, 150));
            assertEquals(List.of(), stage.takeWrites());
            assertEquals(counts, stage.counts(U1, C));
        }
    }

    @Test
    void aRestoredStageWritesATrackAtItsFirstTouch() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(joined(C, U1, 1), message(C, 3, U2, 100, U1));
            try (ChannelStageHarness restored = stage.restore(stage.snapshot())) {
                restored.records(joined(C, U1, 1));
                assertEquals(
                        List.of(ChannelWrite.Kind.TRACK),
                        restored.takeWrites().stream().map(w -> w.kind).toList());
                restored.records(joined(C, U1, 1));
                assertEquals(List.of(), restored.takeWrites());
                assertEquals(new Counts(1, 1, 0), restored.counts(U1, C));
            }
        }
    }

    @Test
    void eachCursorCarriesTheUnreadCountAReaderComputes() throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(joined(C, U1, 1), joined(C, U2, 1));
            for (long seq = 2; seq < 1_600; seq += 3) {
                stage.records(message(C, seq, U2, seq));
                if (seq % 7 == 0) {
                    stage.records(deleted(C, seq));
                }
            }
            stage.records(left(C, U1, 700), joined(C, U1, 900));
            stage.takeCursors();
            for (long read : new long[] {5, 511, 512, 513, 1_024, 1_030, 1_535, 1_600}) {
                stage.facts(ChatEvent.conversationRead(U1, C, read, read));
                List<ConversationCursor> cursors = stage.takeCursors();
                assertEquals(1, cursors.size());
                assertEquals(
                        stage.counts(U1, C).unread(), cursors.get(0).unreadCount, "read " + read);
            }
            assertEquals(0, stage.counts(U1, C).unread());
        }
    }
}
