package dev.unread.counter;

import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import dev.unread.state.StateSchema;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;

/**
 * The current user's keyed state, as the counter's parts ({@link Badge}, {@link Conversations},
 * {@link UserTotals}, {@link Expiry}) share it; opened with the counter, one per subtask.
 */
final class UserStates {

    /** The counter's incarnation: random per open, never 0; see UnreadCounter. */
    final long incarnation;

    /** The inbox and conversation records of the users seen last; see {@link RecordCache}. */
    private final RecordCache records;

    /** The current user's conversation records. */
    final RecordCache.ConversationRecords conversations;

    final MapState<Long, Long> senders;
    final ConversationSeqs unreadSeqs;
    final ConversationSeqs mentionSeqs;
    final ConversationSeqs channelMentionSeqs;
    final Edits edits;
    final Deletions deletions;
    final SentAts sentAts;
    final Threads threads;

    UserStates(RuntimeContext context, long incarnation, int maxBareThreads) {
        this.incarnation = incarnation;
        records =
                new RecordCache(
                        context.getState(StateSchema.INBOX),
                        context.getMapState(StateSchema.CONVERSATIONS));
        conversations = records.conversations;
        senders = context.getMapState(StateSchema.SENDERS);
        unreadSeqs = ConversationSeqs.unread(context);
        mentionSeqs = ConversationSeqs.mentions(context);
        channelMentionSeqs = ConversationSeqs.channelMentions(context);
        edits = new Edits(context);
        deletions = new Deletions(context);
        sentAts = new SentAts(context);
        threads = new Threads(context, this, maxBareThreads);
    }

    /**
     * Makes {@code user}, whose key the keyed state is on, the current one, and returns their inbox
     * state, new when none: the first call of every event and timer. Whoever changes it must store
     * it with {@link #keep} before the next event: the same object is handed out again.
     */
    InboxState inbox(long user) throws Exception {
        return records.select(user);
    }

    /** As {@link #inbox}, but null when the keyed state holds none for the user. */
    InboxState storedInbox(long user) throws Exception {
        records.select(user);
        return records.storedInbox();
    }

    /** Stores {@code state} as the current user's inbox state. */
    void keep(long user, InboxState state) throws Exception {
        records.select(user);
        records.storeInbox(state);
    }

    /** See {@link RecordCache#writeBack}. */
    void writeBack(RecordCache.Keys keys, int maxRecords, int maxDirty) {
        records.writeBack(keys, maxRecords, maxDirty);
    }

    /** Writes back every record the cache holds dirty; at each checkpoint. */
    void writeBackAll() throws Exception {
        records.writeBackAll();
    }

    /** The conversation's state, new when none. */
    ConversationState conversation(long conversationId) throws Exception {
        ConversationState state = conversations.get(conversationId);
        return state == null ? ConversationState.fresh() : state;
    }

    /** Clears all of the current user's state but its threads ({@link Threads#clear}). */
    void forget(long user) throws Exception {
        forgetAllButDeletions(user);
        deletions.clear();
    }

    /**
     * As {@link #forget}, but the deleted seqs stay (see {@link Erasure}); the caller puts back the
     * conversation records that count them.
     */
    void forgetAllButDeletions(long user) throws Exception {
        records.select(user);
        records.clear();
        senders.clear();
        unreadSeqs.clear();
        mentionSeqs.clear();
        channelMentionSeqs.clear();
        edits.clear();
        sentAts.clear();
    }
}
