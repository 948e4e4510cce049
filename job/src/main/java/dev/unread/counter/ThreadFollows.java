package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * Who follows a thread (docs/contract.md, "Threads"): the user's newest fact about it, an explicit
 * {@code THREAD_FOLLOWED} at its {@code setAt}, or a reply the user sent or is mentioned in at its
 * {@code sentAt} (the explicit one on a tie); with no fact, the default ({@link
 * ThreadState#follows}). Each is a maximum or a flag, so any order of the facts ends the same. A
 * reply carries its thread, so a reply the user sent (the copy a reply sends to its sender's key,
 * see GroupFanOut and OwnMessages) or that mentions them is a fact at once, and one naming the user
 * as its root's sender ({@code rootSenderId}) makes the default.
 *
 * <p>A root does not know it is one until a reply comes, possibly long after, or before it; so the
 * seqs of the conversation messages the user was mentioned in (and, with {@code
 * --track-root-senders}, sent) are kept (a {@link ConversationSeqs} set in the conversation's
 * record while small, in {@link StateSchema#INVOLVED} past that, a few bytes a seq) and a thread's
 * first reply looks its root up there. That set grows with the user's mentions (and tracked own
 * messages), never with other people's messages.
 */
final class ThreadFollows {

    private final MapState<Tuple2<Long, Long>, ThreadState> threads;
    private final ConversationSeqs involved;

    ThreadFollows(RuntimeContext context, MapState<Tuple2<Long, Long>, ThreadState> threads) {
        this.threads = threads;
        involved =
                new ConversationSeqs(
                        StateSchema.INVOLVED.open(context), ConversationSeqs.Field.INVOLVED);
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
     * Whether a thread of the message just noted is kept and must learn the user took part
     * (Threads' {@code involveThread}): its replies came first.
     */
    boolean rootsUninvolvedThread(ChatEvent m) throws Exception {
        ThreadState t = threads.get(Tuple2.of(m.conversationId, m.seq));
        return t != null && !t.involved;
    }

    /** Whether the user follows a thread new to state by default: see {@link #noteInvolved}. */
    boolean involvedIn(long conversationId, long root, ConversationState conversation)
            throws Exception {
        return involved.contains(conversationId, conversation, root);
    }

    /**
     * A reply's facts: one the user sent or is mentioned in, one naming the user as its root's
     * sender; true when the thread changed.
     */
    boolean reply(ChatEvent m, ThreadState t) {
        boolean changed = false;
        if ((m.senderId == m.userId || m.mentioned) && m.time > t.tookPartAt) {
            t.tookPartAt = m.time;
            changed = true;
        }
        if (m.rootSenderId == m.userId && !t.involved) {
            t.involved = true;
            changed = true;
        }
        return changed;
    }

    /**
     * THREAD_FOLLOWED: the largest {@code setAt} wins, and on a tie not following; it holds against
     * the user's part in replies up to its {@code setAt} (see {@link ThreadState#follows}). True
     * when the thread changed.
     */
    boolean follow(ChatEvent follow, ThreadState t) {
        long following = follow.following() ? 1 : -1;
        if (follow.time < t.followSetAt
                || (follow.time == t.followSetAt && following >= t.following)) {
            return false;
        }
        t.followSetAt = follow.time;
        t.following = following;
        return true;
    }

    /** Forgets every conversation's roots the user follows by default. */
    void clear() {
        involved.clear();
    }
}
