package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import dev.unread.seqs.UnreadChunks;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import java.util.Map;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.util.Collector;

/**
 * Threads (docs/contract.md, "Threads"), per user (the key): for every thread with something to
 * remember, its cursor, its unread replies and those that mention the user, the deleted replies
 * past the cursor, and what decides whether the user follows it. {@link UnreadCounter} hands it the
 * events that concern threads, with the conversation's state.
 *
 * <p>A thread's counts are kept whether or not the user follows it, so following shows at once what
 * is unread; only a followed thread's counts are written out (0 otherwise), and 0 while the user
 * has left the conversation. The conversation's state holds the followed threads' share of the
 * totals ({@link ConversationState#followedUnreadThreads} and the two beside it), kept by the
 * difference each thread event makes, so the totals never walk the threads; {@link Totals} applies
 * the membership and the preference to it, as it does to the conversation's own counts.
 *
 * <p>Who follows by default: the sender of the root or of a reply, and whoever either mentions. A
 * reply carries its thread, so a reply the user sent (the copy every message sends to its sender's
 * key, see GroupFanOut and OwnMessages) or that mentions them marks the thread. A root does not
 * know it is one until a reply comes, possibly long after, or before it; so the seqs of the
 * conversation messages the user sent or was mentioned in are kept (a {@link ConversationSeqs} set
 * in the conversation's record while small, in {@link StateSchema#INVOLVED} past that, a few bytes
 * a seq) and a thread's first reply looks its root up there. That set grows with the user's own
 * messages and mentions, never with other people's messages.
 *
 * <p>State is bounded per user by the threads with unread replies (their seqs in the same
 * compressed sets as conversations), plus the threads the user took part in, plus at most {@link
 * ThreadSets#MAX_BARE_THREADS} per conversation that the user read, follows or unfollowed with
 * nothing unread in them: reads and follows come from user tokens, which may name any seq, so past
 * that bound the one with the oldest root, but the one just read or followed, is forgotten (a reply
 * of it that arrives later counts as if never read or followed). An entry whose counts, cursor and
 * follow facts are all empty is removed. A member of a large group who never takes part in a thread
 * keeps only their unread replies.
 *
 * <p>A deleted reply: the deletion names only a seq, so it takes the reply out of whichever of the
 * user's threads of the conversation holds it unread, visiting only the threads with unread replies
 * ({@link ThreadSets}, as a membership change visits them too): no event's cost grows with the
 * threads a user read or followed and left with nothing unread. That thread keeps the seq past its
 * cursor so a replay does not count it again. A reply whose deletion came first arrives stamped
 * deleted by the conversation's stage ({@link ChatEvent#deleted}), which keeps every deletion: the
 * user's own memory of it ({@link Deletions}) is cut by the conversation cursor, which does not
 * govern a reply.
 */
public final class Threads {

    private static final long UNREAD = 0;
    private static final long MENTIONED = 1;
    private static final long DELETED = 2;

    private final MapState<Tuple2<Long, Long>, ThreadState> threads;
    private final UnreadChunks seqs;
    private final ConversationSeqs involved;
    private final ThreadSets sets;
    private final ValueState<Long> setIds;
    private final long incarnation;

    /** What the thread being changed showed before the change, as followed counts. */
    private long unreadBefore;

    private long mentionsBefore;

    /** Its unread replies before the change, followed or not. */
    private long allUnreadBefore;

    /** Whether it was bare before the change (see {@link ThreadSets}). */
    private boolean bareBefore;

    /** {@code incarnation}: the counter's, see UnreadCounter. */
    Threads(RuntimeContext context, long incarnation) {
        threads = context.getMapState(StateSchema.THREADS);
        // No earlier build wrote these, so there is no flat index to move.
        seqs = StateSchema.THREAD_SEQS.open(context);
        involved =
                new ConversationSeqs(
                        StateSchema.INVOLVED.open(context), ConversationSeqs.Field.INVOLVED);
        sets = new ThreadSets(context, threads);
        setIds = context.getState(StateSchema.THREAD_SET_IDS);
        this.incarnation = incarnation;
    }

    /**
     * A conversation message the user sent or is mentioned in: keeps its seq in the conversation's
     * state as a root the user follows by default; true when it was not kept yet, and the state
     * must be stored.
     */
    boolean noteInvolved(ChatEvent m, ConversationState conversation) throws Exception {
        return involved.add(m.conversationId, conversation, m.seq);
    }

    /**
     * Whether a thread of the message just noted is kept and must learn the user took part ({@link
     * #involveThread}): its replies came first.
     */
    boolean rootsUninvolvedThread(ChatEvent m) throws Exception {
        ThreadState t = threads.get(Tuple2.of(m.conversationId, m.seq));
        return t != null && !t.involved;
    }

