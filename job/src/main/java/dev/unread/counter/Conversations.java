package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import dev.unread.state.Memberships;
import java.util.function.Consumer;
import org.apache.flink.util.Collector;

/**
 * The rules of one conversation's state (docs/contract.md): the unread seqs past a read cursor that
 * only moves forward, those that mention the user, the count preference (newest {@code setAt} wins,
 * the quieter on a tie), the newest mark and read times (marked while the mark is newer), the
 * membership, deletions and the conversation's threads. Each event changes one conversation's
 * record; {@link #settle} writes out what that made the user see differently ({@link
 * ConversationView}) and moves the totals by the difference in its share.
 *
 * <p>A user who left a group conversation (newest membership event MEMBER_LEFT, forwarded by the
 * fan-out) has its counts for it hidden: shown as 0 while the unread seqs stay in state, and shown
 * again when a newer MEMBER_JOINED brings them back. Leaving moves no cursor and does not touch the
 * badge.
 *
 * <p>Replies count in their threads ({@link Threads}), never in their conversation; the
 * conversation's record holds the followed threads' share of the totals, so one conversation change
 * still moves the totals by one difference.
 *
 * <p>A deleted message ({@link Deletions}) leaves the unread and mention seqs, and its seq is kept
 * past the cursor so that the message never counts, whether it comes before or after. A message
 * that the conversation's stage delivers stamped deleted ({@link ChatEvent#deleted}) counts toward
 * nothing here.
 */
final class Conversations {

    private final UserStates states;
    private final UserTotals totals;

    /** Whether sending a root makes its sender follow its thread by default. */
    private final boolean trackRootSenders;

    /** The conversation being changed: one event at a time. */
    private long conversationId;

    private ConversationState state;

    /** Whether its record must be stored. */
    private boolean stored;

    /** What it showed before the event. */
    private ConversationView before;

    Conversations(UserStates states, UserTotals totals, boolean trackRootSenders) {
        this.states = states;
        this.totals = totals;
        this.trackRootSenders = trackRootSenders;
    }

    /**
     * A conversation message to, from or mentioning the user; true when the inbox state changed.
     */
    boolean message(ChatEvent message, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        if (message.senderId == message.userId && !message.isReply()) {
            return ownMessage(message, user, out);
        }
        boolean dirty = totals.keep(user);
        begin(message.conversationId);
        if (message.isReply()) {
            stored |= states.threads.reply(message, state, states.deletions, out);
            return settle(message.userId, user, out) | dirty;
        }
        if (message.mentioned && states.threads.noteInvolved(message, state)) {
            stored = true;
            if (states.threads.rootsUninvolvedThread(message)) {
                stored |=
                        states.threads.involveThread(
                                message.userId, message.conversationId, message.seq, state, out);
            }
        }
        if (message.seq > state.lastReadSeq
                && !message.deleted
                && !states.deletions.isDeleted(message.conversationId, state, message.seq)) {
            stored |= states.unreadSeqs.add(message.conversationId, state, message.seq);
            if (message.mentioned) {
                stored |= states.mentionSeqs.add(message.conversationId, state, message.seq);
            }
        }
        return settle(message.userId, user, out) | dirty;
    }

    /**
     * A user's own conversation message counts toward nothing. When root senders are tracked, or it
     * mentions the user, it is noted in the conversation's record as a root the user follows by
     * default, without the counts being read or written out, unless a thread of it came first and
     * must learn so.
     */
    private boolean ownMessage(ChatEvent message, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        if (!trackRootSenders && !message.mentioned) {
            return false;
        }
        ConversationState own = states.conversation(message.conversationId);
        if (!states.threads.noteInvolved(message, own)) {
            return false;
        }
        states.conversations.put(message.conversationId, own);
        if (!states.threads.rootsUninvolvedThread(message)) {
            return false;
        }
        boolean dirty = totals.keep(user);
        begin(message.conversationId);
        stored |=
                states.threads.involveThread(
                        message.userId, message.conversationId, message.seq, state, out);
        return settle(message.userId, user, out) | dirty;
    }

    /** MEMBER_JOINED or MEMBER_LEFT, as the fan-out forwards them. */
    boolean membership(ChatEvent event, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        long membership = event.kind == ChatEvent.Kind.MEMBER_JOINED ? event.seq : -event.seq;
        ConversationState existing = states.conversations.get(event.conversationId);
        if (existing == null) {
            // Nothing counted yet, so nothing to show or hide, no share of the totals: the first
            // count writes itself.
            ConversationState fresh = ConversationState.fresh();
            fresh.membership = membership;
            states.conversations.put(event.conversationId, fresh);
            return false;
        }
        boolean dirty = totals.keep(user);
        begin(event.conversationId);
        if (Memberships.after(membership, state.membership)) {
            boolean wasShown = state.membership >= 0;
            state.membership = membership;
            stored = true;
            if (wasShown != membership >= 0) {
                states.threads.membershipChanged(event.userId, event.conversationId, state, out);
            }
        }
        return settle(event.userId, user, out) | dirty;
    }

