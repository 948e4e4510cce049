package dev.unread.groups;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.channels.ChannelStage;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.state.Memberships;
import dev.unread.state.StateSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The membership rule of "Topic chat-conversations", on the production state backend. */
class GroupFanOutTest {

    private static final long GROUP = 80001;
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

    private void send(ConversationEvent... events) throws Exception {
        for (ConversationEvent e : events) {
            harness.processElement(e, 0L);
        }
    }

    /** What came out since the last call, and empties the output. */
    private List<ChatEvent> output() {
        List<ChatEvent> out = new ArrayList<>();
        for (Object o : harness.getOutput()) {
            out.add(((StreamRecord<ChatEvent>) o).getValue());
        }
        harness.getOutput().clear();
        return out;
    }

    private Set<Long> receiversOf(ConversationEvent message) throws Exception {
        output();
        send(message);
        Set<Long> receivers = new TreeSet<>();
        int ownCopies = 0;
        for (ChatEvent e : output()) {
            assertThat(e.kind).isEqualTo(ChatEvent.Kind.MESSAGE);
            assertThat(e.senderId).isEqualTo(message.senderId);
            assertThat(e.conversationId).isEqualTo(message.conversationId);
            assertThat(e.seq).isEqualTo(message.seq);
            assertThat(e.time).isEqualTo(message.sentAt);
            assertThat(e.threadSeq).isEqualTo(message.threadSeq);
            if (e.userId == message.senderId) {
                ownCopies++;
                assertThat(e.mentioned).isFalse();
            } else {
                assertThat(receivers.add(e.userId)).as("one delivery per member").isTrue();
            }
        }
        assertThat(ownCopies)
                .as("the sender's own copy of a reply, for its threads; none of a root")
                .isEqualTo(message.threadSeq > 0 ? 1 : 0);
        return receivers;
    }

    private static ConversationEvent msg(long seq, long sender, long... mentions) {
        return ConversationEvent.message(GROUP, seq, sender, 1000 + seq, mentions);
    }

    @Test
    void aMessageReachesEveryMemberButItsSender() throws Exception {
        send(
                ConversationEvent.joined(GROUP, ALICE, 1),
                ConversationEvent.joined(GROUP, BOB, 2),
                ConversationEvent.joined(GROUP, CAROL, 3));
        assertThat(output())
                .containsExactly(
                        ChatEvent.membership(true, ALICE, GROUP, 1),
                        ChatEvent.membership(true, BOB, GROUP, 2),
                        ChatEvent.membership(true, CAROL, GROUP, 3));
        assertThat(receiversOf(msg(4, BOB))).containsExactly(ALICE, CAROL);
    }

