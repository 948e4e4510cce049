package dev.unread.groups;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.counter.UnreadCounter;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.ReadReceipt;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.UnreadCount;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 45, item 7: what one ALL_READ publishes, through the two stages the job wires for it, the
 * counter (keyed by user) and the readers (keyed by conversation), with the job's default {@link
 * ConversationReaders#DEFAULT_MAX_RECEIPT_PARTICIPANTS}. Before the bound, one ALL_READ over 20
 * groups of 150 members published 3,000 receipts: each raised cursor went to every participant.
 * docs/contract.md, "Mark all as read": one receipt per raised cursor, on {@code
 * READ_PROGRESS_CHANGED} alone, whatever the size of the conversations.
 */
class AllReadReceiptsTest {
    private static final long ALICE = 10086;
    private static final long FIRST_GROUP = 80001;
    private static final int GROUPS = 20;
    private static final int MEMBERS = 150;
    private static final long T0 = 1767225600000L;

    private KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> counter;
    private KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> readers;

    @BeforeEach
    void open() throws Exception {
        counter =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new UnreadCounter()), e -> e.userId, Types.LONG);
        counter.open();
        readers =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(
                                new ConversationReaders(
                                        ConversationReaders.DEFAULT_MAX_RECEIPT_PARTICIPANTS)),
                        u -> u.conversationId,
                        Types.LONG);
        readers.open();
        // Alice is one of each group's members; each group has a message to her from another.
        for (int g = 0; g < GROUPS; g++) {
            long group = FIRST_GROUP + g;
            for (long m = 0; m < MEMBERS; m++) {
                long member = m == 0 ? ALICE : 20_000 + g * MEMBERS + m;
                readers.processElement(ReaderUpdate.membership(group, member, true, m + 1), 0L);
            }
            counter.processElement(
                    ChatEvent.message(20_001 + g * MEMBERS, ALICE, group, MEMBERS + 1, T0), 0L);
        }
    }

    @AfterEach
    void close() throws Exception {
        counter.close();
        readers.close();
    }

    /** The receipts {@code read} makes: its cursors through the readers, as the job wires them. */
    private List<ReadReceipt> receipts(ChatEvent read) throws Exception {
        counter.processElement(read, 0L);
        ConcurrentLinkedQueue<StreamRecord<ConversationCursor>> cursors =
                counter.getSideOutput(UnreadCounter.CONVERSATION_CURSORS);
        for (StreamRecord<ConversationCursor> cursor : cursors) {
            readers.processElement(ReaderUpdate.cursor(cursor.getValue()), 0L);
        }
        cursors.clear();
        List<ReadReceipt> receipts = new ArrayList<>();
        ConcurrentLinkedQueue<StreamRecord<ReadReceipt>> out =
                readers.getSideOutput(ConversationReaders.RECEIPTS);
        if (out != null) {
            out.forEach(r -> receipts.add(r.getValue()));
            out.clear();
        }
        return receipts;
    }

    @Test
    void oneAllReadOverManyGroupsPublishesOneReceiptPerRaisedCursor() throws Exception {
        List<ReadReceipt> published = receipts(ChatEvent.allRead(ALICE, T0 + 1000));

        assertThat(published)
                .as("one ALL_READ over %d groups of %d members", GROUPS, MEMBERS)
                .hasSize(GROUPS)
                .allSatisfy(
                        r -> {
                            assertThat(r.recipientId).isEqualTo(ReadReceipt.EVERYONE);
                            assertThat(r.readerId).isEqualTo(ALICE);
                            assertThat(r.readSeq).isEqualTo(MEMBERS + 1);
                        });
        assertThat(published.stream().map(r -> r.conversationId).distinct()).hasSize(GROUPS);
    }

    @Test
    void aConversationReadStillReachesEachParticipant() throws Exception {
        List<ReadReceipt> published =
                receipts(ChatEvent.conversationRead(ALICE, FIRST_GROUP, MEMBERS + 1, T0 + 1000));

        assertThat(published)
                .as("READ_PROGRESS_CHANGED and each other member's channel")
                .hasSize(MEMBERS);
        assertThat(published.stream().map(r -> r.recipientId).distinct()).hasSize(MEMBERS);
    }
}