    /** CONVERSATION_READ: the cursor moves forward, and the seqs up to it go. */
    boolean read(
            ChatEvent read,
            InboxState user,
            Consumer<ConversationCursor> cursors,
            Collector<UnreadCount> out)
            throws Exception {
        boolean dirty = totals.keep(user);
        begin(read.conversationId);
        if (read.time > state.lastReadAt) {
            // A newer read clears a mark, whatever its seq.
            state.lastReadAt = read.time;
            stored = true;
        }
        boolean advanced = read.seq > state.lastReadSeq;
        if (advanced) {
            state.lastReadSeq = read.seq;
            states.unreadSeqs.removeUpTo(read.conversationId, state, read.seq);
            states.mentionSeqs.removeUpTo(read.conversationId, state, read.seq);
            states.deletions.cut(read.conversationId, state, read.seq);
            stored = true;
        }
        dirty |= settle(read.userId, user, out);
        if (advanced) {
            cursors.accept(
                    new ConversationCursor(
                            read.userId,
                            read.conversationId,
                            read.seq,
                            ConversationSeqs.visibleCount(state)));
        }
        return dirty;
    }

    /** See {@link Deletions}: the message leaves every count, whenever it comes. */
    boolean delete(ChatEvent event, InboxState user, Collector<UnreadCount> out) throws Exception {
        boolean dirty = totals.keep(user);
        begin(event.conversationId);
        stored |=
                states.deletions.delete(
                        event.conversationId,
                        state,
                        event.seq,
                        states.unreadSeqs,
                        states.mentionSeqs);
        stored |= states.threads.delete(event.userId, event.conversationId, event.seq, state, out);
        return settle(event.userId, user, out) | dirty;
    }

    /** THREAD_READ or THREAD_FOLLOWED, see {@link Threads}. */
    boolean thread(ChatEvent event, InboxState user, Collector<UnreadCount> out) throws Exception {
        boolean dirty = totals.keep(user);
        begin(event.conversationId);
        stored |=
                event.kind == ChatEvent.Kind.THREAD_READ
                        ? states.threads.read(event, state, out)
                        : states.threads.follow(event, state, out);
        return settle(event.userId, user, out) | dirty;
    }

    /** CONVERSATION_PREFERENCE: the newest setAt wins; on a tie the quieter (greater) value. */
    boolean preference(ChatEvent event, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        boolean dirty = totals.keep(user);
        begin(event.conversationId);
        if (event.time > state.preferenceSetAt
                || (event.time == state.preferenceSetAt && event.seq > state.preference)) {
            state.preferenceSetAt = event.time;
            state.preference = event.seq;
            stored = true;
        }
        return settle(event.userId, user, out) | dirty;
    }

    /** CONVERSATION_MARKED_UNREAD: the newest mark counts. */
    boolean mark(ChatEvent event, InboxState user, Collector<UnreadCount> out) throws Exception {
        boolean dirty = totals.keep(user);
        begin(event.conversationId);
        if (event.time > state.markedAt) {
            state.markedAt = event.time;
            stored = true;
        }
        return settle(event.userId, user, out) | dirty;
    }

    /** Reads a conversation's state (new when none) and what it shows now. */
    private void begin(long id) throws Exception {
        conversationId = id;
        state = states.conversation(id);
        // A set an earlier build kept is stored upgraded even if the event changes nothing else.
        stored = states.unreadSeqs.upgrade(id, state);
        before = ConversationView.of(state);
    }

    /**
     * Writes out what the conversation shows differently (all of it when this incarnation has not
     * written it yet), stores its state when needed, and moves the totals by the difference in its
     * share; true when the user's inbox state must be stored.
     */
    private boolean settle(long user, InboxState inbox, Collector<UnreadCount> out)
            throws Exception {
        ConversationView after = ConversationView.of(state);
        boolean refresh = state.refreshedIn != states.incarnation;
        if (refresh) {
            state.refreshedIn = states.incarnation;
        }
        Projection.conversation(user, conversationId, before, after, refresh, out);
        if (refresh || stored) {
            states.conversations.put(conversationId, state);
        }
        return totals.add(user, inbox, after.share().minus(before.share()), out);
    }
}