    /**
     * docs/contract.md, "Replies name their root's sender": a reply reaches its sender and every
     * member with the root's sender it names; a root reaches its sender only when root senders are
     * tracked.
     */
    @Test
    void aReplyReachesItsSenderNamingItsRootsSenderAndARootOnlyWhenTracked() throws Exception {
        send(ConversationEvent.joined(GROUP, ALICE, 1), ConversationEvent.joined(GROUP, BOB, 2));
        ConversationEvent reply = ConversationEvent.reply(GROUP, 5, 3, BOB, 1005);
        reply.rootSenderId = CAROL;
        output();
        send(reply);
        assertThat(output())
                .extracting(e -> e.userId + "/" + e.rootSenderId)
                .containsExactlyInAnyOrder(BOB + "/" + CAROL, ALICE + "/" + CAROL);

        try (KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> tracking =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(
                                new GroupFanOut(true, ChannelStage.DEFAULT_MAX_CHANNEL_SEQ)),
                        e -> e.conversationId,
                        Types.LONG)) {
            tracking.open();
            tracking.processElement(ConversationEvent.joined(GROUP, ALICE, 1), 0L);
            tracking.getOutput().clear();
            tracking.processElement(msg(4, BOB), 0L);
            assertThat(tracking.extractOutputValues())
                    .extracting(e -> e.userId)
                    .containsExactlyInAnyOrder(BOB, ALICE);
        }
    }

    @Test
    void aChangeGovernsOnlyHigherSeqs() throws Exception {
        send(ConversationEvent.joined(GROUP, ALICE, 10), ConversationEvent.joined(GROUP, BOB, 1));
        assertThat(receiversOf(msg(10, BOB))).isEmpty();
        assertThat(receiversOf(msg(11, BOB))).containsExactly(ALICE);
        send(ConversationEvent.left(GROUP, ALICE, 20));
        assertThat(receiversOf(msg(20, BOB))).containsExactly(ALICE);
        assertThat(receiversOf(msg(21, BOB))).isEmpty();
    }

    @Test
    void aJoinAndALeaveAtOneSeqMeanLeft() throws Exception {
        send(ConversationEvent.joined(GROUP, ALICE, 5), ConversationEvent.left(GROUP, ALICE, 5));
        assertThat(receiversOf(msg(6, BOB))).isEmpty();
        send(ConversationEvent.left(GROUP, CAROL, 5), ConversationEvent.joined(GROUP, CAROL, 5));
        assertThat(receiversOf(msg(6, BOB))).isEmpty();
    }

    @Test
    void aMessageBehindALaterChangeIsDecidedByTheChangeBeforeIt() throws Exception {
        send(
                ConversationEvent.joined(GROUP, ALICE, 1),
                ConversationEvent.left(GROUP, ALICE, 10),
                ConversationEvent.joined(GROUP, ALICE, 20));
        assertThat(receiversOf(msg(5, BOB))).containsExactly(ALICE);
        assertThat(receiversOf(msg(15, BOB))).isEmpty();
        assertThat(receiversOf(msg(25, BOB))).containsExactly(ALICE);
    }

    @Test
    void duplicatesFanOutToTheSameMembers() throws Exception {
        send(ConversationEvent.joined(GROUP, ALICE, 1), ConversationEvent.joined(GROUP, CAROL, 1));
        send(ConversationEvent.joined(GROUP, ALICE, 1));
        Set<Long> first = receiversOf(msg(2, BOB));
        assertThat(receiversOf(msg(2, BOB))).isEqualTo(first).containsExactly(ALICE, CAROL);
    }

    /** The chosen answer to the contract's open question; see GroupFanOut's class comment. */
    @Test
    void aLateMembershipEventGovernsOnlyTheMessagesThatArriveAfterIt() throws Exception {
        send(ConversationEvent.joined(GROUP, BOB, 1));
        assertThat(receiversOf(msg(6, BOB))).isEmpty();
        send(ConversationEvent.joined(GROUP, ALICE, 5));
        assertThat(receiversOf(msg(7, BOB))).containsExactly(ALICE);
        // A replay of the message that came too early now reaches the late joiner.
        assertThat(receiversOf(msg(6, BOB))).containsExactly(ALICE);

        send(ConversationEvent.joined(GROUP, CAROL, 1));
        assertThat(receiversOf(msg(9, BOB))).containsExactly(ALICE, CAROL);
        send(ConversationEvent.left(GROUP, CAROL, 8));
        assertThat(output()).containsExactly(ChatEvent.membership(false, CAROL, GROUP, 8));
        assertThat(receiversOf(msg(10, BOB))).containsExactly(ALICE);
    }

    @Test
    void mentionedIsSetPerDelivery() throws Exception {
        send(ConversationEvent.joined(GROUP, ALICE, 1), ConversationEvent.joined(GROUP, CAROL, 1));
        output();
        send(msg(2, BOB, CAROL, 999));
        for (ChatEvent e : output()) {
            assertThat(e.mentioned).as(e.toString()).isEqualTo(e.userId == CAROL);
        }
    }

    @Test
    void aGroupOfTenThousandGetsEveryMessage() throws Exception {
        int members = 10_000;
        for (long u = 1; u <= members; u++) {
            send(ConversationEvent.joined(GROUP, u, 1));
        }
        output();
        for (long seq = 2; seq <= 4; seq++) {
            Set<Long> receivers = receiversOf(msg(seq, 1));
            assertThat(receivers).hasSize(members - 1).doesNotContain(1L);
        }
    }

    @Test
    void stateGrowsWithMembersAndTheirChangesNotWithMessages() throws Exception {
        send(
                ConversationEvent.joined(GROUP, ALICE, 1),
                ConversationEvent.joined(GROUP, BOB, 1),
                ConversationEvent.left(GROUP, BOB, 50));
        for (long seq = 2; seq <= 500; seq++) {
            send(msg(seq, ALICE));
        }
        MapState<Long, long[]> members = members();
        Map<Long, long[]> held = new TreeMap<>();
        members.entries().forEach(e -> held.put(e.getKey(), e.getValue()));
        assertThat(held).containsOnlyKeys(ALICE, BOB);
        assertThat(held.get(ALICE)).containsExactly(1);
        assertThat(held.get(BOB)).containsExactly(1, -50);
    }

    /**
     * Issue 33: a message past every membership event walks only the current members, not everyone
     * who ever left; a late one (below a leave) still reaches who was a member at its seq. A
     * deletion likewise. The first event on state of an earlier build (no current members kept)
     * builds them from the histories.
     */
    @Test
    void aMessagePastEveryMembershipEventWalksOnlyTheCurrentMembers() throws Exception {
        GroupFanOut fanOut = new GroupFanOut();
        harness.close();
        harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(fanOut), e -> e.conversationId, Types.LONG);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        harness.open();
        int past = 2_000;
        for (long user = 1; user <= past; user++) {
            send(ConversationEvent.joined(GROUP, user, user));
        }
        for (long user = 1; user <= past; user++) {
            send(ConversationEvent.left(GROUP, user, past + user));
        }
        send(
                ConversationEvent.joined(GROUP, ALICE, 3 * past),
                ConversationEvent.joined(GROUP, BOB, 3 * past));

        long before = fanOut.membersVisited();
        assertThat(receiversOf(msg(3 * past + 1, CAROL))).containsExactly(ALICE, BOB);
        assertThat(fanOut.membersVisited() - before).isEqualTo(2);

        before = fanOut.membersVisited();
        send(ConversationEvent.deleted(GROUP, 3 * past + 1));
        assertThat(output()).extracting(e -> e.userId).containsExactlyInAnyOrder(ALICE, BOB);
        assertThat(fanOut.membersVisited() - before).isEqualTo(2);

        // Late: at seq 1,500 users 1..1,499 were members.
        assertThat(receiversOf(msg(1_500, CAROL))).hasSize(1_499).contains(1L, 1_499L);
    }

    @Test
    void stateOfAnEarlierBuildGetsItsCurrentMembersFromTheHistories() throws Exception {
        MapState<Long, long[]> members = members();
        members.put(ALICE, new long[] {1});
        members.put(BOB, new long[] {1, -5});
        members.put(CAROL, new long[] {2, -6, 7});
        assertThat(receiversOf(msg(10, ALICE))).containsExactly(CAROL);
        assertThat(receiversOf(msg(4, CAROL))).containsExactly(ALICE, BOB);
    }

    /** The group's membership histories, read and written beside the fan-out. */
    private MapState<Long, long[]> members() throws Exception {
        var backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(GROUP);
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, StateSchema.MEMBERS);
    }

    @Test
    void membershipEventsAreKeptInOrderOnce() {
        long[] events = new long[0];
        events = Memberships.with(events, false, 10);
        events = Memberships.with(events, true, 10);
        events = Memberships.with(events, true, 3);
        events = Memberships.with(events, true, 20);
        assertThat(Memberships.with(events, true, 3)).isSameAs(events);
        assertThat(events).containsExactly(3, 10, -10, 20);
        assertThat(Memberships.isMember(events, 3)).isFalse();
        assertThat(Memberships.isMember(events, 4)).isTrue();
        assertThat(Memberships.isMember(events, 11)).isFalse();
        assertThat(Memberships.isMember(events, 21)).isTrue();
    }

    @Test
    void anEditReachesTheMembersItsMessageReachedButItsSenderAndNamesWhomItMentions()
            throws Exception {
        long dave = 10089;
        ConversationEvent reply = ConversationEvent.reply(GROUP, 5, 4, BOB, 1005);
        send(
                ConversationEvent.joined(GROUP, ALICE, 1),
                ConversationEvent.joined(GROUP, BOB, 2),
                ConversationEvent.joined(GROUP, CAROL, 3),
                reply,
                // Dave joins and Carol leaves after the message: the edit reaches whom the
                // message reached; an edit of a seq without a message reaches no one.
                ConversationEvent.joined(GROUP, dave, 6),
                ConversationEvent.left(GROUP, CAROL, 7));
        output();
        send(
                ConversationEvent.edited(GROUP, 5, 2000, true, CAROL),
                ConversationEvent.edited(GROUP, 9, 2000, true, ALICE));
        List<ChatEvent> edits = output();
        assertThat(edits)
                .containsExactlyInAnyOrder(
                        ChatEvent.edited(ALICE, GROUP, 5, 4, 2000, false, true),
                        ChatEvent.edited(CAROL, GROUP, 5, 4, 2000, true, true));
    }
}
