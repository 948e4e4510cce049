package dev.unread.groups;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fan-out of a channel (docs/contract.md, "Channels"): its records go once to the channel
 * stage, never to each member; a member hears of its own membership events and of the messages that
 * name it while a member, for the badge.
 */
class ChannelRoutingTest {

    private static final long CHANNEL = 80001;
    private static final long ALICE = 10086;
    private static final long BOB = 10087;
    private static final long CAROL = 10088;

    private KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> harness;

    @BeforeEach
    void open() throws Exception {
        harness = FanOutHarness.open();
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    @Test
    void aChannelsRecordsGoToItsStageOnceAndToNoMember() throws Exception {
        List<ConversationEvent> records =
                List.of(
                        ConversationEvent.channel(CHANNEL),
                        ConversationEvent.joined(CHANNEL, ALICE, 1),
                        ConversationEvent.joined(CHANNEL, BOB, 2),
                        ConversationEvent.message(CHANNEL, 3, ALICE, 1000),
                        ConversationEvent.edited(CHANNEL, 3, 1001, true),
                        ConversationEvent.deleted(CHANNEL, 3));
        send(records);

        assertThat(stageRecords()).containsExactlyElementsOf(records);
        assertThat(toUsers())
                .containsExactly(
                        ChatEvent.channelMembership(true, ALICE, CHANNEL, 1),
                        ChatEvent.channelMembership(true, BOB, CHANNEL, 2));
    }

    @Test
    void aMessageGoesToTheMembersItNamesByIdForTheBadgeAlone() throws Exception {
        send(
                List.of(
                        ConversationEvent.channel(CHANNEL),
                        ConversationEvent.joined(CHANNEL, ALICE, 1),
                        ConversationEvent.joined(CHANNEL, BOB, 2),
                        ConversationEvent.left(CHANNEL, BOB, 4)));
        toUsers();

        // Bob left before seq 5, Carol never joined, and Alice sent it.
        send(List.of(ConversationEvent.message(CHANNEL, 5, ALICE, 2000, ALICE, BOB, CAROL)));
        assertThat(toUsers()).isEmpty();

        send(List.of(ConversationEvent.message(CHANNEL, 3, ALICE, 1500, BOB)));
        assertThat(toUsers())
                .containsExactly(ChatEvent.channelMention(ALICE, BOB, CHANNEL, 3, 1500));
    }

    @Test
    void aChannelDeclaredAfterOtherRecordsStaysAGroup() throws Exception {
        send(
                List.of(
                        ConversationEvent.joined(CHANNEL, ALICE, 1),
                        ConversationEvent.channel(CHANNEL),
                        ConversationEvent.joined(CHANNEL, BOB, 2),
                        ConversationEvent.message(CHANNEL, 3, ALICE, 1000)));

        assertThat(stageRecords()).isEmpty();
        assertThat(toUsers())
                .extracting(e -> e.kind + " " + e.userId)
                .containsExactly("MEMBER_JOINED 10086", "MEMBER_JOINED 10087", "MESSAGE 10087");
    }

    @Test
    void aRepeatedDeclarationOfAChannelGoesToItsStageAndChangesNothing() throws Exception {
        send(
                List.of(
                        ConversationEvent.channel(CHANNEL),
                        ConversationEvent.joined(CHANNEL, ALICE, 1),
                        ConversationEvent.channel(CHANNEL),
                        ConversationEvent.message(CHANNEL, 2, BOB, 1000)));

        assertThat(stageRecords()).hasSize(4);
        assertThat(toUsers()).containsExactly(ChatEvent.channelMembership(true, ALICE, CHANNEL, 1));
    }

    private void send(List<ConversationEvent> events) throws Exception {
        for (ConversationEvent e : events) {
            harness.processElement(e, 0L);
        }
    }

    private List<ConversationEvent> stageRecords() {
        ConcurrentLinkedQueue<StreamRecord<ConversationEvent>> side =
                harness.getSideOutput(GroupFanOut.CHANNEL_RECORDS);
        List<ConversationEvent> records = new ArrayList<>();
        if (side != null) {
            side.forEach(r -> records.add(r.getValue()));
        }
        return records;
    }

    /** What went to users' keys since the last call. */
    @SuppressWarnings("unchecked")
    private List<ChatEvent> toUsers() {
        List<ChatEvent> out = new ArrayList<>();
        for (Object o : harness.getOutput()) {
            out.add(((StreamRecord<ChatEvent>) o).getValue());
        }
        harness.getOutput().clear();
        return out;
    }
}
