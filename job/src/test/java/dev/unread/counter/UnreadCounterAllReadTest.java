package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import dev.unread.testing.CounterOnRocksDb;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 37, the cases the model tests reach only by chance: a message the conversation's stage
 * delivered stamped deleted before the ALL_READ still moves the cursor, and state restored from a
 * build that kept no {@code sentAt} is read by the next ALL_READ (DESIGN "Upgrades to version 4").
 */
class UnreadCounterAllReadTest {

    private static final long ALICE = 1;
    private static final long BOB = 2;
    private static final long CHAT = 80001;
    private static final long OTHER = 80002;

    private CounterOnRocksDb counter;

    @BeforeEach
    void open() throws Exception {
        counter = CounterOnRocksDb.open();
    }

    @AfterEach
    void close() throws Exception {
        counter.close();
    }

    @Test
    void aMessageDeliveredDeletedBeforeTheMarkStillMovesTheCursor() throws Exception {
        ChatEvent deleted = ChatEvent.message(BOB, ALICE, CHAT, 7, 90);
        deleted.deleted = true;
        send(deleted);
        send(ChatEvent.message(BOB, ALICE, CHAT, 6, 150));
        send(ChatEvent.allRead(ALICE, 100));

        assertThat(cursors()).extracting(c -> c.lastReadSeq).containsExactly(7L);
        assertThat(last(Count.CONVERSATION, CHAT)).isZero();
        // Seq 6 came after the mark was sent, but lies below the cursor it raised.
        send(ChatEvent.message(BOB, ALICE, CHAT, 8, 160));
        assertThat(last(Count.CONVERSATION, CHAT)).isEqualTo(1);
    }

    @Test
    void unreadMessagesRestoredWithoutSentAtAreReadByTheNextMark() throws Exception {
        // Sent after the mark to come, yet restored without their sentAt: read by it.
        send(ChatEvent.message(BOB, ALICE, CHAT, 5, 900));
        send(ChatEvent.message(BOB, ALICE, OTHER, 3, 900));
        send(ChatEvent.message(ALICE, ALICE, OTHER, 10, 10));
        send(rootByAlice(ChatEvent.reply(BOB, ALICE, OTHER, 11, 10, 900, false)));
        assertThat(lastThread(OTHER, 10)).isEqualTo(1);
        asAnEarlierBuildKeptIt();

        // After the restore: a message sent after the mark, to a conversation with restored ones.
        send(ChatEvent.message(BOB, ALICE, CHAT, 6, 700));
        send(ChatEvent.allRead(ALICE, 600));

        assertThat(last(Count.CONVERSATION, CHAT)).isEqualTo(1);
        assertThat(last(Count.CONVERSATION, OTHER)).isZero();
        assertThat(lastThread(OTHER, 10)).isZero();
        assertThat(cursors())
                .extracting(c -> c.conversationId + "#" + c.lastReadSeq)
                .containsExactlyInAnyOrder(CHAT + "#5", OTHER + "#3");
    }

    /** Drops what this build keeps of the sentAts, and marks the records as an earlier build's. */
    private void asAnEarlierBuildKeptIt() throws Exception {
        counter.state(StateSchema.SENT_AT).clear();
        MapState<Long, ConversationState> conversations = counter.state(StateSchema.CONVERSATIONS);
        List<Map.Entry<Long, ConversationState>> all = new ArrayList<>();
        conversations.entries().forEach(all::add);
        for (Map.Entry<Long, ConversationState> e : all) {
            e.getValue().sentAtKept = 0;
            conversations.put(e.getKey(), e.getValue());
        }
        MapState<Tuple2<Long, Long>, ThreadState> threads = counter.state(StateSchema.THREADS);
        ThreadState t = threads.get(Tuple2.of(OTHER, 10L));
        assertThat(t.unreadCount).isEqualTo(1);
        t.sentAtKept = false;
        threads.put(Tuple2.of(OTHER, 10L), t);
        counter.reopen();
    }

    private void send(ChatEvent e) throws Exception {
        counter.harness.processElement(e, 0L);
        counter.harness.getOperator().getKeyedStateBackend().setCurrentKey(ALICE);
    }

    private long last(Count kind, long conversationId) {
        long last = -1;
        for (UnreadCount c : counter.harness.extractOutputValues()) {
            if (c.userId == ALICE && c.kind == kind && c.conversationId == conversationId) {
                last = c.count;
            }
        }
        return last;
    }

    private long lastThread(long conversationId, long threadSeq) {
        long last = -1;
        for (UnreadCount c : counter.harness.extractOutputValues()) {
            if (c.userId == ALICE
                    && c.kind == Count.THREAD
                    && c.conversationId == conversationId
                    && c.threadSeq == threadSeq) {
                last = c.count;
            }
        }
        return last;
    }

    @SuppressWarnings("unchecked")
    private List<ConversationCursor> cursors() {
        var queue = counter.harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS);
        List<ConversationCursor> values = new ArrayList<>();
        if (queue != null) {
            for (Object o : queue) {
                values.add(((StreamRecord<ConversationCursor>) o).getValue());
            }
        }
        return values;
    }

    /** A reply that names Alice its root's sender: she follows its thread (version 4). */
    private static ChatEvent rootByAlice(ChatEvent reply) {
        reply.rootSenderId = ALICE;
        return reply;
    }
}
