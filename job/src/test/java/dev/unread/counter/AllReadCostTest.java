package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import dev.unread.state.ConversationStateSerializer;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import dev.unread.state.ThreadStateSerializer;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 37: an ALL_READ costs one pass over the user's conversations and threads when it arrives,
 * and nothing per message after; and what keeping the {@code sentAt} of unread messages costs. On
 * RocksDB, the production backend. The times printed are for the record (docs/benchmarks.md), not
 * asserted.
 */
class AllReadCostTest {

    private static final long ALICE = 10086;
    private static final long BOB = 10087;
    private static final long T0 = 1767225600000L;

    private final UnreadCounter counter = new UnreadCounter();
    private KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness;

    @BeforeEach
    void open() throws Exception {
        harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(counter), e -> e.userId, Types.LONG);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        harness.open();
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    @Test
    void tenThousandConversationsAndThreadsAreReadInOnePass() throws Exception {
        int conversations = 5_000;
        int threadsEach = 1;
        // Each conversation: two unread messages, and a thread with two unread replies that Alice
        // follows (she wrote its root): 5,000 conversations and 5,000 threads.
        for (long c = 1; c <= conversations; c++) {
            send(ChatEvent.message(ALICE, ALICE, c, 1, T0));
            send(ChatEvent.message(BOB, ALICE, c, 2, T0 + 1000));
            send(ChatEvent.message(BOB, ALICE, c, 3, T0 + 2000));
            for (long r = 0; r < threadsEach; r++) {
                send(rootByAlice(ChatEvent.reply(BOB, ALICE, c, 4 + 2 * r, 1, T0 + 3000, false)));
                send(rootByAlice(ChatEvent.reply(BOB, ALICE, c, 5 + 2 * r, 1, T0 + 4000, false)));
            }
        }
        // Few unread messages each: their sentAts are in the records, no entry of their own.
        assertThat(sentAts().isEmpty()).isTrue();
        long bytes = 0;
        long stateBytes = 0;
        for (Map.Entry<Long, ConversationState> e : state(StateSchema.CONVERSATIONS).entries()) {
            bytes += e.getValue().sentAts.length;
            stateBytes += size(ConversationStateSerializer.INSTANCE, e.getValue());
        }
        for (Map.Entry<Tuple2<Long, Long>, ThreadState> e : state(StateSchema.THREADS).entries()) {
            bytes += e.getValue().sentAts.length;
            stateBytes += size(ThreadStateSerializer.INSTANCE, e.getValue());
        }
        long entries = conversations * (1L + threadsEach);
        long unread = conversations * (2L + 2L * threadsEach);
        harness.getOutput().clear();
        cursors();

        long visitsBefore = counter.allReadVisits();
        long started = System.nanoTime();
        send(ChatEvent.allRead(ALICE, T0 + 10_000));
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        long visits = counter.allReadVisits() - visitsBefore;

        System.out.printf(
                "ALL_READ over %d conversations and %d threads: %d ms, %d state entries read;"
                        + " before it their records took %d bytes, of which %d the sentAts of"
                        + " %d unread messages (%.2f bytes a message, %.1f a record)%n",
                conversations,
                conversations * threadsEach,
                tookMs,
                visits,
                stateBytes,
                bytes,
                unread,
                (double) bytes / unread,
                (double) bytes / entries);
        // One pass: each conversation record and thread record read once.
        assertThat(visits).isEqualTo(entries);
        assertThat(sentAts().isEmpty()).isTrue();
        assertThat(harness.extractOutputValues())
                .contains(
                        UnreadCount.total(ALICE, Count.TOTAL_MESSAGES, 0),
                        UnreadCount.total(ALICE, Count.TOTAL_THREADS, 0));
        assertThat(cursors()).hasSize(conversations);

        // Nothing per message after it: a late message sent before it moves its cursor alone.
        visitsBefore = counter.allReadVisits();
        harness.getOutput().clear();
        send(ChatEvent.message(BOB, ALICE, 1, 9, T0 + 9_000));
        send(rootByAlice(ChatEvent.reply(BOB, ALICE, 1, 10, 1, T0 + 9_000, false)));
        assertThat(counter.allReadVisits()).isEqualTo(visitsBefore);
        assertThat(cursors()).extracting(c -> c.lastReadSeq).containsExactly(9L);
        assertThat(harness.extractOutputValues())
                .noneMatch(c -> c.count > 0 && c.conversationId == 1);
    }

    @Test
    void aSentAtCostsAFewBytesAnUnreadMessage() throws Exception {
        // A busy conversation: a message every 1 to 15 s, seqs one apart; and one with gaps.
        int n = 10_000;
        long at = T0;
        java.util.Random random = new java.util.Random(37);
        for (long seq = 1; seq <= n; seq++) {
            at += 1000 + random.nextInt(14_000);
            send(ChatEvent.message(BOB, ALICE, 1, seq, at));
        }
        // Past a record's share: in an entry of its own.
        byte[] frontier = sentAts().get(Tuple2.of(1L, 0L));
        double perMessage = (double) frontier.length / n;
        System.out.printf(
                "sentAt of %d unread messages 1-15 s apart: %d bytes, %.2f a message%n",
                n, frontier.length, perMessage);
        // A seq a byte, a gap under 16.4 s two: the first pair's absolute sentAt is the rest.
        assertThat(perMessage).isLessThanOrEqualTo(3.001);
    }

    private MapState<Tuple2<Long, Long>, byte[]> sentAts() throws Exception {
        return state(StateSchema.SENT_AT);
    }

    private <K, V> MapState<K, V> state(MapStateDescriptor<K, V> descriptor) throws Exception {
        harness.getOperator().getKeyedStateBackend().setCurrentKey(ALICE);
        return harness.getOperator()
                .getKeyedStateBackend()
                .getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    private static <T> long size(TypeSerializer<T> serializer, T record) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(record, out);
        return out.length();
    }

    @SuppressWarnings("unchecked")
    private List<ConversationCursor> cursors() {
        List<ConversationCursor> values =
                harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS) == null
                        ? List.of()
                        : harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS).stream()
                                .map(r -> ((StreamRecord<ConversationCursor>) r).getValue())
                                .toList();
        if (harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS) != null) {
            harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS).clear();
        }
        return values;
    }

    private void send(ChatEvent e) throws Exception {
        harness.processElement(e, 0L);
    }

    /** A reply that names Alice its root's sender: she follows its thread (version 4). */
    private static ChatEvent rootByAlice(ChatEvent reply) {
        reply.rootSenderId = ALICE;
        return reply;
    }
}
