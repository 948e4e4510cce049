package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import java.util.Arrays;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;

/**
 * Edits that change whom a message mentions (docs/contract.md, "Edits that change mentions"), per
 * user: for each message of a conversation that an edit named, the newest {@code editedAt} and what
 * the edits at that time say, so that an older edit that arrives later changes nothing and a
 * message that arrives after its edit (or again, as a duplicate) counts as edited. Only the newest
 * time and its verdict are kept, so an edit costs the same however many edits the message had.
 *
 * <p>Edits tied on {@code editedAt} mention the user only if each of them does. Whether an edit
 * mentions the user depends on the conversation's ignoreChannelMentions, which may change later, so
 * a record keeps two flags, each the AND over the tied edits: "names the user" ({@link
 * #BY_ID_FLAG}) and "names the user or the whole channel" ({@link #ANY_FLAG}). The tied edits
 * mention the user iff the first holds, or the second does and channel mentions are not ignored:
 * exactly the AND of each edit's own verdict.
 *
 * <p>A conversation's records are one entry of {@link StateSchema#EDITS}, read only when its record
 * counts some ({@link ConversationState#editCount}): a message of a conversation without edits
 * costs nothing here. A record lasts while the cursor that governs its seq (the thread's for a
 * reply) has not passed it: for an unread message, beside its seq in the unread set; for an edit
 * whose message has not come, until it comes and is read.
 */
final class Edits {

    /** Whom a message mentions: nobody. */
    static final int NONE = 0;

    /** The user, by id. */
    static final int BY_ID = 1;

    /** The whole channel, not the user by id: a mention unless channel mentions are ignored. */
    static final int CHANNEL = 2;

    /**
     * Added by {@link #mention} to a verdict an edit made, which replaces what the message's
     * records say; without it, each record of the message may only add a mention (some record names
     * the user: a mention by id; else some record mentions the channel: channel-wide).
     */
    static final int EDITED = 4;

    private static final long BY_ID_FLAG = 1;
    private static final long ANY_FLAG = 2;

    /** Longs per record: seq, thread's root seq, editedAt, flags. */
    private static final int WIDTH = 4;

    private final MapState<Long, long[]> edits;

    Edits(RuntimeContext context) {
        edits = context.getMapState(StateSchema.EDITS);
    }

    /**
     * Whom a message (or one edit) mentions, from its {@code mentioned} and {@code mentionsAll}.
     */
    static int of(boolean mentioned, boolean mentionsAll) {
        return mentioned ? BY_ID : mentionsAll ? CHANNEL : NONE;
    }

    /**
     * Whom message {@code seq} mentions: as its newest edits say, plus {@link #EDITED}; else {@code
     * asSent}, what this record of the message says.
     */
    int mention(long conversationId, ConversationState state, long seq, long threadSeq, int asSent)
            throws Exception {
        if (state.editCount == 0) {
            return asSent;
        }
        long[] records = edits.get(conversationId);
        int at = records == null ? -1 : find(records, seq, threadSeq);
        return at < 0 ? asSent : verdict(records[at * WIDTH + 3]) | EDITED;
    }

    /**
     * Keeps {@code edit} if it is at least as new as what is kept for its message; returns whom the
     * message now mentions, or -1 when the edit changes nothing (an older edit, or a tie that takes
     * nothing away). Keeps {@link ConversationState#editCount}; the caller stores the state.
     */
    int apply(ChatEvent edit, ConversationState state) throws Exception {
        long flags =
                (edit.mentioned ? BY_ID_FLAG : 0)
                        | (edit.mentioned || edit.mentionsAll ? ANY_FLAG : 0);
        long[] records = state.editCount == 0 ? null : edits.get(edit.conversationId);
        if (records == null) {
            records = new long[0];
        }
        int at = find(records, edit.seq, edit.threadSeq);
        if (at >= 0) {
            int i = at * WIDTH;
            long keptAt = records[i + 2];
            long kept = records[i + 3];
            if (edit.time < keptAt || (edit.time == keptAt && (kept & flags) == kept)) {
                return -1;
            }
            records[i + 3] = edit.time == keptAt ? kept & flags : flags;
            records[i + 2] = edit.time;
            edits.put(edit.conversationId, records);
            return verdict(records[i + 3]);
        }
        int insert = -at - 1;
        long[] grown = new long[records.length + WIDTH];
        System.arraycopy(records, 0, grown, 0, insert * WIDTH);
        grown[insert * WIDTH] = edit.seq;
        grown[insert * WIDTH + 1] = edit.threadSeq;
        grown[insert * WIDTH + 2] = edit.time;
        grown[insert * WIDTH + 3] = flags;
        System.arraycopy(
                records,
                insert * WIDTH,
                grown,
                (insert + 1) * WIDTH,
                records.length - insert * WIDTH);
        edits.put(edit.conversationId, grown);
        state.editCount = grown.length / WIDTH;
        return verdict(flags);
    }

    /**
     * A cursor moved to {@code cursor}: forgets the records of the messages it governs ({@code
     * threadSeq} 0: the conversation's own; else that thread's replies) up to it. True when the
     * state's count changed and the caller must store it.
     */
    boolean cut(long conversationId, ConversationState state, long threadSeq, long cursor)
            throws Exception {
        if (state.editCount == 0) {
            return false;
        }
        long[] records = edits.get(conversationId);
        if (records == null) {
            state.editCount = 0;
            return true;
        }
        long[] kept = new long[records.length];
        int n = 0;
        for (int i = 0; i < records.length; i += WIDTH) {
            if (records[i + 1] != threadSeq || records[i] > cursor) {
                System.arraycopy(records, i, kept, n, WIDTH);
                n += WIDTH;
            }
        }
        if (n == records.length) {
            return false;
        }
        if (n == 0) {
            edits.remove(conversationId);
        } else {
            edits.put(conversationId, Arrays.copyOf(kept, n));
        }
        state.editCount = n / WIDTH;
        return true;
    }

    /** Forgets every conversation's edits of the current user. */
    void clear() {
        edits.clear();
    }

    /**
     * Whom an unread message mentions after one more of its records ({@code mention}, from {@link
     * #mention}) arrived, {@code before} what it did: an edit decides; a record only adds.
     */
    static int after(int before, int mention) {
        if ((mention & EDITED) != 0) {
            return mention & ~EDITED;
        }
        return before == BY_ID || mention == BY_ID ? BY_ID : before == CHANNEL ? CHANNEL : mention;
    }

    private static int verdict(long flags) {
        return (flags & BY_ID_FLAG) != 0 ? BY_ID : (flags & ANY_FLAG) != 0 ? CHANNEL : NONE;
    }

    /**
     * The record index of ({@code seq}, {@code threadSeq}), or -(insertion point) - 1. An edit
     * names its message by both: one that calls a reply a conversation message (or names another
     * thread) edits another message, which never comes.
     */
    private static int find(long[] records, long seq, long threadSeq) {
        int low = 0;
        int high = records.length / WIDTH - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            int order = Long.compare(records[mid * WIDTH], seq);
            if (order == 0) {
                order = Long.compare(records[mid * WIDTH + 1], threadSeq);
            }
            if (order < 0) {
                low = mid + 1;
            } else if (order > 0) {
                high = mid - 1;
            } else {
                return mid;
            }
        }
        return -low - 1;
    }
}
