package dev.unread.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
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

    /** How many deleted seqs the conversation keeps for participants to come. */
    private long kept() throws Exception {
        long count = 0;
        for (byte[] chunk : state(DeletionsToCome.DELETED_CHUNKS).values()) {
            count += UnreadChunks.values(chunk).length;
        }
        return count;
    }

    private long keptBytes() throws Exception {
        long bytes = 0;
        for (byte[] chunk : state(DeletionsToCome.DELETED_CHUNKS).values()) {
            bytes += chunk.length;
        }
        for (byte[] node : state(DeletionsToCome.DELETED_CHUNK_TREE).values()) {
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