    /** The thread rooted at {@code seq} learns the user took part; see {@link #noteInvolved}. */
    boolean involveThread(
            long user,
            long conversationId,
            long seq,
            ConversationState conversation,
            Collector<UnreadCount> out)
            throws Exception {
        Tuple2<Long, Long> key = Tuple2.of(conversationId, seq);
        ThreadState t = begin(key);
        t.involved = true;
        return settle(user, key, t, true, conversation, out);
    }

    /** A reply to or from the user; true when the conversation's state changed. */
    boolean reply(
            ChatEvent m,
            ConversationState conversation,
            Deletions deletions,
            Collector<UnreadCount> out)
            throws Exception {
        boolean own = m.senderId == m.userId;
        Tuple2<Long, Long> key = Tuple2.of(m.conversationId, m.threadSeq);
        ThreadState t = begin(key);
        boolean stored = create(key, t, conversation);
        if ((own || m.mentioned) && !t.involved) {
            t.involved = true;
            stored = true;
        }
        if (!own
                && !m.deleted
                && m.seq > t.cursor
                && !contains(t, DELETED, t.deletedCount, m.seq)) {
            if (deletions.isDeleted(m.conversationId, conversation, m.seq)) {
                // Kept here too: the conversation's cursor may pass it before the thread's does.
                seqs.addSeq(id(t, DELETED), m.seq);
                t.deletedCount++;
                stored = true;
            } else if (seqs.addSeq(id(t, UNREAD), m.seq)) {
                t.unreadCount++;
                if (m.mentioned && seqs.addSeq(id(t, MENTIONED), m.seq)) {
                    t.mentionCount++;
                }
                stored = true;
            }
        }
        return settle(m.userId, key, t, stored, conversation, out);
    }

    /** THREAD_READ: the thread's cursor moves forward, and its seqs up to it go. */
    boolean read(ChatEvent read, ConversationState conversation, Collector<UnreadCount> out)
            throws Exception {
        boolean indexed = sets.build(read.conversationId, conversation);
        Tuple2<Long, Long> key = Tuple2.of(read.conversationId, read.threadSeq);
        ThreadState t = begin(key);
        boolean stored = false;
        if (read.seq > t.cursor) {
            create(key, t, conversation);
            t.cursor = read.seq;
            t.unreadCount -= seqs.removeSeqsUpTo(id(t, UNREAD), t.unreadCount, read.seq);
            t.mentionCount -= seqs.removeSeqsUpTo(id(t, MENTIONED), t.mentionCount, read.seq);
            t.deletedCount -= seqs.removeSeqsUpTo(id(t, DELETED), t.deletedCount, read.seq);
            stored = true;
        }
        return settle(read.userId, key, t, stored, conversation, out) | indexed;
    }

    /** THREAD_FOLLOWED: the largest {@code setAt} wins, and on a tie not following. */
    boolean follow(ChatEvent follow, ConversationState conversation, Collector<UnreadCount> out)
            throws Exception {
        boolean indexed = sets.build(follow.conversationId, conversation);
        Tuple2<Long, Long> key = Tuple2.of(follow.conversationId, follow.threadSeq);
        ThreadState t = begin(key);
        long following = follow.seq == 1 ? 1 : -1;
        boolean stored = false;
        if (follow.time > t.followSetAt
                || (follow.time == t.followSetAt && following < t.following)) {
            create(key, t, conversation);
            t.followSetAt = follow.time;
            t.following = following;
            stored = true;
        }
        return settle(follow.userId, key, t, stored, conversation, out) | indexed;
    }

    /**
     * MESSAGE_DELETED: takes the seq out of the thread that holds it unread and keeps it there past
     * the thread's cursor; true when the conversation's state changed.
     */
    boolean delete(
            long user,
            long conversationId,
            long seq,
            ConversationState conversation,
            Collector<UnreadCount> out)
            throws Exception {
        boolean indexed = sets.build(conversationId, conversation);
        Tuple2<Long, Long> key = null;
        for (long root : sets.withUnread(conversationId, conversation)) {
            Tuple2<Long, Long> candidate = Tuple2.of(conversationId, root);
            ThreadState t = sets.visit(candidate);
            if (t != null && seq > t.cursor && contains(t, UNREAD, t.unreadCount, seq)) {
                key = candidate;
                break;
            }
        }
        if (key == null) {
            return indexed;
        }
        ThreadState t = begin(key);
        seqs.removeSeq(id(t, UNREAD), seq);
        t.unreadCount--;
        if (seqs.removeSeq(id(t, MENTIONED), seq)) {
            t.mentionCount--;
        }
        if (seqs.addSeq(id(t, DELETED), seq)) {
            t.deletedCount++;
        }
        return settle(user, key, t, true, conversation, out);
    }

