package dev.unread.counter;

import static dev.unread.events.ChatEvent.conversationRead;
import static dev.unread.events.ChatEvent.inboxOpened;
import static dev.unread.events.ChatEvent.membership;
import static dev.unread.events.ChatEvent.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.UnreadCount;
import dev.unread.testing.CounterOnRocksDb;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * "While U's newest membership event in C is MEMBER_LEFT, U's counts for C are 0", in the per-user
 * counter, on the production state backend.
 */
class UnreadCounterMembershipTest {

    private static final long ALICE = 10086;
    private static final long BOB = 10087;
    private static final long GROUP = 80001;

    private CounterOnRocksDb counter;
    private KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness;

    @BeforeEach
    void open() throws Exception {
        counter = CounterOnRocksDb.open();
        harness = counter.harness;
    }

    @AfterEach
    void close() throws Exception {
        counter.close();
    }

    private List<UnreadCount> send(ChatEvent... events) throws Exception {
        harness.getOutput().clear();
        for (ChatEvent e : events) {
            harness.processElement(e, 0L);
        }
        List<UnreadCount> out = new ArrayList<>();
        for (Object o : harness.getOutput()) {
            out.add(((StreamRecord<UnreadCount>) o).getValue());
        }
        return UnreadCounterTest.unreadOnly(out);
    }

    private static ChatEvent groupMessage(long seq) {
        return message(BOB, ALICE, GROUP, seq, 1000 + seq);
    }

    @Test
    void leavingHidesTheCountAndRejoiningBringsBackWhatStillCounts() throws Exception {
        send(membership(true, ALICE, GROUP, 1), groupMessage(2), groupMessage(3), groupMessage(4));
        assertThat(send(membership(false, ALICE, GROUP, 5)))
                .containsExactly(UnreadCount.conversation(ALICE, GROUP, 0));
        // Read while away: the cursor moves, the count stays hidden.
        assertThat(send(conversationRead(ALICE, GROUP, 3, 9000)))
                .doesNotContain(UnreadCount.conversation(ALICE, GROUP, 1));
        assertThat(harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS))
                .extracting(r -> r.getValue())
                .containsExactly(new ConversationCursor(ALICE, GROUP, 3, 0));
        assertThat(send(membership(true, ALICE, GROUP, 8)))
                .containsExactly(UnreadCount.conversation(ALICE, GROUP, 1));
    }

    @Test
    void leavingDoesNotTouchTheBadge() throws Exception {
        send(membership(true, ALICE, GROUP, 1), groupMessage(2));
        assertThat(send(membership(false, ALICE, GROUP, 5)))
                .doesNotContain(UnreadCount.senders(ALICE, 0));
        assertThat(send(inboxOpened(ALICE, 2000))).containsExactly(UnreadCount.senders(ALICE, 0));
    }

    @Test
    void anOlderLeaveAfterANewerJoinChangesNothing() throws Exception {
        send(membership(true, ALICE, GROUP, 10), groupMessage(11));
        assertThat(send(membership(false, ALICE, GROUP, 5))).isEmpty();
        assertThat(send(groupMessage(12)))
                .containsExactly(UnreadCount.conversation(ALICE, GROUP, 2));
    }

    @Test
    void aLeaveAndAJoinAtOneSeqHideInEitherOrder() throws Exception {
        send(membership(true, ALICE, GROUP, 1), groupMessage(2));
        assertThat(send(membership(true, ALICE, GROUP, 7), membership(false, ALICE, GROUP, 7)))
                .containsExactly(UnreadCount.conversation(ALICE, GROUP, 0));
        assertThat(send(membership(true, ALICE, GROUP, 7))).isEmpty();
    }

    @Test
    void aMessageToALeaverIsKeptButNotShown() throws Exception {
        send(membership(false, ALICE, GROUP, 1));
        assertThat(send(groupMessage(2))).doesNotContain(UnreadCount.conversation(ALICE, GROUP, 1));
        assertThat(send(membership(true, ALICE, GROUP, 3)))
                .containsExactly(UnreadCount.conversation(ALICE, GROUP, 1));
    }
}
