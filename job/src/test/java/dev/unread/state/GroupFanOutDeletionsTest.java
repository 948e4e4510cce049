package dev.unread.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Whom a {@code MESSAGE_DELETED} reaches ("Deleted messages"), on the production backend. */
class GroupFanOutDeletionsTest {

    private static final long CHAT = 80001;
    private static final long ALICE = 10086;
    private static final long BOB = 10087;
    private static final long CAROL = 10088;

    private KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> harness;

    @BeforeEach
    void open() throws Exception {
        harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new GroupFanOut()),
                        e -> e.conversationId,
                        Types.LONG);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        harness.open();
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    @Test
    void inAConversationOnChatMessagesADeletionThatCameFirstReachesEachParticipantFirstSeen()
            throws Exception {
        send(ConversationEvent.deleted(CHAT, 5));
        assertThat(harness.extractOutputValues()).isEmpty();

        // The first chat-messages record of the conversation names both people.
        send(ConversationEvent.participant(CHAT, BOB), ConversationEvent.participant(CHAT, ALICE));
        assertThat(harness.extractOutputValues())
                .containsExactly(
                        ChatEvent.deleted(BOB, CHAT, 5), ChatEvent.deleted(ALICE, CHAT, 5));

        // Known now: told at once, and once.
        harness.getOutput().clear();
        send(
                ConversationEvent.participant(CHAT, BOB),
                ConversationEvent.deleted(CHAT, 7),
                ConversationEvent.deleted(CHAT, 7));
        assertThat(harness.extractOutputValues())
                .containsExactlyInAnyOrder(
                        ChatEvent.deleted(BOB, CHAT, 7), ChatEvent.deleted(ALICE, CHAT, 7));

        // Someone first seen later still learns both.
        harness.getOutput().clear();
        send(ConversationEvent.participant(CHAT, CAROL));
        assertThat(harness.extractOutputValues())
                .containsExactly(
                        ChatEvent.deleted(CAROL, CHAT, 5), ChatEvent.deleted(CAROL, CHAT, 7));
    }

    @Test
    void inAGroupADeletionReachesTheMembersAtItsSeqAndChangesNoMembership() throws Exception {
        send(
                ConversationEvent.joined(CHAT, ALICE, 1),
                ConversationEvent.joined(CHAT, BOB, 1),
                ConversationEvent.left(CHAT, BOB, 3),
                ConversationEvent.joined(CHAT, CAROL, 8));
        harness.getOutput().clear();

        send(ConversationEvent.deleted(CHAT, 5));
        assertThat(harness.extractOutputValues())
                .containsExactly(ChatEvent.deleted(ALICE, CHAT, 5));

        harness.getOutput().clear();
        send(ConversationEvent.message(CHAT, 9, ALICE, 1000));
        List<ChatEvent> fannedOut = harness.extractOutputValues();
        // Alice's own copy first, for her threads; then the members but her.
        assertThat(fannedOut).extracting(e -> e.userId).containsExactly(ALICE, CAROL);
    }

    private void send(ConversationEvent... events) throws Exception {
        for (ConversationEvent e : events) {
            harness.processElement(e, 0L);
        }
    }
}
