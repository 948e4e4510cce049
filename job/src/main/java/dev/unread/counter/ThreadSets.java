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
 * ConversationSeqs} of their roots (in the conversation's record while small): the pending threads,
 * with unread replies or the kept {@code sentAt} of a reply past the cursor, so that a deletion, a
 * membership change or an ALL_READ visits those alone and no event's cost grows with the threads a
 * user merely read or followed; and those bare threads, kept only for a thread cursor or a follow
 * fact (nothing unread, no kept deletion, no part taken), at most {@code maxBareThreads} ({@code
 * --max-bare-threads}): a user token may read or follow any thread seq, and this is what it can
 * make the job keep. Past the bound the bare thread touched least recently ({@link
 * ThreadState#touchedAt}; the smaller root on a tie), but never the one just read or followed, is
 * forgotten: it shows no count, so no count changes, but a reply of it that comes later counts as
 * if never read or followed (docs/contract.md names the bound). Finding it reads each bare thread
 * of the conversation once: at most the bound, and only when a thread becomes bare past it.
 *
 * <p>A conversation record of an earlier build has neither set ({@code threadsIndexed} 0), or a
 * first set of the threads with unread replies alone (1); the first event that needs them builds
 * both from every thread of the user, once per such record.
 */
public final class ThreadSets {

    /** The most bare threads per user and conversation, unless {@code --max-bare-threads} says. */
    public static final int DEFAULT_MAX_BARE_THREADS = 1_024;

    /** {@code threadsIndexed} of a record whose sets are complete as this build keeps them. */
    public static final long INDEXED = ConversationState.THREADS_INDEXED;

    private final MapState<Tuple2<Long, Long>, ThreadState> threads;
    private final ConversationSeqs unread;
    private final ConversationSeqs bare;
    private final MapState<Tuple2<Long, Long>, Long> touches;
    private final int maxBareThreads;

    /** Threads read to find or show others: the work, for tests that bound it. */
    private long visited;

    /** Whether the thread being changed was pending before the change. */
    private boolean pendingBefore;

    /** Whether it was bare before the change. */
    private boolean bareBefore;

    ThreadSets(
            RuntimeContext context,
            MapState<Tuple2<Long, Long>, ThreadState> threads,
            int maxBareThreads) {
        this.threads = threads;
        this.maxBareThreads = maxBareThreads;
        touches = context.getMapState(StateSchema.BARE_THREAD_TOUCHES);
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
     * Pending: something past the cursor that a deletion, a membership change or an ALL_READ acts
     * on, unread replies or a kept {@code sentAt}.
     */
    static boolean isPending(ThreadState t) {
        return t.unreadCount > 0 || t.keepsSentAts();
    }

    /**
     * Builds both sets for a record of an earlier build, from every thread of the user: once per
     * such record. True when it did, and the record must be stored.
     */
    boolean build(long conversationId, ConversationState conversation) throws Exception {
        if (conversation.threadsIndexed >= INDEXED) {
            return false;
        }
        for (Map.Entry<Tuple2<Long, Long>, ThreadState> entry : threads.entries()) {
            visited++;
            if (entry.getKey().f0 != conversationId) {
                continue;
            }
            if (isPending(entry.getValue())) {
                unread.add(conversationId, conversation, entry.getKey().f1);
            }
            if (isBare(entry.getValue())) {
                bare.add(conversationId, conversation, entry.getKey().f1);
            }
        }
        conversation.threadsIndexed = INDEXED;
        queue(conversationId, conversation, null, null);
        forgetLeastRecentlyTouched(conversationId, conversation, 0);
        return true;
    }

    /** The roots of the conversation's pending threads, as the set holds them now. */
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

    /** Notes whether a thread about to change is pending and bare, for {@link #settle}. */
    void note(ThreadState t) {
        pendingBefore = isPending(t);
        bareBefore = isBare(t);
    }

    /**
     * Moves the thread between the sets as a change made it since {@link #note} ({@code touched}:
     * its cursor or follow changed), and to the head of the bare queue when it is bare and touched
     * or new there; true when the conversation's record changed. May set {@link
     * ThreadState#bareTouch}, which the caller stores.
     */
    boolean settle(
            Tuple2<Long, Long> key, ThreadState t, boolean touched, ConversationState conversation)
            throws Exception {
        if (conversation.threadsIndexed < INDEXED) {
            return false;
        }
        boolean changed = false;
        boolean pending = isPending(t);
        if (pending != pendingBefore) {
            changed =
                    pending
                            ? unread.add(key.f0, conversation, key.f1)
                            : unread.remove(key.f0, conversation, key.f1);
        }
        boolean isBare = isBare(t);
        if (bareBefore || isBare) {
            changed |= queue(key.f0, conversation, key, t);
        }
        if (isBare && (touched || !bareBefore)) {
            if (t.bareTouch > 0) {
                touches.remove(Tuple2.of(key.f0, t.bareTouch));
            }
            t.bareTouch = ++conversation.bareTouchHead;
            touches.put(Tuple2.of(key.f0, t.bareTouch), key.f1);
            changed = true;
        } else if (!isBare && t.bareTouch > 0) {
            touches.remove(Tuple2.of(key.f0, t.bareTouch));
            t.bareTouch = 0;
        }
        if (isBare != bareBefore) {
            changed |=
                    isBare
                            ? bare.add(key.f0, conversation, key.f1)
                            : bare.remove(key.f0, conversation, key.f1);
            changed |= isBare && forgetLeastRecentlyTouched(key.f0, conversation, key.f1);
        }
        return changed;
    }

    /** Forgets both sets and the queue of every conversation of the current user. */
    void clear() {
        unread.clear();
        bare.clear();
        touches.clear();
    }

    long visited() {
        return visited;
    }

    /**
     * Queues the conversation's bare threads by root, the oldest first, if they never were (a
     * record of an earlier build): once per such record. The thread being changed ({@code key},
     * {@code current}) is queued in memory, for the caller to store; null when none. True when it
     * queued some.
     */
    private boolean queue(
            long conversationId,
            ConversationState conversation,
            Tuple2<Long, Long> key,
            ThreadState current)
            throws Exception {
        if (conversation.bareTouchHead > 0 || conversation.bareThreadCount == 0) {
            return false;
        }
        List<Long> roots = new ArrayList<>((int) conversation.bareThreadCount);
        bare.forEach(conversationId, conversation, roots::add);
        conversation.bareTouchTail = 1;
        for (long root : roots) {
            long n = ++conversation.bareTouchHead;
            touches.put(Tuple2.of(conversationId, n), root);
            if (key != null && key.f1 == root) {
                current.bareTouch = n;
                continue;
            }
            Tuple2<Long, Long> other = Tuple2.of(conversationId, root);
            ThreadState t = visit(other);
            if (t != null) {
                t.bareTouch = n;
                threads.put(other, t);
            }
        }
        return true;
    }

    /**
     * Forgets the bare threads at the tail of the queue past the bound, but the one just changed
     * ({@code keep}, at its head): the user's newest read or follow always holds. True when it
     * forgot some. A number whose entry a later touch or a thread no longer bare took away is
     * skipped, once: each number is looked at once over the queue's life.
     */
    private boolean forgetLeastRecentlyTouched(
            long conversationId, ConversationState conversation, long keep) throws Exception {
        long excess = conversation.bareThreadCount - maxBareThreads;
        if (excess <= 0) {
            return false;
        }
        long n = Math.max(conversation.bareTouchTail, 1);
        for (; excess > 0 && n <= conversation.bareTouchHead; n++) {
            Tuple2<Long, Long> entry = Tuple2.of(conversationId, n);
            Long root = touches.get(entry);
            if (root == null) {
                continue;
            }
            if (root == keep) {
                break;
            }
            touches.remove(entry);
            threads.remove(Tuple2.of(conversationId, root));
            bare.remove(conversationId, conversation, root);
            excess--;
        }
        conversation.bareTouchTail = n;
        return true;
    }
}
