package dev.unread.channels;

import static dev.unread.events.ConversationEvent.joined;
import static dev.unread.events.ConversationEvent.message;
import static dev.unread.events.ConversationEvent.reply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unread.channels.ChannelRedisModel.Counts;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A member's idle expiry in a channel (docs/contract.md, "Channels"): the member counts as having
 * read all the stage has seen of the channel, its followed threads included, and counts what comes
 * after; no cursor moves.
 */
class ChannelExpiryTest {

    private static final long C = 80001;
    private static final long U1 = 1;
    private static final long U2 = 2;
    private static final long U3 = 3;
    private static final long T = 2;
    private static final long DAY = 86_400_000;

    private static ConversationEvent all(ConversationEvent e) {
        e.mentionsAll = true;
        return e;
    }

    private static ChannelStageHarness seen(ChannelStageHarness stage) throws Exception {
        stage.records(
                joined(C, U1, 1),
                joined(C, U2, 1),
                joined(C, U3, 1),
                message(C, T, U2, 10, U1),
                all(message(C, 3, U2, 20)),
                reply(C, 4, T, U2, 30, U1),
                message(C, 6, U2, 40));
        stage.takeCursors();
        return stage;
    }

    @Test
    void anExpiredMemberCountsNothingItWasShownAndCountsWhatComesAfter() throws Exception {
        try (ChannelStageHarness stage = seen(ChannelStageHarness.open())) {
            assertNotEquals(Counts.NONE, stage.counts(U1, C));
            assertNotEquals(Counts.NONE, stage.redis.threadCounts(U1, C, T));
            Counts others = stage.counts(U3, C);
            assertNotEquals(Counts.NONE, others);

            stage.facts(ChatEvent.channelExpired(U1, C, 100 * DAY));

            assertEquals(Counts.NONE, stage.counts(U1, C));
            assertEquals(Counts.NONE, stage.redis.threadCounts(U1, C, T));
            assertTrue(stage.redis.follows(U1, C, T), "the follow stays");
            assertEquals(6, stage.redis.channelTrack(U1, C).floor());
            assertEquals(0, stage.redis.channelTrack(U1, C).read(), "expiry reads nothing");
            assertEquals(List.of(), stage.takeCursors());
            assertEquals(others, stage.counts(U3, C), "another member's counts stay");

            stage.records(message(C, 5, U2, 35, U1));
            assertEquals(Counts.NONE, stage.counts(U1, C), "below what was seen: read");
            stage.records(
                    message(C, 7, U2, 50, U1), reply(C, 8, T, U2, 60), reply(C, 9, T, U2, 70, U1));
            assertEquals(new Counts(1, 1, 0), stage.counts(U1, C));
            assertEquals(new Counts(2, 1, 0), stage.redis.threadCounts(U1, C, T));
        }
    }

    @Test
    void aMarkAllReadAfterAnExpiryRaisesTheCursorAsWithoutIt() throws Exception {
        try (ChannelStageHarness stage = seen(ChannelStageHarness.open())) {
            stage.facts(
                    ChatEvent.channelExpired(U1, C, 100 * DAY),
                    onChannel(ChatEvent.allRead(U1, 25)));
            assertEquals(List.of(ChannelStageHarness.cursor(U1, C, 3, 0)), stage.takeCursors());
            assertEquals(6, stage.redis.channelTrack(U1, C).floor());
        }
    }

    @Test
    void anErasureAfterAnExpirySetsTheFloorAfreshAtTheErasure() throws Exception {
        try (ChannelStageHarness stage = seen(ChannelStageHarness.open())) {
            stage.facts(
                    ChatEvent.channelExpired(U1, C, 100 * DAY),
                    onChannel(ChatEvent.userErased(U1, 25)));
            assertEquals(3, stage.redis.channelTrack(U1, C).floor());
            assertEquals(new Counts(1, 0, 0), stage.counts(U1, C));
        }
    }

    private static ChatEvent onChannel(ChatEvent fact) {
        fact.conversationId = C;
        return fact;
    }
}
