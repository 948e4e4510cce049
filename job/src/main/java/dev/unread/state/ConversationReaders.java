package dev.unread.state;

import dev.unread.events.ReaderUpdate;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Per conversation (the key): participants(C) and their read cursors, for "read by N". Emits a
 * participant's cursor whenever the score {@code chat:readers:{C}} must hold for it rises: when a
 * participant's cursor advances, and when a user whose cursor is known becomes a participant. Both
 * inputs may come in any order, so the result is a function of the set of them.
 *
 * <p>The participants kept here are also the users a {@code READ_RECEIPT} in C concerns (all but
 * the reader), for the live push: the entries of {@link #READERS} with a value of at least 0.
 *
 * <p>State grows with the users who take part in or read the conversation, not with messages.
 */
public class ConversationReaders extends KeyedProcessFunction<Long, ReaderUpdate, ReaderUpdate> {

    /**
     * userId → for a participant, its cursor (0 when it never read); for a user known only by a
     * cursor, the cursor negated, until the user turns out to be a participant too.
     */
    public static final MapStateDescriptor<Long, Long> READERS =
            new MapStateDescriptor<>("conversation-readers", Types.LONG, Types.LONG);

    private transient MapState<Long, Long> readers;

    @Override
    public void open(OpenContext openContext) {
        readers = getRuntimeContext().getMapState(READERS);
    }

    @Override
    public void processElement(ReaderUpdate update, Context ctx, Collector<ReaderUpdate> out)
            throws Exception {
        Long known = readers.get(update.userId);
        if (update.participant) {
            if (known == null) {
                readers.put(update.userId, 0L);
            } else if (known < 0) {
                readers.put(update.userId, -known);
                out.collect(new ReaderUpdate(update.conversationId, update.userId, -known, true));
            }
        } else if (known == null || (known < 0 && update.lastReadSeq > -known)) {
            readers.put(update.userId, -update.lastReadSeq);
        } else if (known >= 0 && update.lastReadSeq > known) {
            readers.put(update.userId, update.lastReadSeq);
            out.collect(
                    new ReaderUpdate(
                            update.conversationId, update.userId, update.lastReadSeq, true));
        }
    }
}
