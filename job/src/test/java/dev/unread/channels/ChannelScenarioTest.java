package dev.unread.channels;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ConversationEvent;
import org.junit.jupiter.api.Test;

/** One channel's small story, as the end-to-end test of the local stack publishes it. */
class ChannelScenarioTest {

    private static final long C = 900_090_001L;
    private static final long ALICE = 900_030_001L;
    private static final long BOB = 900_030_002L;
    private static final long CAROL = 900_030_003L;
    private static final long T = 1_767_225_600_000L;

    @Test
    void rootsRepliesAndMentionsCountForEachMember() throws Exception {
        ConversationEvent all = ConversationEvent.message(C, 5, ALICE, T + 1);
        all.mentionsAll = true;
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            stage.records(
                    ConversationEvent.channel(C),
                    ConversationEvent.joined(C, ALICE, 1),
                    ConversationEvent.joined(C, BOB, 2),
                    ConversationEvent.joined(C, CAROL, 3),
                    ConversationEvent.message(C, 4, ALICE, T, BOB),
                    all,
                    ConversationEvent.reply(C, 6, 4, CAROL, T + 2, BOB));

            assertThat(stage.counts(BOB, C)).isEqualTo(new ChannelRedisModel.Counts(2, 2, 1));
            assertThat(stage.redis.threadCounts(BOB, C, 4))
                    .isEqualTo(new ChannelRedisModel.Counts(1, 1, 0));
            assertThat(stage.counts(ALICE, C)).isEqualTo(ChannelRedisModel.Counts.NONE);
            assertThat(stage.redis.threadCounts(ALICE, C, 4))
                    .isEqualTo(new ChannelRedisModel.Counts(1, 0, 0));
            assertThat(stage.counts(CAROL, C)).isEqualTo(new ChannelRedisModel.Counts(2, 1, 1));
            assertThat(stage.redis.follows(CAROL, C, 4)).isTrue();
            assertThat(stage.redis.threadCounts(CAROL, C, 4))
                    .isEqualTo(ChannelRedisModel.Counts.NONE);
        }
    }
}
