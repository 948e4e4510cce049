package dev.unread.counter;

import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import dev.unread.state.StateSchema;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

/**
 * The current user's keyed state, as the counter's parts ({@link Badge}, {@link Conversations},
 * {@link UserTotals}, {@link Expiry}) share it; opened with the counter, one per subtask.
 */
final class UserStates {

    /** Users whose inbox state {@link #inboxCache} keeps, per subtask: about 10 MiB of heap. */
    static final int INBOX_CACHE_USERS = 1 << 16;

    /** The counter's incarnation: random per open, never 0; see UnreadCounter. */
    final long incarnation;

    final ValueState<InboxState> inbox;

    /**
     * The inbox states of the users seen last, deserialized, in access order. Every message reads
     * its receiver's inbox state, and reading it from RocksDB and through Flink's reflective POJO
     * serializer was a third of the counting task's time in a profile. Writes still go to the state
     * at once, so the state (and every checkpoint) stays the truth and this is only ever a copy of
     * it: it is dropped with the function on a restore and never read across one.
     */
    private final Map<Long, InboxState> inboxCache =
            new LinkedHashMap<>(1024, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Long, InboxState> eldest) {
                    return size() > INBOX_CACHE_USERS;
                }
            };

    final MapState<Long, Long> senders;
    final MapState<Long, ConversationState> conversations;
    final ConversationSeqs unreadSeqs;
    final ConversationSeqs mentionSeqs;
    final ConversationSeqs channelMentionSeqs;
    final Edits edits;
    final Deletions deletions;
    final SentAts sentAts;
    final Threads threads;

    UserStates(RuntimeContext context, long incarnation, int maxBareThreads) {
        this.incarnation = incarnation;
        inbox = context.getState(StateSchema.INBOX);
        senders = context.getMapState(StateSchema.SENDERS);
        conversations = context.getMapState(StateSchema.CONVERSATIONS);
        unreadSeqs = ConversationSeqs.unread(context);
        mentionSeqs = ConversationSeqs.mentions(context);
        channelMentionSeqs = ConversationSeqs.channelMentions(context);
        edits = new Edits(context);
        deletions = new Deletions(context);
        sentAts = new SentAts(context);
        threads = new Threads(context, this, maxBareThreads);
    }

    /**
     * The user's inbox state, new when none. Whoever changes it must store it with {@code
     * inbox.update} before the next event: {@link #inboxCache} hands the same object out again.
     */
    InboxState inbox(Long user) throws Exception {
        InboxState state = inboxCache.get(user);
        if (state == null) {
            state = inbox.value();
            if (state == null) {
                state = new InboxState();
            }
            inboxCache.put(user, state);
        }
        return state;
    }

    /** Stores {@code state} as the user's inbox state, a record {@link #forget} let go of. */
    void keep(long user, InboxState state) throws Exception {
        inbox.update(state);
        inboxCache.put(user, state);
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
        inbox.clear();
        inboxCache.remove(user);
        senders.clear();
        conversations.clear();
        unreadSeqs.clear();
        mentionSeqs.clear();
        channelMentionSeqs.clear();
        edits.clear();
        sentAts.clear();
    }
}
