package dev.unread.groups;

import static dev.unread.events.ReaderUpdate.participant;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ReadReceipt;
import dev.unread.events.ReaderUpdate;
import dev.unread.state.StateSchema;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** "Readers": participants' cursors, scores only rising, whatever the order of the inputs. */
class ConversationReadersTest {

    private static final long GROUP = 80001;

    private static ReaderUpdate cursor(long user, long seq) {
        return new ReaderUpdate(GROUP, user, seq, false);
    }

    /** Runs {@code updates} and returns the scores a rise-only sorted set would hold. */
    private static Map<Long, Long> scores(List<ReaderUpdate> updates) throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> harness =
                harness(ConversationReaders.DEFAULT_MAX_RECEIPT_PARTICIPANTS)) {
            for (ReaderUpdate u : updates) {
                harness.processElement(u, 0L);
            }
            Map<Long, Long> scores = new TreeMap<>();
            for (Object o : harness.getOutput()) {
                ReaderUpdate out = ((StreamRecord<ReaderUpdate>) o).getValue();
                assertThat(out.participant).isTrue();
                assertThat(out.lastReadSeq).isPositive();
                scores.merge(out.userId, out.lastReadSeq, Math::max);
            }
            return scores;
        }
    }

    @Test
    void onlyParticipantsWithACursorAreReaders() throws Exception {
        assertThat(
                        scores(
                                List.of(
                                        participant(GROUP, 1),
                                        participant(GROUP, 2),
                                        cursor(1, 5),
                                        cursor(3, 9))))
                .isEqualTo(Map.of(1L, 5L));
    }

    @Test
    void aCursorKnownBeforeTheUserTakesPartCountsOnceItDoes() throws Exception {
        assertThat(scores(List.of(cursor(3, 9), cursor(3, 4), participant(GROUP, 3))))
                .isEqualTo(Map.of(3L, 9L));
    }

    private static ReaderUpdate erased(long user) {
        ReaderUpdate update = new ReaderUpdate(GROUP, user, 0, false);
        update.erased = true;
        return update;
    }

    /**
     * An erasure removes the user's score and forgets its cursor, so a later participant notice
     * brings no score back; a participant stays one (receipts of others still reach it), and a
     * cursor after the erasure scores again from nothing.
     */
    @Test
    @SuppressWarnings("unchecked")
    void anErasureRemovesTheScoreAndForgetsTheCursor() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> harness =
                harness(ConversationReaders.DEFAULT_MAX_RECEIPT_PARTICIPANTS)) {
            for (ReaderUpdate u :
                    List.of(
                            participant(GROUP, 1),
                            participant(GROUP, 2),
                            cursor(1, 5),
                            cursor(3, 9),
                            erased(1),
                            erased(3),
                            participant(GROUP, 1),
                            participant(GROUP, 3))) {
                harness.processElement(u, 0L);
            }
            List<ReaderUpdate> out = new ArrayList<>();
            harness.getOutput().forEach(o -> out.add(((StreamRecord<ReaderUpdate>) o).getValue()));
            assertThat(out)
                    .containsExactly(
                            new ReaderUpdate(GROUP, 1, 5, true),
                            ReaderUpdate.removed(GROUP, 1),
                            ReaderUpdate.removed(GROUP, 3));
            harness.getSideOutput(ConversationReaders.RECEIPTS).clear();
            harness.getOutput().clear();

            harness.processElement(cursor(2, 6), 0L);
            assertThat(harness.getSideOutput(ConversationReaders.RECEIPTS))
                    .as("the erased participant still gets others' receipts")
                    .extracting(r -> ((StreamRecord<ReadReceipt>) r).getValue().recipientId)
                    .contains(1L);
            harness.processElement(cursor(1, 2), 0L);
            assertThat(harness.getOutput())
                    .extracting(o -> ((StreamRecord<ReaderUpdate>) o).getValue())
                    .contains(new ReaderUpdate(GROUP, 1, 2, true));
        }
    }

    /** A participant with its cursor, as restored from an older version's state. */
    private static ReaderUpdate restored(long user, long seq) {
        return new ReaderUpdate(GROUP, user, seq, true);
    }

    @Test
    void aRestoredCursorScoresAsAnyCursorButSendsNoReceipt() throws Exception {
        List<ReaderUpdate> updates =
                List.of(
                        participant(GROUP, 1),
                        cursor(2, 3),
                        restored(2, 7),
                        restored(1, 4),
                        restored(1, 2),
                        cursor(1, 3));
        assertThat(scores(updates)).isEqualTo(Map.of(1L, 4L, 2L, 7L));
        // Only live cursors of participants are receipts (2 at 3 came before 2 took part), the
        // restored ones are not.
        assertThat(receipts(ConversationReaders.DEFAULT_MAX_RECEIPT_PARTICIPANTS, updates))
                .containsExactly(receipt(1, 3, ReadReceipt.EVERYONE), receipt(1, 3, 2));
    }

    @Test
    void anyOrderWithDuplicatesGivesTheSameScores() throws Exception {
        List<ReaderUpdate> updates = new ArrayList<>();
        for (long user = 1; user <= 6; user++) {
            if (user % 3 != 0) {
                updates.add(participant(GROUP, user));
            }
            for (long seq = 1; seq <= user; seq++) {
                updates.add(cursor(user, seq * 10));
            }
        }
        Map<Long, Long> expected = Map.of(1L, 10L, 2L, 20L, 4L, 40L, 5L, 50L);
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int round = 0; round < 20; round++) {
            List<ReaderUpdate> order = new ArrayList<>(updates);
            for (int i = 0; i < 5; i++) {
                order.add(updates.get(random.nextInt(updates.size())));
            }
            Collections.shuffle(order, random);
            assertThat(scores(order)).as("seed " + seed + ", order " + order).isEqualTo(expected);
        }
    }

    /** Runs {@code updates} with at most {@code max} participants per receipt; the receipts. */
    private static List<ReadReceipt> receipts(int max, List<ReaderUpdate> updates)
            throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> harness =
                harness(max)) {
            for (ReaderUpdate u : updates) {
                harness.processElement(u, 0L);
            }
            return sent(harness);
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> harness(
            int max) throws Exception {
        KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new ConversationReaders(max)),
                        u -> u.conversationId,
                        Types.LONG);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        harness.open();
        return harness;
    }

    private static List<ReadReceipt> sent(
            KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> harness) {
        List<ReadReceipt> receipts = new ArrayList<>();
        var side = harness.getSideOutput(ConversationReaders.RECEIPTS);
        if (side != null) {
            side.forEach(record -> receipts.add(record.getValue()));
        }
        return receipts;
    }

    private static ReadReceipt receipt(long reader, long seq, long recipient) {
        return new ReadReceipt(GROUP, reader, seq, recipient);
    }

    @Test
    void aReceiptGoesToEveryoneAndToEachParticipantButTheReader() throws Exception {
        assertThat(
                        receipts(
                                3,
                                List.of(
                                        participant(GROUP, 1),
                                        participant(GROUP, 2),
                                        participant(GROUP, 3),
                                        cursor(1, 5),
                                        cursor(4, 7))))
                .containsExactlyInAnyOrder(
                        receipt(1, 5, ReadReceipt.EVERYONE), receipt(1, 5, 2), receipt(1, 5, 3));
    }

    /**
     * Issue 22, item 2: a receipt only from a participant; a reader who takes no part (4) sends
     * none, and its cursor scores nowhere, however high its readSeq.
     */
    @Test
    void aReaderWhoTakesNoPartSendsNoReceipt() throws Exception {
        List<ReaderUpdate> updates =
                List.of(participant(GROUP, 1), participant(GROUP, 2), cursor(4, 999_999));
        assertThat(receipts(3, updates)).isEmpty();
        assertThat(scores(updates)).isEmpty();
    }

    @Test
    void aCursorKnownBeforeItsReaderTakesPartIsNoReceiptButScoresOnceItDoes() throws Exception {
        List<ReaderUpdate> updates =
                List.of(participant(GROUP, 2), cursor(1, 5), participant(GROUP, 1));
        assertThat(receipts(3, updates)).isEmpty();
        assertThat(scores(updates)).isEqualTo(Map.of(1L, 5L));
    }

    @Test
    void overTheLimitAReceiptGoesToEveryoneOnly() throws Exception {
        List<ReaderUpdate> updates = new ArrayList<>();
        for (long user = 1; user <= 4; user++) {
            updates.add(participant(GROUP, user));
            // A duplicate notice is the same participant, not one more.
            updates.add(participant(GROUP, user));
        }
        updates.add(cursor(1, 5));
        assertThat(receipts(3, updates)).containsExactly(receipt(1, 5, ReadReceipt.EVERYONE));
        assertThat(receipts(4, updates)).hasSize(4);
    }

    private static ReaderUpdate joined(long user, long seq) {
        return ReaderUpdate.membership(GROUP, user, true, seq);
    }

    private static ReaderUpdate left(long user, long seq) {
        return ReaderUpdate.membership(GROUP, user, false, seq);
    }

    /** Runs {@code updates}; the sorted set their outputs leave: ZADD GT, ZREM on a removal. */
    private static Map<Long, Long> members(List<ReaderUpdate> updates) throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> harness =
                harness(ConversationReaders.DEFAULT_MAX_RECEIPT_PARTICIPANTS)) {
            for (ReaderUpdate u : updates) {
                harness.processElement(u, 0L);
            }
            Map<Long, Long> set = new TreeMap<>();
            for (Object o : harness.getOutput()) {
                ReaderUpdate out = ((StreamRecord<ReaderUpdate>) o).getValue();
                if (out.participant) {
                    set.merge(out.userId, out.lastReadSeq, Math::max);
                } else {
                    set.remove(out.userId);
                }
            }
            return set;
        }
    }

    @Test
    void aMemberWhoLeftIsNoReaderAndNeitherGetsNorSendsReceiptsUntilItJoinsAgain()
            throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> harness =
                harness(10)) {
            for (ReaderUpdate u :
                    List.of(joined(1, 1), joined(2, 2), cursor(2, 3), cursor(1, 5), left(2, 6))) {
                harness.processElement(u, 0L);
            }
            harness.getSideOutput(ConversationReaders.RECEIPTS).clear();
            harness.getOutput().clear();

            harness.processElement(cursor(1, 7), 0L);
            harness.processElement(cursor(2, 8), 0L);
            // A message naming the leaver does not bring it back.
            harness.processElement(participant(GROUP, 2), 0L);
            harness.processElement(cursor(1, 9), 0L);
            assertThat(sent(harness))
                    .containsExactly(
                            receipt(1, 7, ReadReceipt.EVERYONE),
                            receipt(1, 9, ReadReceipt.EVERYONE));

            harness.processElement(joined(2, 10), 0L);
            harness.processElement(cursor(1, 11), 0L);
            assertThat(sent(harness)).contains(receipt(1, 11, 2)).doesNotContain(receipt(2, 8, 1));
            assertThat(harness.getOutput())
                    .as("back with the cursor it read while away")
                    .contains(new StreamRecord<>(new ReaderUpdate(GROUP, 2, 8, true), 0L));
        }
    }

    /**
     * After a restore the leave may arrive before the join it follows, so this state never scored
     * the user, while Redis holds the score a rolled-back timeline wrote: the removal goes anyway.
     * (DependencyOutageITCase found such a score left behind after a restart.)
     */
    @Test
    void aLeaveRemovesTheMemberEvenWhereThisStateNeverScoredIt() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> harness =
                harness(10)) {
            harness.processElement(left(5, 20), 0L);
            harness.processElement(joined(5, 10), 0L);
            harness.processElement(cursor(5, 7), 0L);

            assertThat(harness.getOutput())
                    .containsExactly(new StreamRecord<>(ReaderUpdate.removed(GROUP, 5), 0L));
        }
    }

    /**
     * An event that its user's erasure covers, come after the erasure, takes out a score this state
     * does not hold, which a rolled-back timeline may have written (ReadersErasureRestoreTest): of
     * a participant without a cursor, of one who left, of a user unknown here. A score it holds
     * came after the erasure and stays; the state is left as it was.
     */
    @Test
    void aCoveredEventRemovesOnlyAScoreThisStateDoesNotHold() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> harness =
                harness(ConversationReaders.DEFAULT_MAX_RECEIPT_PARTICIPANTS)) {
            harness.processElement(participant(GROUP, 1), 0L);
            harness.processElement(participant(GROUP, 2), 0L);
            harness.processElement(cursor(2, 5), 0L);
            harness.processElement(joined(3, 1), 0L);
            harness.processElement(cursor(3, 4), 0L);
            harness.processElement(left(3, 2), 0L);
            harness.getOutput().clear();

            for (long user = 1; user <= 4; user++) {
                harness.processElement(ReaderUpdate.covered(GROUP, user), 0L);
            }
            assertThat(harness.extractOutputValues())
                    .containsExactly(
                            ReaderUpdate.removed(GROUP, 1),
                            ReaderUpdate.removed(GROUP, 3),
                            ReaderUpdate.removed(GROUP, 4));
            harness.getOutput().clear();

            harness.processElement(cursor(2, 6), 0L);
            harness.processElement(joined(3, 3), 0L);
            assertThat(harness.extractOutputValues())
                    .as("the cursors are kept")
                    .containsExactly(
                            new ReaderUpdate(GROUP, 2, 6, true),
                            new ReaderUpdate(GROUP, 3, 4, true));
        }
    }

    @Test
    void whoLeftIsAFunctionOfTheSetOfEventsLeaveWinningATie() throws Exception {
        List<ReaderUpdate> updates =
                List.of(
                        joined(1, 10),
                        cursor(1, 5),
                        left(1, 20),
                        joined(2, 10),
                        cursor(2, 12),
                        left(2, 30),
                        joined(2, 40),
                        joined(3, 50),
                        left(3, 50),
                        cursor(3, 4),
                        participant(GROUP, 4),
                        cursor(4, 6));
        Map<Long, Long> expected = Map.of(2L, 12L, 4L, 6L);
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int round = 0; round < 30; round++) {
            List<ReaderUpdate> order = new ArrayList<>(updates);
            for (int i = 0; i < 4; i++) {
                order.add(updates.get(random.nextInt(updates.size())));
            }
            Collections.shuffle(order, random);
            assertThat(members(order)).as("seed " + seed + ", order " + order).isEqualTo(expected);
        }
    }

    @Test
    void participantsAreCountedFromTheReadersWhenTheCountIsMissing() throws Exception {
        // As after a restore of a savepoint taken before the count existed.
        try (KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> harness =
                harness(2)) {
            harness.processElement(participant(GROUP, 1), 0L);
            harness.processElement(participant(GROUP, 2), 0L);
            harness.processElement(cursor(3, 1), 0L);
            harness.getOperator().setCurrentKey(GROUP);
            harness.getOperator().getKeyedStateStore().getState(StateSchema.READER_COUNT).clear();
            harness.processElement(cursor(1, 5), 0L);
            harness.processElement(participant(GROUP, 3), 0L);
            harness.processElement(cursor(1, 6), 0L);

            assertThat(sent(harness))
                    .containsExactly(
                            // 3 is known by its cursor only: not counted, and no receipt.
                            receipt(1, 5, ReadReceipt.EVERYONE),
                            receipt(1, 5, 2),
                            receipt(1, 6, ReadReceipt.EVERYONE));
        }
    }
}
