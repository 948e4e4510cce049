package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.testing.CounterOnRocksDb;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * docs/contract.md's "Edits that change mentions" and "Channel-wide mentions" for one user, one by
 * one, on the production state backend: what an edit keeps and for how long, and the preference
 * that ignores channel mentions. UnreadCounterModelTest and GroupsModelTest check the counts on
 * random streams.
 */
class UnreadCounterEditsTest {

    private static final long ALICE = 10086;
    private static final long BOB = 10087;
    private static final long CHAT = 80001;

    private KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness;

    @BeforeEach
    void open() throws Exception {
        harness = CounterOnRocksDb.harness();
        harness.open();
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    @Test
    void anEditBeforeItsMessageDecidesWhenItComesAndAnOlderOneChangesNothing() throws Exception {
        send(
                ChatEvent.edited(ALICE, CHAT, 5, 0, 3000, true, false),
                ChatEvent.message(BOB, ALICE, CHAT, 5, 1000));
        assertThat(last(Count.MENTIONS)).isEqualTo(1);
        // An older edit, and a duplicate of the message as sent, change nothing.
        send(
                ChatEvent.edited(ALICE, CHAT, 5, 0, 2000, false, false),
                ChatEvent.message(BOB, ALICE, CHAT, 5, 1000));
        assertThat(last(Count.MENTIONS)).isEqualTo(1);
        // A tied edit that does not mention Alice: tied edits mention only if each does.
        send(ChatEvent.edited(ALICE, CHAT, 5, 0, 3000, false, false));
        assertThat(last(Count.MENTIONS)).isZero();
        assertThat(last(Count.CONVERSATION)).isEqualTo(1);
    }

    @Test
    void whatAnEditKeepsGoesWhenTheCursorPassesItsSeqWhateverTheEditsItHad() throws Exception {
        for (long seq = 10; seq < 20; seq++) {
            for (long at = 1; at <= 50; at++) {
                send(ChatEvent.edited(ALICE, CHAT, seq, 0, at, at % 2 == 0, false));
            }
        }
        // One record per message, whatever the number of its edits.
        assertThat(conversation().editCount).isEqualTo(10);
        assertThat(edits().get(CHAT)).hasSize(10 * 4);
        send(ChatEvent.conversationRead(ALICE, CHAT, 14, 5000));
        assertThat(conversation().editCount).isEqualTo(5);
        // A reply's edit is governed by its thread's cursor, not the conversation's.
        send(ChatEvent.edited(ALICE, CHAT, 30, 20, 1, true, false));
        send(ChatEvent.conversationRead(ALICE, CHAT, 40, 6000));
        assertThat(conversation().editCount).isEqualTo(1);
        send(ChatEvent.threadRead(ALICE, CHAT, 20, 30, 7000));
        assertThat(conversation().editCount).isZero();
        assertThat(edits().get(CHAT)).isNull();
    }

    /**
     * A reply sent before the user's ALL_READ that arrives after it moves its thread's cursor
     * ({@code AllRead}); the edits that cursor passes go as on a THREAD_READ.
     */
    @Test
    void aLateReplyThatMovesItsThreadsCursorTakesTheEditsItPasses() throws Exception {
        send(
                ChatEvent.reply(BOB, ALICE, CHAT, 21, 20, 1000, false),
                ChatEvent.edited(ALICE, CHAT, 22, 20, 1500, true, false),
                ChatEvent.allRead(ALICE, 5000));
        assertThat(conversation().editCount).isEqualTo(1);
        send(ChatEvent.reply(BOB, ALICE, CHAT, 23, 20, 4000, false));
        assertThat(conversation().editCount).isZero();
        assertThat(edits().get(CHAT)).isNull();
    }

    @Test
    void ignoringChannelMentionsDecidesForEarlierMessagesTooAndTheNewestSettingWins()
            throws Exception {
        ChatEvent channel = ChatEvent.message(BOB, ALICE, CHAT, 1, 1000);
        channel.mentionsAll = true;
        send(channel, ChatEvent.mention(BOB, ALICE, CHAT, 2, 1000));
        assertThat(last(Count.MENTIONS)).isEqualTo(2);
        send(
                ChatEvent.ignoreChannelMentions(
                        ALICE, CHAT, ChatEvent.NO_COUNT_PREFERENCE, true, 5000));
        assertThat(last(Count.MENTIONS)).isEqualTo(1);
        assertThat(last(Count.TOTAL_MENTIONS)).isEqualTo(1);
        // Older: changes nothing; the count preference on it still counts on its own.
        send(ChatEvent.ignoreChannelMentions(ALICE, CHAT, ChatEvent.MENTIONS, false, 4000));
        assertThat(last(Count.MENTIONS)).isEqualTo(1);
        assertThat(conversation().preference).isEqualTo(ChatEvent.MENTIONS);
        // A tie: ignoring wins.
        send(
                ChatEvent.ignoreChannelMentions(
                        ALICE, CHAT, ChatEvent.NO_COUNT_PREFERENCE, false, 5000));
        assertThat(last(Count.MENTIONS)).isEqualTo(1);
        send(
                ChatEvent.ignoreChannelMentions(
                        ALICE, CHAT, ChatEvent.NO_COUNT_PREFERENCE, false, 6000));
        assertThat(last(Count.MENTIONS)).isEqualTo(2);
        assertThat(last(Count.TOTAL_MENTIONS)).isEqualTo(2);
    }

    private ConversationState conversation() throws Exception {
        return aliceState(StateSchema.CONVERSATIONS).get(CHAT);
    }

    private MapState<Long, long[]> edits() throws Exception {
        return aliceState(StateSchema.EDITS);
    }

    private <K, V> MapState<K, V> aliceState(MapStateDescriptor<K, V> descriptor) throws Exception {
        var backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(ALICE);
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    private void send(ChatEvent... events) throws Exception {
        for (ChatEvent event : events) {
            harness.processElement(event, 0);
        }
    }

    /** The last value emitted of one kind (for the conversation, or the totals); 0 if none. */
    private long last(Count kind) {
        long conversation = kind == Count.TOTAL_MENTIONS ? 0 : CHAT;
        List<UnreadCount> of =
                harness.extractOutputValues().stream()
                        .filter(c -> c.kind == kind && c.conversationId == conversation)
                        .toList();
        return of.isEmpty() ? 0 : of.get(of.size() - 1).count;
    }
}