    /**
     * The user's membership of the conversation went from shown to hidden or back: every followed
     * thread of it with counts shows them again, or nothing.
     */
    void membershipChanged(
            long user,
            long conversationId,
            ConversationState conversation,
            Collector<UnreadCount> out)
            throws Exception {
        boolean shown = conversation.membership >= 0;
        sets.build(conversationId, conversation);
        for (long threadSeq : sets.withUnread(conversationId, conversation)) {
            ThreadState t = sets.visit(Tuple2.of(conversationId, threadSeq));
            if (t != null) {
                Projection.thread(
                        user,
                        conversationId,
                        threadSeq,
                        ThreadView.of(t, !shown),
                        ThreadView.of(t, shown),
                        false,
                        out);
            }
        }
    }

    /**
     * Forgets the user's threads, writing out that they show nothing; {@code conversations} tells
     * which conversations the user has left, whose threads show nothing already.
     */
    void expire(
            long user, MapState<Long, ConversationState> conversations, Collector<UnreadCount> out)
            throws Exception {
        for (Map.Entry<Tuple2<Long, Long>, ThreadState> entry : threads.entries()) {
            long conversationId = entry.getKey().f0;
            Projection.thread(
                    user,
                    conversationId,
                    entry.getKey().f1,
                    ThreadView.of(entry.getValue(), conversations.get(conversationId)),
                    ThreadView.NONE,
                    false,
                    out);
        }
        clear();
    }

    /** Forgets the user's threads, writing nothing out. */
    void clear() {
        threads.clear();
        seqs.clear();
        involved.clear();
        sets.clear();
        setIds.clear();
    }

    long threadsVisited() {
        return sets.visited();
    }

    /**
     * Gives a thread new to state its seq sets and whether the user took part in its root; true
     * when it was new.
     */
    private boolean create(Tuple2<Long, Long> key, ThreadState t, ConversationState conversation)
            throws Exception {
        if (t.sets != 0) {
            return false;
        }
        t.sets = nextSets();
        t.involved = involved.contains(key.f0, conversation, key.f1);
        return true;
    }

    /** The thread's state (new when none), noting what it shows now. */
    private ThreadState begin(Tuple2<Long, Long> key) throws Exception {
        ThreadState t = threads.get(key);
        if (t == null) {
            t = new ThreadState();
        }
        unreadBefore = t.followedUnread();
        mentionsBefore = t.followedMentions();
        allUnreadBefore = t.unreadCount;
        bareBefore = ThreadSets.isBare(t);
        return t;
    }

    /**
     * Writes out the thread's counts that changed (all when this incarnation has not written them),
     * moves the conversation's share of the totals by the difference, and stores or removes the
     * thread; true when the conversation's state changed.
     */
    private boolean settle(
            long user,
            Tuple2<Long, Long> key,
            ThreadState t,
            boolean stored,
            ConversationState conversation,
            Collector<UnreadCount> out)
            throws Exception {
        long unread = t.followedUnread();
        long mentions = t.followedMentions();
        boolean shown = conversation.membership >= 0;
        boolean refresh = t.refreshedIn != incarnation;
        if (refresh) {
            t.refreshedIn = incarnation;
        }
        Projection.thread(
                user,
                key.f0,
                key.f1,
                shown ? new ThreadView(unreadBefore, mentionsBefore) : ThreadView.NONE,
                ThreadView.of(t, shown),
                refresh,
                out);
        if (t.isEmpty()) {
            threads.remove(key);
        } else if (stored || refresh) {
            threads.put(key, t);
        }
        conversation.followedUnreadThreads += signum(unread) - signum(unreadBefore);
        conversation.followedMentionThreads += signum(mentions) - signum(mentionsBefore);
        conversation.followedThreadMentions += mentions - mentionsBefore;
        boolean setsChanged = sets.settle(key, t, allUnreadBefore, bareBefore, conversation);
        return unread != unreadBefore || mentions != mentionsBefore || setsChanged;
    }

    private static long signum(long count) {
        return count > 0 ? 1 : 0;
    }

    private boolean contains(ThreadState t, long set, long count, long seq) throws Exception {
        return count > 0 && seqs.containsSeq(id(t, set), seq);
    }

    private static long id(ThreadState t, long set) {
        return t.sets * 4 + set;
    }

    /** A new thread's seq-set id: 1 for the user's first, never 0 (no thread's). */
    private long nextSets() throws Exception {
        Long taken = setIds.value();
        long next = taken == null ? 1 : taken + 1;
        setIds.update(next);
        return next;
    }
}
