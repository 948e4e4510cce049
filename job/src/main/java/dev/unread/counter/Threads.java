package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import dev.unread.seqs.UnreadChunks;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import java.util.Map;
import java.util.function.LongConsumer;
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
 * <p>Who follows: the user's newest fact about the thread, an explicit {@code THREAD_FOLLOWED} at
 * its {@code setAt}, or a reply the user sent or is mentioned in at its {@code sentAt} (the
 * explicit one on a tie); with no fact, the default ({@link ThreadState#follows}). Each is a
 * maximum or a flag, so any order of the facts ends the same. A reply carries its thread, so a
 * reply the user sent (the copy a reply sends to its sender's key, see GroupFanOut and OwnMessages)
 * or that mentions them is a fact at once, and one naming the user as its root's sender ({@code
 * rootSenderId}) makes the default. A root does not know it is one until a reply comes, possibly
 * long after, or before it; so the seqs of the conversation messages the user was mentioned in
 * (and, with {@code --track-root-senders}, sent) are kept (a {@link ConversationSeqs} set in the
 * conversation's record while small, in {@link StateSchema#INVOLVED} past that, a few bytes a seq)
 * and a thread's first reply looks its root up there. That set grows with the user's mentions (and
 * tracked own messages), never with other people's messages.
 *
 * <p>State is bounded per user by the threads with unread replies (their seqs in the same
 * compressed sets as conversations), plus the threads the user took part in, plus at most {@code
 * --max-bare-threads} per conversation that the user read, follows or unfollowed with nothing
 * unread in them: reads and follows come from user tokens, which may name any seq, so past that
 * bound the one touched least recently, but the one just read or followed, is forgotten (a reply of
 * it that arrives later counts as if never read or followed; see {@link ThreadSets}). An entry
 * whose counts, cursor and follow facts are all empty is removed. A member of a large group who
 * never takes part in a thread keeps only their unread replies.
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

    /** The unread replies that mention the user only channel-wide (@all, @channel, @here). */
    private static final long CHANNEL_MENTIONED = 3;

    private final MapState<Tuple2<Long, Long>, ThreadState> threads;
    private final UnreadChunks seqs;
    private final ConversationSeqs involved;
    private final ThreadSets sets;
    private final ValueState<Long> setIds;
    private final SentAts sentAts;
    private final long incarnation;

    /** What the thread being changed showed before the change, as followed counts. */
    private long unreadBefore;

    private long mentionsBefore;

    private long channelMentionsBefore;

    /** As Conversations': see {@link Projection#refreshesChannel}. */
    private boolean channelMayBeStale;

    /** Whether it was pending before the change (see {@link ThreadSets}). */
    private boolean pendingBefore;

    /** Whether it was bare before the change (see {@link ThreadSets}). */
    private boolean bareBefore;

    /** Whether the change moved the thread's cursor or follow (see {@link ThreadSets}). */
    private boolean touched;

    /** Whether {@link #begin} gave a record of an earlier build its kept sentAt. */
    private boolean upgraded;

    /**
     * {@code incarnation}: the counter's, see UnreadCounter; {@code maxBareThreads}: see {@link
     * ThreadSets}.
     */
    Threads(RuntimeContext context, SentAts sentAts, long incarnation, int maxBareThreads) {
        threads = context.getMapState(StateSchema.THREADS);
        // No earlier build wrote these, so there is no flat index to move.
        seqs = StateSchema.THREAD_SEQS.open(context);
        involved =
                new ConversationSeqs(
                        StateSchema.INVOLVED.open(context), ConversationSeqs.Field.INVOLVED);
        sets = new ThreadSets(context, threads, maxBareThreads);
        setIds = context.getState(StateSchema.THREAD_SET_IDS);
        this.sentAts = sentAts;
        this.incarnation = incarnation;
    }

    /**
     * A conversation message that makes the user follow its thread by default (it mentions them, or
     * they sent it and root senders are tracked): keeps its seq in the conversation's state; true
     * when it was not kept yet, and the state must be stored.
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
        ThreadState t = begin(key, conversation);
        t.involved = true;
        return settle(user, key, t, true, conversation, out);
    }

    /**
     * A reply to or from the user; true when the conversation's state changed. {@code mention}:
     * whom the reply mentions as its newest edit says, else as sent (see {@link Edits}). One from
     * another user sent by {@code allReadAt} (the user's newest ALL_READ) is read by it: it moves
     * the thread's cursor to its seq, whenever it arrives.
     */
    boolean reply(
            ChatEvent m,
            int mention,
            ConversationState conversation,
            Deletions deletions,
            long allReadAt,
            Collector<UnreadCount> out)
            throws Exception {
        boolean own = m.senderId == m.userId;
        Tuple2<Long, Long> key = Tuple2.of(m.conversationId, m.threadSeq);
        ThreadState t = begin(key, conversation);
        channelMayBeStale |= m.mentionsAll;
        boolean stored = create(key, t, conversation);
        if ((own || m.mentioned) && m.time > t.tookPartAt) {
            t.tookPartAt = m.time;
            stored = true;
        }
        if (m.rootSenderId == m.userId && !t.involved) {
            t.involved = true;
            stored = true;
        }
        if (!own && m.seq > t.cursor && m.time <= allReadAt) {
            create(key, t, conversation);
            moveCursor(key, t, m.seq);
            touched = true;
            stored = true;
        } else if (!own && m.seq > t.cursor) {
            byte[] kept = sentAts.add(key.f0, key.f1, t.sentAts, m.seq, m.time);
            if (kept != t.sentAts) {
                create(key, t, conversation);
                t.sentAts = kept;
                stored = true;
            }
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
            } else {
                if (seqs.addSeq(id(t, UNREAD), m.seq)) {
                    t.unreadCount++;
                    stored = true;
                }
                // Also for a duplicate or another record of the reply: see Edits.after.
                if (mention != Edits.NONE) {
                    stored |= mark(t, m.seq, Edits.after(mentionOf(t, m.seq), mention));
                }
            }
        }
        return settle(m.userId, key, t, stored, conversation, out);
    }

    /** THREAD_READ: the thread's cursor moves forward, and its seqs up to it go. */
    boolean read(ChatEvent read, ConversationState conversation, Collector<UnreadCount> out)
            throws Exception {
        boolean indexed = sets.build(read.conversationId, conversation);
        Tuple2<Long, Long> key = Tuple2.of(read.conversationId, read.threadSeq);
        ThreadState t = begin(key, conversation);
        boolean stored = false;
        if (read.readSeq() > t.cursor) {
            create(key, t, conversation);
            moveCursor(key, t, read.readSeq());
            touched = true;
            stored = true;
        }
        return settle(read.userId, key, t, stored, conversation, out) | indexed;
    }

    private void moveCursor(Tuple2<Long, Long> key, ThreadState t, long cursor) throws Exception {
        t.cursor = cursor;
        t.unreadCount -= seqs.removeSeqsUpTo(id(t, UNREAD), t.unreadCount, cursor);
        t.mentionCount -= seqs.removeSeqsUpTo(id(t, MENTIONED), t.mentionCount, cursor);
        t.channelMentionCount -=
                seqs.removeSeqsUpTo(id(t, CHANNEL_MENTIONED), t.channelMentionCount, cursor);
        t.deletedCount -= seqs.removeSeqsUpTo(id(t, DELETED), t.deletedCount, cursor);
        t.sentAts = sentAts.cut(key.f0, key.f1, t.sentAts, cursor);
    }

    /**
     * The largest unread reply of a thread an earlier build kept, which kept no {@code sentAt}: the
     * cursor an ALL_READ moves it to (see {@link SentAts}); 0 when none is, or the thread is not of
     * such a build.
     */
    long restoredUnread(ThreadState t) throws Exception {
        if (t.sentAtKept || t.unreadCount == 0) {
            return 0;
        }
        long[] largest = {0};
        seqs.forEachSeq(id(t, UNREAD), seq -> largest[0] = Math.max(largest[0], seq));
        return largest[0];
    }

    /**
     * THREAD_FOLLOWED: the largest {@code setAt} wins, and on a tie not following; it holds against
     * the user's part in replies up to its {@code setAt} (see {@link ThreadState#follows}).
     */
    boolean follow(ChatEvent follow, ConversationState conversation, Collector<UnreadCount> out)
            throws Exception {
        boolean indexed = sets.build(follow.conversationId, conversation);
        Tuple2<Long, Long> key = Tuple2.of(follow.conversationId, follow.threadSeq);
        ThreadState t = begin(key, conversation);
        long following = follow.following() ? 1 : -1;
        boolean stored = false;
        if (follow.time > t.followSetAt
                || (follow.time == t.followSetAt && following < t.following)) {
            create(key, t, conversation);
            t.followSetAt = follow.time;
            t.following = following;
            touched = true;
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
        ThreadState t = begin(key, conversation);
        seqs.removeSeq(id(t, UNREAD), seq);
        t.unreadCount--;
        mark(t, seq, Edits.NONE);
        if (seqs.addSeq(id(t, DELETED), seq)) {
            t.deletedCount++;
        }
        return settle(user, key, t, true, conversation, out);
    }

    /** threadCursor(U,C,T): 0 when the thread is not kept. */
    long cursor(long conversationId, long threadSeq) throws Exception {
        ThreadState t = threads.get(Tuple2.of(conversationId, threadSeq));
        return t == null ? 0 : t.cursor;
    }

    /**
     * An edit of reply {@code seq} of thread {@code threadSeq}: if the reply is unread, it now
     * mentions the user as {@code mention} says; true when the conversation's state changed.
     */
    boolean edit(
            long user,
            long conversationId,
            long threadSeq,
            long seq,
            int mention,
            ConversationState conversation,
            Collector<UnreadCount> out)
            throws Exception {
        Tuple2<Long, Long> key = Tuple2.of(conversationId, threadSeq);
        ThreadState stored = threads.get(key);
        if (stored == null
                || seq <= stored.cursor
                || !contains(stored, UNREAD, stored.unreadCount, seq)) {
            return false;
        }
        ThreadState t = begin(key, conversation);
        return settle(user, key, t, mark(t, seq, mention), conversation, out);
    }

    /**
     * An edit that carries {@code mentionsAll} of a reply in thread {@code threadSeq}, whether or
     * not it changed anything: the thread's channel-wide mention count is written if this
     * incarnation has not written it (see {@link Projection#refreshesChannel}), which the edit of a
     * reply read since may otherwise never do. True when the conversation's state changed.
     */
    boolean channelMentioned(
            long user,
            long conversationId,
            long threadSeq,
            ConversationState conversation,
            Collector<UnreadCount> out)
            throws Exception {
        Tuple2<Long, Long> key = Tuple2.of(conversationId, threadSeq);
        ThreadState kept = threads.get(key);
        if (kept == null || kept.refreshedIn == incarnation) {
            return false;
        }
        ThreadState t = begin(key, conversation);
        channelMayBeStale = true;
        return settle(user, key, t, false, conversation, out);
    }

    /**
     * The conversation's ignoreChannelMentions changed (the record holds the new value): every
     * thread of it with unread replies shows its mentions again, and the record's share moves.
     */
    void channelMentionsToggled(
            long user,
            long conversationId,
            ConversationState conversation,
            Collector<UnreadCount> out)
            throws Exception {
        boolean shown = conversation.membership >= 0;
        boolean ignore = conversation.ignoresChannelMentions();
        sets.build(conversationId, conversation);
        for (long threadSeq : sets.withUnread(conversationId, conversation)) {
            ThreadState t = sets.visit(Tuple2.of(conversationId, threadSeq));
            if (t == null || t.channelMentionCount == 0) {
                continue;
            }
            long before = t.followedMentions(!ignore);
            long after = t.followedMentions(ignore);
            conversation.followedMentionThreads += signum(after) - signum(before);
            conversation.followedThreadMentions += after - before;
            if (shown) {
                Projection.thread(
                        user,
                        conversationId,
                        threadSeq,
                        ThreadView.of(t, true, !ignore),
                        ThreadView.of(t, true, ignore),
                        false,
                        out);
            }
        }
    }

    /** Whom unread reply {@code seq} mentions now, as the thread's sets say. */
    private int mentionOf(ThreadState t, long seq) throws Exception {
        if (contains(t, MENTIONED, t.mentionCount, seq)) {
            return Edits.BY_ID;
        }
        return contains(t, CHANNEL_MENTIONED, t.channelMentionCount, seq)
                ? Edits.CHANNEL
                : Edits.NONE;
    }

    /**
     * Puts unread reply {@code seq} in the mention set {@code mention} says, out of the other; true
     * when a set changed.
     */
    private boolean mark(ThreadState t, long seq, int mention) throws Exception {
        boolean changed = false;
        if (mention != Edits.BY_ID && t.mentionCount > 0 && seqs.removeSeq(id(t, MENTIONED), seq)) {
            t.mentionCount--;
            changed = true;
        }
        if (mention != Edits.CHANNEL
                && t.channelMentionCount > 0
                && seqs.removeSeq(id(t, CHANNEL_MENTIONED), seq)) {
            t.channelMentionCount--;
            changed = true;
        }
        if (mention == Edits.BY_ID && seqs.addSeq(id(t, MENTIONED), seq)) {
            t.mentionCount++;
            changed = true;
        }
        if (mention == Edits.CHANNEL && seqs.addSeq(id(t, CHANNEL_MENTIONED), seq)) {
            t.channelMentionCount++;
            changed = true;
        }
        return changed;
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
                        ThreadView.of(t, !shown, conversation.ignoresChannelMentions()),
                        ThreadView.of(t, shown, conversation.ignoresChannelMentions()),
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
        sentAts.clear();
        involved.clear();
        sets.clear();
        setIds.clear();
    }

    /**
     * For an ALL_READ at {@code time}, the conversation's pending threads ({@link ThreadSets}), the
     * only ones whose cursor it may move: (conversation, root) → the cursor it moves the thread to,
     * into {@code reads}; {@code visits} is told how many state entries it read. True when the
     * record must be stored (its sets were built).
     */
    boolean readBy(
            long conversationId,
            ConversationState conversation,
            long time,
            Map<Tuple2<Long, Long>, Long> reads,
            LongConsumer visits)
            throws Exception {
        boolean indexed = sets.build(conversationId, conversation);
        long n = 0;
        for (long root : sets.withUnread(conversationId, conversation)) {
            Tuple2<Long, Long> key = Tuple2.of(conversationId, root);
            ThreadState t = threads.get(key);
            if (t == null) {
                continue;
            }
            n += SentAts.inState(t.sentAts) ? 2 : 1;
            long cursor =
                    Math.max(sentAts.sentBy(key.f0, key.f1, t.sentAts, time), restoredUnread(t));
            if (cursor > t.cursor) {
                reads.put(key, cursor);
            }
        }
        visits.accept(n);
        return indexed;
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
        t.sentAtKept = true;
        return true;
    }

    /** The thread's state (new when none), noting what it shows now. */
    private ThreadState begin(Tuple2<Long, Long> key, ConversationState conversation)
            throws Exception {
        ThreadState t = threads.get(key);
        if (t == null) {
            t = new ThreadState();
        }
        upgraded = false;
        touched = false;
        if (t.sets != 0 && !t.sentAtKept) {
            long restored = restoredUnread(t);
            if (restored > 0) {
                t.sentAts = sentAts.add(key.f0, key.f1, t.sentAts, restored, 0);
            }
            t.sentAtKept = true;
            upgraded = true;
        }
        unreadBefore = t.followedUnread();
        mentionsBefore = t.followedMentions(conversation.ignoresChannelMentions());
        channelMentionsBefore = t.followedChannelMentions(conversation.ignoresChannelMentions());
        // The conversation's edits are not told apart by thread, nor by incarnation.
        channelMayBeStale =
                Projection.refreshes(t.refreshedIn, incarnation)
                        && (t.channelMentionCount > 0 || conversation.editCount > 0);
        pendingBefore = ThreadSets.isPending(t);
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
        long mentions = t.followedMentions(conversation.ignoresChannelMentions());
        boolean shown = conversation.membership >= 0;
        boolean refresh = Projection.refreshes(t.refreshedIn, incarnation);
        boolean refreshChannel =
                Projection.refreshesChannel(t.refreshedIn, incarnation, channelMayBeStale);
        ThreadView before =
                shown
                        ? new ThreadView(unreadBefore, mentionsBefore, channelMentionsBefore)
                        : ThreadView.NONE;
        ThreadView after = ThreadView.of(t, shown, conversation.ignoresChannelMentions());
        Projection.thread(user, key.f0, key.f1, before, after, refresh, refreshChannel, out);
        long stamp =
                Projection.stamp(
                        t.refreshedIn,
                        incarnation,
                        refreshChannel || before.channelMentions() != after.channelMentions());
        boolean restamped = stamp != t.refreshedIn;
        t.refreshedIn = stamp;
        long touchBefore = t.bareTouch;
        boolean setsChanged = sets.settle(key, t, pendingBefore, bareBefore, touched, conversation);
        if (t.isEmpty()) {
            threads.remove(key);
        } else if (stored || restamped || upgraded || t.bareTouch != touchBefore) {
            threads.put(key, t);
        }
        conversation.followedUnreadThreads += signum(unread) - signum(unreadBefore);
        conversation.followedMentionThreads += signum(mentions) - signum(mentionsBefore);
        conversation.followedThreadMentions += mentions - mentionsBefore;
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
