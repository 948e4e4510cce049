package dev.unread.counter;

import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * Two sets of a user's threads per conversation, beside {@link Threads}, as {@link
 * ConversationSeqs} of their roots (in the conversation's record while small): the threads with
 * unread replies, so that a deletion or a membership change visits those alone and no event's cost
 * grows with the threads a user merely read or followed; and those bare threads, kept only for a
 * thread cursor or a follow fact (nothing unread, no kept deletion, no part taken), at most {@link
 * #MAX_BARE_THREADS}: a user token may read or follow any thread seq, and this is what it can make
 * the job keep. Past the bound the bare thread with the oldest root, but never the one just read or
 * followed, is forgotten: it shows no count, so no count changes, but a reply of it that comes
 * later counts as if never read or followed (docs/contract.md names the bound).
 *
 * <p>A conversation record of an earlier build has neither set ({@code threadsIndexed} 0); the
 * first event that needs them builds both from every thread of the user, once per such record.
 */
public final class ThreadSets {

    /** The most bare threads per user and conversation. */
    static final int MAX_BARE_THREADS = 1_024;

    private final MapState<Tuple2<Long, Long>, ThreadState> threads;
    private final ConversationSeqs unread;
    private final ConversationSeqs bare;

    /** Threads read to find or show others: the work, for tests that bound it. */
    private long visited;

    ThreadSets(RuntimeContext context, MapState<Tuple2<Long, Long>, ThreadState> threads) {
        this.threads = threads;
        unread =
                new ConversationSeqs(
                        StateSchema.UNREAD_THREADS.open(context),
                        ConversationSeqs.Field.UNREAD_THREADS);
        bare =
                new ConversationSeqs(
                        StateSchema.BARE_THREADS.open(context),
                        ConversationSeqs.Field.BARE_THREADS);
    }

    /**
     * Kept only for a thread cursor or a follow fact: nothing unread, no deletion, no part, no
     * reply past the cursor (one delivered deleted keeps its sentAt, see SentAts).
     */
    static boolean isBare(ThreadState t) {
        return !t.isEmpty()
                && t.unreadCount == 0
                && t.deletedCount == 0
                && !t.involved
                && t.tookPartAt == 0
                && !t.keepsSentAts();
    }

    /**
     * Builds both sets for a record of an earlier build, from every thread of the user: once per
     * such record. True when it did, and the record must be stored.
     */
    boolean build(long conversationId, ConversationState conversation) throws Exception {
        if (conversation.threadsIndexed != 0) {
            return false;
        }
        for (Map.Entry<Tuple2<Long, Long>, ThreadState> entry : threads.entries()) {
            visited++;
            if (entry.getKey().f0 != conversationId) {
                continue;
            }
            if (entry.getValue().unreadCount > 0) {
                unread.add(conversationId, conversation, entry.getKey().f1);
            }
            if (isBare(entry.getValue())) {
                bare.add(conversationId, conversation, entry.getKey().f1);
            }
        }
        conversation.threadsIndexed = 1;
        forgetOldestBare(conversationId, conversation, 0);
        return true;
    }

    /** The roots of the conversation's threads with unread replies, as the set holds them now. */
    List<Long> withUnread(long conversationId, ConversationState conversation) throws Exception {
        List<Long> roots = new ArrayList<>((int) Math.min(conversation.unreadThreadCount, 64));
        unread.forEach(conversationId, conversation, roots::add);
        return roots;
    }

    /** A thread of {@link #withUnread}, read. */
    ThreadState visit(Tuple2<Long, Long> key) throws Exception {
        visited++;
        return threads.get(key);
    }

    /**
     * Moves the thread between the sets as a change made it (it had {@code unreadBefore} unread
     * replies and was bare or not before); true when the conversation's record changed.
     */
    boolean settle(
            Tuple2<Long, Long> key,
            ThreadState t,
            long unreadBefore,
            boolean bareBefore,
            ConversationState conversation)
            throws Exception {
        if (conversation.threadsIndexed == 0) {
            return false;
        }
        boolean changed = false;
        if ((t.unreadCount > 0) != (unreadBefore > 0)) {
            changed =
                    t.unreadCount > 0
                            ? unread.add(key.f0, conversation, key.f1)
                            : unread.remove(key.f0, conversation, key.f1);
        }
        boolean isBare = isBare(t);
        if (isBare != bareBefore) {
            changed |=
                    isBare
                            ? bare.add(key.f0, conversation, key.f1)
                            : bare.remove(key.f0, conversation, key.f1);
            changed |= isBare && forgetOldestBare(key.f0, conversation, key.f1);
        }
        return changed;
    }

    /** Forgets both sets of every conversation of the current user. */
    void clear() {
        unread.clear();
        bare.clear();
    }

    long visited() {
        return visited;
    }

    /**
     * Forgets the bare threads with the oldest roots past {@link #MAX_BARE_THREADS}, but the one
     * just changed ({@code keep}): the user's newest read or follow always holds. True when it
     * forgot some.
     */
    private boolean forgetOldestBare(long conversationId, ConversationState conversation, long keep)
            throws Exception {
        long excess = conversation.bareThreadCount - MAX_BARE_THREADS;
        if (excess <= 0) {
            return false;
        }
        List<Long> roots = new ArrayList<>((int) conversation.bareThreadCount);
        bare.forEach(conversationId, conversation, roots::add);
        for (int i = 0; excess > 0; i++) {
            long root = roots.get(i);
            if (root != keep) {
                threads.remove(Tuple2.of(conversationId, root));
                bare.remove(conversationId, conversation, root);
                excess--;
            }
        }
        return true;
    }
}
