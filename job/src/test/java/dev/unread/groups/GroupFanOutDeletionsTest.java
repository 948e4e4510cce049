package dev.unread.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.seqs.UnreadChunks;
import dev.unread.state.StateSchema;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
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
        harness = FanOutHarness.open();
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
        // The members but its sender: a root goes to its sender only when root senders are
        // tracked.
        assertThat(fannedOut).extracting(e -> e.userId).containsExactly(CAROL);
    }

    @Test
    void whatAConversationKeepsForParticipantsToComeIsAtMostOneBitASeqOfItsRange()
            throws Exception {
        // A producer deleting messages nobody read, every other seq so that no run compresses,
        // and then all of them again: the bound holds for a million as for these.
        long range = 200_000;
        for (int pass = 0; pass < 2; pass++) {
            for (long seq = 1; seq <= range; seq += 2) {
                send(ConversationEvent.deleted(CHAT, seq));
            }
        }
        long chunks = range / (1 << UnreadChunks.CHUNK_BITS) + 1;

        assertThat(kept()).isEqualTo(range / 2);
        assertThat(keptBytes())
                .as("bytes for %,d deleted seqs in %d chunks of seqs", range / 2, chunks)
                .isLessThanOrEqualTo(chunks * UnreadChunks.MAX_CHUNK_BYTES + 3 * chunks)
                .isLessThan(range / 2 * 2);
    }

    /**
     * docs/contract.md, "Deleted messages", every order: a message whose deletion came first is
     * delivered stamped, also to a member whose join came after the deletion (never told it), and a
     * {@code chat-messages} reply whose deletion came first reaches its receiver stamped; what came
     * before its deletion goes out unstamped, and the deletion follows it.
     */
    @Test
    void aMessageOrReplyWhoseDeletionCameFirstIsDeliveredStamped() throws Exception {
        send(
                ConversationEvent.deleted(CHAT, 28),
                ConversationEvent.joined(CHAT, ALICE, 3),
                ConversationEvent.joined(CHAT, BOB, 4));
        harness.getOutput().clear();
        send(
                ConversationEvent.message(CHAT, 27, BOB, 1000),
                ConversationEvent.message(CHAT, 28, BOB, 1001, ALICE));
        assertThat(harness.extractOutputValues())
                .filteredOn(e -> e.userId == ALICE)
                .extracting(e -> e.seq, e -> e.deleted, e -> e.mentioned)
                .containsExactly(tuple(27L, false, false), tuple(28L, true, true));

        long oneToOne = CHAT + 1;
        ChatEvent early = ChatEvent.reply(BOB, ALICE, oneToOne, 5, 1, 1002, true);
        ChatEvent late = ChatEvent.reply(BOB, ALICE, oneToOne, 6, 1, 1003, false);
        harness.getOutput().clear();
        send(
                ConversationEvent.receivedReply(early),
                ConversationEvent.participant(oneToOne, ALICE),
                ConversationEvent.deleted(oneToOne, 5),
                ConversationEvent.deleted(oneToOne, 6),
                ConversationEvent.receivedReply(late));
        ChatEvent stamped = ChatEvent.reply(BOB, ALICE, oneToOne, 6, 1, 1003, false);
        stamped.deleted = true;
        assertThat(harness.extractOutputValues())
                .containsExactly(
                        early,
                        ChatEvent.deleted(ALICE, oneToOne, 5),
                        ChatEvent.deleted(ALICE, oneToOne, 6),
                        stamped);
    }

    /**
     * The figure docs/contract.md gives for deletions far apart: each 65,536-seq range with a
     * deletion is a state entry of its own, so such deletions cost an entry each, where deletions
     * close together cost at most 2 bytes each. Counted as a savepoint lays entries out (RocksDB
     * keys in Flink's canonical format: key group, conversation id, namespace and the map key, each
     * entry's key and value behind a length), since a snapshot's file size here mixes in fixed
     * parts larger than the figure. Printed for docs/benchmarks.md.
     */
    @Test
    void deletionsFarApartCostAStateEntryEach() throws Exception {
        int deletions = 20_000;
        for (long i = 0; i < deletions; i++) {
            send(ConversationEvent.deleted(CHAT, 1 + (i << UnreadChunks.CHUNK_BITS)));
        }
        double spread = (double) savepointBytes() / deletions;
        close();
        open();
        for (long i = 1; i <= deletions; i++) {
            send(ConversationEvent.deleted(CHAT, i * 2));
        }
        double close = (double) savepointBytes() / deletions;
        System.out.printf(
                "deletions kept for participants to come, %,d each way, savepoint bytes each:"
                        + " far apart %.1f, close together %.2f%n",
                deletions, spread, close);
        assertThat(spread).isGreaterThan(ENTRY_KEY_BYTES);
        assertThat(close).isLessThanOrEqualTo(2);
    }

    /**
     * A map entry's key as a savepoint writes it: a 2-byte key group, the 8-byte conversation id,
     * the 1-byte void namespace and the 16-byte (Long, Long) map key; plus a byte of length each
     * for key and value.
     */
    private static final int ENTRY_KEY_BYTES = 2 + 8 + 1 + 16 + 2;

    private long savepointBytes() throws Exception {
        long bytes = 0;
        for (MapStateDescriptor<Tuple2<Long, Long>, byte[]> d :
                List.of(
                        StateSchema.CONVERSATION_DELETED.chunks(),
                        StateSchema.CONVERSATION_DELETED.tree())) {
            for (byte[] value : state(d).values()) {
                bytes += ENTRY_KEY_BYTES + value.length;
            }
        }
        return bytes;
    }

    /** How many deleted seqs the conversation keeps for participants to come. */
    private long kept() throws Exception {
        long count = 0;
        for (byte[] chunk : state(StateSchema.CONVERSATION_DELETED.chunks()).values()) {
            count += UnreadChunks.values(chunk).length;
        }
        return count;
    }

    private long keptBytes() throws Exception {
        long bytes = 0;
        for (byte[] chunk : state(StateSchema.CONVERSATION_DELETED.chunks()).values()) {
            bytes += chunk.length;
        }
        for (byte[] node : state(StateSchema.CONVERSATION_DELETED.tree()).values()) {
            bytes += node.length;
        }
        return bytes;
    }

    private <K, V> MapState<K, V> state(MapStateDescriptor<K, V> descriptor) throws Exception {
        var backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(CHAT);
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }

    private void send(ConversationEvent... events) throws Exception {
        for (ConversationEvent e : events) {
            harness.processElement(e, 0L);
        }
    }
}
