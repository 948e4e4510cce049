package dev.unread.counter;

import dev.unread.seqs.UnreadChunks;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import org.apache.flink.api.common.functions.RuntimeContext;

/**
 * Deleted messages, per user (the key) and conversation: the deleted seqs past the user's cursor,
 * so that a message whose deletion came first never counts, and a duplicate or replay of a message
 * deleted after it arrived does not count again. deleted(C,s) is a fact of the set of events, so
 * the counts stay a function of that set.
 *
 * <p>A deletion takes its seq out of the unread and mention seqs and is remembered whether or not
 * the message was there: the message may come later, or come again. What bounds it is the cursor:
 * nothing is kept at or below it, and a read that moves the cursor cuts the deleted seqs as it cuts
 * the unread ones. So a user keeps no more deleted seqs than unread seqs they would have kept had
 * the messages not been deleted, plus the deletions of seqs they never receive (their own messages,
 * membership seqs, unknown seqs), each until the cursor passes it; in the same chunked sets as the
 * unread seqs (a run of deleted seqs costs a few bytes).
 *
 * <p>The seqs are the conversation's: a thread reply's seq is one of them, so the same set can take
 * a deleted reply out of a thread's counts.
 */
public final class Deletions {

    private final UnreadChunks deleted;

    Deletions(RuntimeContext context) {
        // No earlier build wrote these, so there is no flat index to move.
        deleted = StateSchema.DELETED.open(context);
    }

    /**
     * Whether a message's seq past the cursor is deleted; no state read at all while the
     * conversation keeps no deletion, so a message costs nothing more until one comes.
     */
    boolean isDeleted(long conversationId, ConversationState state, long seq) throws Exception {
        return state.deletedCount > 0 && deleted.containsSeq(conversationId, seq);
    }

    /**
     * Keeps a deleted seq past the cursor of a conversation ({@link ReadTrack#delete}); false when
     * it was kept.
     */
    boolean add(long conversationId, ConversationState state, long seq) throws Exception {
        if (!deleted.addSeq(conversationId, seq)) {
            return false;
        }
        state.deletedCount++;
        return true;
    }

    /** Forgets the deleted seqs up to the new cursor. */
    void cut(long conversationId, ConversationState state, long cursor) throws Exception {
        state.deletedCount -= deleted.removeSeqsUpTo(conversationId, state.deletedCount, cursor);
    }

    /** Forgets every conversation's deleted seqs of the current user. */
    void clear() {
        deleted.clear();
    }
}
