package dev.unread.groups;

import dev.unread.events.ReadReceipt;
import dev.unread.events.ReaderUpdate;
import dev.unread.state.Memberships;
import dev.unread.state.StateSchema;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Per conversation (the key): participants(C) and their read cursors, for "read by N". Emits a
 * participant's cursor whenever the score {@code chat:readers:{C}} must hold for it rises: when a
 * participant's cursor advances, and when a user whose cursor is known becomes a participant. Both
 * inputs may come in any order, so the result is a function of the set of them.
 *
 * <p>Every cursor it receives from a participant is also a read receipt, sent to {@link #RECEIPTS}:
 * once for {@code READ_PROGRESS_CHANGED}, and once for each participant it concerns (all but the
 * reader) while the conversation has at most {@code maxReceiptParticipants} participants. Who those
 * are is known only here, where the conversation is the key; in larger conversations a receipt
 * would cost a publish per member, so there it goes to {@code READ_PROGRESS_CHANGED} alone. The
 * participants are those known when the receipt arrives: a receipt is a notice, not a count. A
 * cursor an ALL_READ raised when it arrived ({@link ReaderUpdate#allRead}) goes to {@code
 * READ_PROGRESS_CHANGED} alone, whatever the conversation's size: one ALL_READ raises a cursor in
 * each of its user's conversations with something unread, so its receipts are one per raised
 * cursor, as its MySQL rows and scores are, instead of one per participant of each
 * (docs/contract.md, "Mark all as read").
 *
 * <p>A member whose newest membership event (by seq; a leave wins a tie, as for the counts) is
 * MEMBER_LEFT is no participant: its score leaves {@code chat:readers:{C}}, it gets no receipts of
 * the conversation and sends none, and a {@code chat-messages} record naming it does not make it
 * one again; a later MEMBER_JOINED does, with the cursor it had.
 *
 * <p>State grows with the users who take part in or read the conversation, not with messages.
 */
public class ConversationReaders extends KeyedProcessFunction<Long, ReaderUpdate, ReaderUpdate> {

    /** The default of {@code --receipt-participants-max}. */
    public static final int DEFAULT_MAX_RECEIPT_PARTICIPANTS = 200;

    /** The receipts to publish, each with its channel. */
    public static final OutputTag<ReadReceipt> RECEIPTS =
            new OutputTag<>("read-receipts", Types.POJO(ReadReceipt.class));

    private final int maxReceiptParticipants;

    private transient MapState<Long, Long> readers;
    private transient ValueState<Integer> participants;
    private transient MapState<Long, Long> memberships;

    public ConversationReaders(int maxReceiptParticipants) {
        this.maxReceiptParticipants = maxReceiptParticipants;
    }

    @Override
    public void open(OpenContext openContext) {
        readers = getRuntimeContext().getMapState(StateSchema.READERS);
        participants = getRuntimeContext().getState(StateSchema.READER_COUNT);
        memberships = getRuntimeContext().getMapState(StateSchema.MEMBERSHIPS);
    }

    @Override
    public void processElement(ReaderUpdate update, Context ctx, Collector<ReaderUpdate> out)
            throws Exception {
        if (update.erased) {
            erase(update, out);
            return;
        }
        if (update.covered) {
            covered(update, out);
            return;
        }
        Long newest = memberships.get(update.userId);
        if (update.membership != 0) {
            if (newest != null && !Memberships.after(update.membership, newest)) {
                return;
            }
            memberships.put(update.userId, update.membership);
            if (update.membership < 0) {
                leave(update, out);
                return;
            }
        } else if (newest != null && newest < 0) {
            // Left: a message record naming the user does not bring it back, nor does its cursor
            // reach anyone; the cursor is kept for a return.
            if (!update.participant) {
                keepCursor(update.userId, readers.get(update.userId), update.lastReadSeq);
            }
            return;
        }
        Long known = readers.get(update.userId);
        if (update.participant) {
            if (known == null || known < 0) {
                participants.update(participants() + 1);
            }
            // A cursor that comes with the notice (one restored from an older version's state)
            // counts as any cursor would, but is no receipt.
            long cursor = Math.max(known == null ? 0 : Math.abs(known), update.lastReadSeq);
            if (known == null || known < 0 || cursor > known) {
                readers.put(update.userId, cursor);
                if (cursor > 0) {
                    out.collect(
                            new ReaderUpdate(update.conversationId, update.userId, cursor, true));
                }
            }
            return;
        }
        // A receipt only from a participant (docs/contract.md, "Read receipts channel"); the
        // cursor is kept all the same, as a read may arrive before the notice that its reader
        // takes part.
        if (known != null && known >= 0) {
            receipts(update, ctx);
        }
        if (known == null || known < 0) {
            keepCursor(update.userId, known, update.lastReadSeq);
        } else if (update.lastReadSeq > known) {
            readers.put(update.userId, update.lastReadSeq);
            out.collect(
                    new ReaderUpdate(
                            update.conversationId, update.userId, update.lastReadSeq, true));
        }
    }

    /**
     * Keeps the cursor of a user who is no participant (now), negated, if it is further than the
     * {@code known} entry the caller read.
     */
    private void keepCursor(long userId, Long known, long lastReadSeq) throws Exception {
        long cursor = known == null ? 0 : Math.abs(known);
        if (lastReadSeq > cursor || known == null) {
            readers.put(userId, -Math.max(lastReadSeq, cursor));
        }
    }

    /**
     * A member left: it counts no more among the participants, and its score goes. The removal is
     * sent even when this state never scored the user: after a restore, Redis may hold a score a
     * rolled-back timeline wrote before the leave arrived there.
     */
    private void leave(ReaderUpdate update, Collector<ReaderUpdate> out) throws Exception {
        Long known = readers.get(update.userId);
        if (known != null && known >= 0) {
            participants.update(participants() - 1);
            if (known == 0) {
                readers.remove(update.userId);
            } else {
                readers.put(update.userId, -known);
            }
        }
        out.collect(ReaderUpdate.removed(update.conversationId, update.userId));
    }

    /**
     * The user was erased: its cursor is forgotten, so that no later update brings the score back,
     * and its score goes. A participant stays one (its membership is the conversation's fact), with
     * no cursor; its membership event stays too. Conversation 0 stands for none (the MySQL sink's
     * erasure of every row), and has nothing here.
     */
    private void erase(ReaderUpdate update, Collector<ReaderUpdate> out) throws Exception {
        if (update.conversationId == 0) {
            return;
        }
        Long known = readers.get(update.userId);
        if (known != null && known > 0) {
            readers.put(update.userId, 0L);
        } else if (known != null && known < 0) {
            readers.remove(update.userId);
        }
        out.collect(ReaderUpdate.removed(update.conversationId, update.userId));
    }

    /**
     * An event of the user here came after the user's erasure, which covers it. A timeline that a
     * restore rolled back may have taken it before the erasure and scored the user here, and the
     * erasure, taken first this time, never came here to remove that score: the event is the only
     * sign of it. A score this state does not hold is such a one, so it goes. One it holds stays:
     * it came after the erasure, or the erasure's own removal, which leaves the counter by another
     * path than this, is still on its way here.
     */
    private void covered(ReaderUpdate update, Collector<ReaderUpdate> out) throws Exception {
        Long known = readers.get(update.userId);
        if (known == null || known <= 0) {
            out.collect(ReaderUpdate.removed(update.conversationId, update.userId));
        }
    }

    private void receipts(ReaderUpdate cursor, Context ctx) throws Exception {
        ctx.output(
                RECEIPTS,
                new ReadReceipt(
                        cursor.conversationId,
                        cursor.userId,
                        cursor.lastReadSeq,
                        ReadReceipt.EVERYONE));
        if (cursor.allRead || participants() > maxReceiptParticipants) {
            return;
        }
        for (var reader : readers.entries()) {
            long user = reader.getKey();
            if (reader.getValue() >= 0 && user != cursor.userId) {
                ctx.output(
                        RECEIPTS,
                        new ReadReceipt(
                                cursor.conversationId, cursor.userId, cursor.lastReadSeq, user));
            }
        }
    }

    private int participants() throws Exception {
        Integer count = participants.value();
        if (count == null) {
            int counted = 0;
            for (Long cursor : readers.values()) {
                if (cursor >= 0) {
                    counted++;
                }
            }
            count = counted;
            participants.update(count);
        }
        return count;
    }
}
