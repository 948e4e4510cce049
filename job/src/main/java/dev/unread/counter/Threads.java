package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import java.util.Map;
import java.util.function.LongConsumer;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
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
 * <p>Who follows is {@link ThreadFollows}'; a thread's cursor and seq sets are its {@link
 * ThreadTrack}, the read track conversations share ({@link ReadTrack}).
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

    private final MapState<Tuple2<Long, Long>, ThreadState> threads;
    private final ThreadTrack track;
    private final ThreadFollows follows;
    private final ThreadSets sets;
    private final SentAts sentAts;

    /** Whether the change moved the thread's follow (see {@link ThreadSets}). */
    private boolean followed;

    /** {@code maxBareThreads}: see {@link ThreadSets}. */
    Threads(RuntimeContext context, UserStates states, int maxBareThreads) {
        threads = context.getMapState(StateSchema.THREADS);
        track = new ThreadTrack(context, states);
        follows = new ThreadFollows(context, threads);
        sets = new ThreadSets(context, threads, maxBareThreads);
        sentAts = states.sentAts;
    }

    /** Who follows the user's threads. */
    ThreadFollows follows() {
        return follows;
    }

    /** The thread rooted at {@code seq} learns the user took part; see {@link ThreadFollows}. */
    boolean involveThread(
            long user,
            long conversationId,
            long seq,
            ConversationState conversation,
            Collector<UnreadCount> out)
            throws Exception {
        ThreadState t = begin(conversationId, seq, conversation);
        t.involved = true;
        track.stored = true;
        return settle(user, out);
    }

    /**
     * A reply to or from the user; true when the conversation's state changed. {@code mention}:
     * whom the reply mentions as its newest edit says, else as sent (see {@link Edits}); {@code
     * allReadAt}: the user's newest ALL_READ (see {@link ReadTrack#message}).
     */
    boolean reply(
            ChatEvent m,
            int mention,
            ConversationState conversation,
            long allReadAt,
            Collector<UnreadCount> out)
            throws Exception {
        ThreadState t = begin(m.conversationId, m.threadSeq, conversation);
        track.mentionsAll(m.mentionsAll);
        track.stored |= create(t);
        track.stored |= follows.reply(m, t);
        if (m.senderId != m.userId) {
            track.message(m.seq, m.time, m.deleted, mention, allReadAt);
        }
        return settle(m.userId, out);
    }

    /** THREAD_READ: the thread's cursor moves forward, and its seqs up to it go. */
    boolean read(ChatEvent read, ConversationState conversation, Collector<UnreadCount> out)
            throws Exception {
        boolean indexed = sets.build(read.conversationId, conversation);
        ThreadState t = begin(read.conversationId, read.threadSeq, conversation);
        if (read.readSeq() > t.cursor) {
            create(t);
            track.moveCursor(read.readSeq());
        }
        return settle(read.userId, out) | indexed;
    }

    /** THREAD_FOLLOWED: see {@link ThreadFollows#follow}. */
    boolean follow(ChatEvent follow, ConversationState conversation, Collector<UnreadCount> out)
            throws Exception {
        boolean indexed = sets.build(follow.conversationId, conversation);
        ThreadState t = begin(follow.conversationId, follow.threadSeq, conversation);
        if (follows.follow(follow, t)) {
            create(t);
            followed = true;
            track.stored = true;
        }
        return settle(follow.userId, out) | indexed;
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
        for (long root : sets.withUnread(conversationId, conversation)) {
            ThreadState t = sets.visit(Tuple2.of(conversationId, root));
            if (t != null && track.on(conversationId, root, t, conversation).isUnread(seq)) {
                begin(t);
                track.delete(seq);
                return settle(user, out) | indexed;
            }
        }
        return indexed;
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
        ThreadState t = threads.get(Tuple2.of(conversationId, threadSeq));
        if (t == null || !track.on(conversationId, threadSeq, t, conversation).isUnread(seq)) {
            return false;
        }
        begin(t);
        track.edited(seq, mention);
        return settle(user, out);
    }

    /**
     * An edit that carries {@code mentionsAll} of a reply in thread {@code threadSeq}, whether or
     * not it changed anything: the thread's channel-wide mention count is written if this
     * incarnation has not written it (see {@link Refresh}), which the edit of a reply read since
     * may otherwise never do. True when the conversation's state changed.
     */
    boolean channelMentioned(
            long user,
            long conversationId,
            long threadSeq,
            ConversationState conversation,
            Collector<UnreadCount> out)
            throws Exception {
        ThreadState kept = threads.get(Tuple2.of(conversationId, threadSeq));
        if (kept == null || track.on(conversationId, threadSeq, kept, conversation).written()) {
            return false;
        }
        begin(conversationId, threadSeq, conversation);
        track.mentionsAll(true);
        return settle(user, out);
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
                        Refresh.NONE,
                        out);
            }
        }
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
                        Refresh.NONE,
                        out);
            }
        }
    }

    /**
     * Forgets the user's threads, writing out that they show nothing; {@code conversations} tells
     * which conversations the user has left, whose threads show nothing already.
     */
    void expire(
            long user, RecordCache.ConversationRecords conversations, Collector<UnreadCount> out)
            throws Exception {
        for (Map.Entry<Tuple2<Long, Long>, ThreadState> entry : threads.entries()) {
            long conversationId = entry.getKey().f0;
            Projection.thread(
                    user,
                    conversationId,
                    entry.getKey().f1,
                    ThreadView.of(entry.getValue(), conversations.get(conversationId)),
                    ThreadView.NONE,
                    Refresh.NONE,
                    out);
        }
        clear();
    }

    /** Forgets the user's threads, writing nothing out. */
    void clear() {
        threads.clear();
        track.clear();
        sentAts.clear();
        follows.clear();
        sets.clear();
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
            long cursor = track.on(conversationId, root, t, conversation).readBy(time);
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
    private boolean create(ThreadState t) throws Exception {
        if (t.sets != 0) {
            return false;
        }
        t.sets = track.nextSets();
        t.involved = follows.involvedIn(track.conversationId, track.root, track.conversation);
        t.sentAtKept = true;
        return true;
    }

    /** The thread's state (new when none), read for an event. */
    private ThreadState begin(long conversationId, long root, ConversationState conversation)
            throws Exception {
        ThreadState t = threads.get(Tuple2.of(conversationId, root));
        if (t == null) {
            t = new ThreadState();
        }
        track.on(conversationId, root, t, conversation);
        begin(t);
        return t;
    }

    /** Reads the thread the track points at for an event, noting what it shows now. */
    private void begin(ThreadState t) throws Exception {
        track.begin();
        followed = false;
        sets.note(t);
    }

    /**
     * Writes out the thread's counts that changed (all when this incarnation has not written them),
     * moves the conversation's share of the totals by the difference, and stores or removes the
     * thread; true when the conversation's state changed.
     */
    private boolean settle(long user, Collector<UnreadCount> out) throws Exception {
        ThreadState t = track.thread;
        ConversationState conversation = track.conversation;
        Tuple2<Long, Long> key = Tuple2.of(track.conversationId, track.root);
        track.writeOut(user, out);
        long touchBefore = t.bareTouch;
        boolean setsChanged = sets.settle(key, t, track.cursorMoved || followed, conversation);
        if (t.isEmpty()) {
            threads.remove(key);
        } else if (track.stored || t.bareTouch != touchBefore) {
            threads.put(key, t);
        }
        ThreadView before = track.before;
        long unread = t.followedUnread();
        long mentions = t.followedMentions(conversation.ignoresChannelMentions());
        conversation.followedUnreadThreads += signum(unread) - signum(before.unread());
        conversation.followedMentionThreads += signum(mentions) - signum(before.mentions());
        conversation.followedThreadMentions += mentions - before.mentions();
        return unread != before.unread()
                || mentions != before.mentions()
                || setsChanged
                || track.editsCut;
    }

    private static long signum(long count) {
        return count > 0 ? 1 : 0;
    }
}
