package dev.unread.counter;

import dev.unread.events.UnreadCount;
import dev.unread.seqs.UnreadChunks;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import java.util.function.LongConsumer;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.util.Collector;

/**
 * A thread's read track, in its {@link ThreadState}: its cursor, and its four seq sets in {@link
 * StateSchema#THREAD_SEQS} under ids numbered from the record's {@code sets} (assigned by {@link
 * Threads} when the thread is first kept), counted in the record. What it shows is its {@link
 * ThreadView}: nothing unless the user follows it and has not left its conversation.
 */
final class ThreadTrack extends ReadTrack {

    private final UnreadChunks seqs;
    private final ValueState<Long> setIds;
    private final Deletions deletions;

    ThreadState thread;

    /** What the thread showed when {@link #begin} read it, as followed counts, left or not. */
    ThreadView before;

    ThreadTrack(RuntimeContext context, UserStates states) {
        super(states.edits, states.sentAts, states.incarnation);
        // No earlier build wrote these, so there is no flat index to move.
        seqs = StateSchema.THREAD_SEQS.open(context);
        setIds = context.getState(StateSchema.THREAD_SET_IDS);
        deletions = states.deletions;
    }

    /** Points the track at a thread's record, without reading it for an event yet. */
    ThreadTrack on(long conversationId, long root, ThreadState t, ConversationState conversation) {
        start(conversationId, root, conversation);
        thread = t;
        return this;
    }

    /** Reads the record the track points at for an event, noting what it shows. */
    void begin() throws Exception {
        touch();
        before = ThreadView.of(thread, true, conversation.ignoresChannelMentions());
    }

    /** A thread new to state keeps its sentAts from the start: see Threads' {@code create}. */
    @Override
    long get(Field field) {
        return switch (field) {
            case CURSOR -> thread.cursor;
            case REFRESHED_IN -> thread.refreshedIn;
            case SENT_AT_KEPT -> thread.sentAtKept || thread.sets == 0 ? 1 : 0;
        };
    }

    @Override
    void set(Field field, long value) {
        switch (field) {
            case SENT_AT_KEPT -> thread.sentAtKept = value != 0;
            case CURSOR -> thread.cursor = value;
            case REFRESHED_IN -> thread.refreshedIn = value;
        }
    }

    @Override
    byte[] sentAts() {
        return thread.sentAts;
    }

    @Override
    void sentAts(byte[] kept) {
        thread.sentAts = kept;
    }

    @Override
    long count(Seqs set) {
        return switch (set) {
            case UNREAD -> thread.unreadCount;
            case MENTIONS -> thread.mentionCount;
            case CHANNEL_MENTIONS -> thread.channelMentionCount;
            case DELETED -> thread.deletedCount;
        };
    }

    private void count(Seqs set, long n) {
        switch (set) {
            case UNREAD -> thread.unreadCount = n;
            case MENTIONS -> thread.mentionCount = n;
            case CHANNEL_MENTIONS -> thread.channelMentionCount = n;
            case DELETED -> thread.deletedCount = n;
        }
    }

    @Override
    boolean add(Seqs set, long seq) throws Exception {
        if (!seqs.addSeq(id(set), seq)) {
            return false;
        }
        count(set, count(set) + 1);
        return true;
    }

    @Override
    boolean remove(Seqs set, long seq) throws Exception {
        if (!seqs.removeSeq(id(set), seq)) {
            return false;
        }
        count(set, count(set) - 1);
        return true;
    }

    @Override
    boolean holds(Seqs set, long seq) throws Exception {
        return seqs.containsSeq(id(set), seq);
    }

    @Override
    void removeUpTo(Seqs set, long cursor) throws Exception {
        count(set, count(set) - seqs.removeSeqsUpTo(id(set), count(set), cursor));
    }

    @Override
    void forEachUnread(LongConsumer visit) throws Exception {
        seqs.forEachSeq(id(Seqs.UNREAD), visit);
    }

    /** Kept here too: the conversation's cursor may pass it before the thread's does. */
    @Override
    boolean deletedInConversation(long seq) throws Exception {
        return deletions.isDeleted(conversationId, conversation, seq);
    }

    @Override
    boolean project(long user, Refresh refresh, Collector<UnreadCount> out) {
        boolean shown = conversation.membership >= 0;
        ThreadView shownBefore = shown ? before : ThreadView.NONE;
        ThreadView after = ThreadView.of(thread, shown, conversation.ignoresChannelMentions());
        Projection.thread(user, conversationId, root, shownBefore, after, refresh, out);
        return shownBefore.channelMentions() != after.channelMentions();
    }

    /** A new thread's {@code sets}: 1 for the user's first, never 0 (no thread's). */
    long nextSets() throws Exception {
        Long taken = setIds.value();
        long next = taken == null ? 1 : taken + 1;
        setIds.update(next);
        return next;
    }

    /** Forgets every thread's seq sets of the current user, and their ids. */
    void clear() {
        seqs.clear();
        setIds.clear();
    }

    /** The id of one of the thread's sets: four a thread, in the order their state was written. */
    private long id(Seqs set) {
        long n =
                switch (set) {
                    case UNREAD -> 0;
                    case MENTIONS -> 1;
                    case DELETED -> 2;
                    case CHANNEL_MENTIONS -> 3;
                };
        return thread.sets * 4 + n;
    }
}
