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

    /** The largest unread seq {@link #begin} found in a record of an earlier build, else 0. */
    private long restored;

    /** What it showed before the event. */
    private ConversationView before;

    /**
     * Whether the channel-wide mention count may be stale in Redis after a restore (see {@link
     * Projection#refreshesChannel}).
     */
    private boolean channelMayBeStale;

    Conversations(UserStates states, UserTotals totals, boolean trackRootSenders) {
        this.states = states;
        this.totals = totals;
        this.trackRootSenders = trackRootSenders;
    }

    /**
     * A conversation message to, from or mentioning the user; true when the inbox state changed.
     * One from another user sent by the user's newest ALL_READ is read by it ({@link AllRead}): it
     * moves the cursor to its seq, whenever it arrives.
     */
    boolean message(
            ChatEvent message,
            InboxState user,
            Consumer<ConversationCursor> cursors,
            Collector<UnreadCount> out)
            throws Exception {
        if (message.senderId == message.userId && !message.isReply()) {
            return ownMessage(message, user, out);
        }
        boolean dirty = totals.keep(user);
        begin(message.conversationId);
        channelMayBeStale |= message.mentionsAll && !message.isReply();
        int mention =
                states.edits.mention(
                        message.conversationId,
                        state,
                        message.seq,
                        message.threadSeq,
                        Edits.of(message.mentioned, message.mentionsAll));
        if (message.isReply()) {
            stored |=
                    states.threads.reply(
                            message, mention, state, states.deletions, user.allReadAt, out);
            if (message.time <= user.allReadAt) {
                // It may have moved its thread's cursor (AllRead): the edits passed go, as on a
                // THREAD_READ.
                stored |= cutThreadEdits(message.conversationId, message.threadSeq);
            }
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
        if (message.seq > state.lastReadSeq && message.time <= user.allReadAt) {
            moveCursor(message.seq);
            dirty |= settle(message.userId, user, out);
            emitCursor(message.userId, cursors);
            return dirty;
        }
        if (message.seq > state.lastReadSeq) {
            byte[] sentAts =
                    states.sentAts.add(conversationId, 0, state.sentAts, message.seq, message.time);
            stored |= sentAts != state.sentAts;
            state.sentAts = sentAts;
        }
        if (message.seq > state.lastReadSeq
                && !message.deleted
                && !states.deletions.isDeleted(message.conversationId, state, message.seq)) {
            stored |= states.unreadSeqs.add(message.conversationId, state, message.seq);
            // Also for a duplicate or another record of the message: see Edits.after. A record
            // that mentions nobody adds nothing, unless an edit says so.
            if (mention != Edits.NONE) {
                stored |= mark(message.seq, Edits.after(mentionOf(message.seq), mention));
            }
        }
        return settle(message.userId, user, out) | dirty;
    }

    /**
     * MESSAGE_EDITED: kept if it is the message's newest edit (see {@link Edits}), and the unread
     * message, if it is, mentions the user as it says. An edit of a read or deleted message changes
     * nothing and is not kept; one whose message has not come is kept until it comes and is read.
     */
    boolean edit(ChatEvent edit, InboxState user, Collector<UnreadCount> out) throws Exception {
        if (edit.deleted) {
            return false;
        }
        boolean dirty = totals.keep(user);
        begin(edit.conversationId);
        channelMayBeStale |= edit.mentionsAll && !edit.isReply();
        long cursor =
                edit.isReply()
                        ? states.threads.cursor(edit.conversationId, edit.threadSeq)
                        : state.lastReadSeq;
        if (edit.seq > cursor
                && !states.deletions.isDeleted(edit.conversationId, state, edit.seq)) {
            int mention = states.edits.apply(edit, state);
            if (mention >= 0) {
                stored = true;
                if (edit.isReply()) {
                    states.threads.edit(
                            edit.userId,
                            edit.conversationId,
                            edit.threadSeq,
                            edit.seq,
                            mention,
                            state,
                            out);
                } else if (states.unreadSeqs.contains(edit.conversationId, state, edit.seq)) {
                    mark(edit.seq, mention);
                }
            }
        }
        if (edit.isReply() && edit.mentionsAll) {
            stored |=
                    states.threads.channelMentioned(
                            edit.userId, edit.conversationId, edit.threadSeq, state, out);
        }
        return settle(edit.userId, user, out) | dirty;
    }

    /** Whom unread seq {@code seq} mentions now, as its sets say. */
    private int mentionOf(long seq) throws Exception {
        if (state.mentionCount > 0 && states.mentionSeqs.contains(conversationId, state, seq)) {
            return Edits.BY_ID;
        }
        return state.channelMentionCount > 0
                        && states.channelMentionSeqs.contains(conversationId, state, seq)
                ? Edits.CHANNEL
                : Edits.NONE;
    }

    /**
     * Puts unread seq {@code seq} in the mention set {@code mention} says, out of the other; true
     * when a set changed.
     */
    private boolean mark(long seq, int mention) throws Exception {
        boolean changed = false;
        if (mention != Edits.BY_ID && state.mentionCount > 0) {
            changed |= states.mentionSeqs.remove(conversationId, state, seq);
        }
        if (mention != Edits.CHANNEL && state.channelMentionCount > 0) {
            changed |= states.channelMentionSeqs.remove(conversationId, state, seq);
        }
        if (mention == Edits.BY_ID) {
            changed |= states.mentionSeqs.add(conversationId, state, seq);
        } else if (mention == Edits.CHANNEL) {
            changed |= states.channelMentionSeqs.add(conversationId, state, seq);
        }
        return changed;
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
        boolean advanced = read.readSeq() > state.lastReadSeq;
        if (advanced) {
            moveCursor(read.readSeq());
        }
        dirty |= settle(read.userId, user, out);
        if (advanced) {
            emitCursor(read.userId, cursors);
        }
        return dirty;
    }

    /**
     * An ALL_READ's read of one conversation ({@link AllRead}): the cursor moves to {@code seq}, or
     * to the largest unread seq of a record an earlier build kept; a mark made by {@code readAt} is
     * cleared.
     */
    boolean allRead(
            long user,
            long id,
            long seq,
            long readAt,
            InboxState inbox,
            Consumer<ConversationCursor> cursors,
            Collector<UnreadCount> out)
            throws Exception {
        boolean dirty = totals.keep(inbox);
        begin(id);
        if (state.markedAt > state.lastReadAt && readAt > state.lastReadAt) {
            state.lastReadAt = readAt;
            stored = true;
        }
        long cursor = Math.max(seq, restored);
        boolean advanced = cursor > state.lastReadSeq;
        if (advanced) {
            moveCursor(cursor);
        }
        dirty |= settle(user, inbox, out);
        if (advanced) {
            emitCursor(user, cursors);
        }
        return dirty;
    }

    /** Moves the cursor forward to {@code seq}; the seqs up to it go. */
    private void moveCursor(long seq) throws Exception {
        state.lastReadSeq = seq;
        states.unreadSeqs.removeUpTo(conversationId, state, seq);
        states.mentionSeqs.removeUpTo(conversationId, state, seq);
        states.channelMentionSeqs.removeUpTo(conversationId, state, seq);
        states.deletions.cut(conversationId, state, seq);
        states.edits.cut(conversationId, state, 0, seq);
        state.sentAts = states.sentAts.cut(conversationId, 0, state.sentAts, seq);
        stored = true;
    }

    private void emitCursor(long user, Consumer<ConversationCursor> cursors) {
        cursors.accept(
                new ConversationCursor(
                        user,
                        conversationId,
                        state.lastReadSeq,
                        ConversationSeqs.visibleCount(state)));
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
                        states.mentionSeqs,
                        states.channelMentionSeqs);
        stored |= states.threads.delete(event.userId, event.conversationId, event.seq, state, out);
        return settle(event.userId, user, out) | dirty;
    }

    /** THREAD_READ or THREAD_FOLLOWED, see {@link Threads}. */
    boolean thread(ChatEvent event, InboxState user, Collector<UnreadCount> out) throws Exception {
        boolean dirty = totals.keep(user);
        begin(event.conversationId);
        if (event.kind == ChatEvent.Kind.THREAD_READ) {
            stored |= states.threads.read(event, state, out);
            stored |= cutThreadEdits(event.conversationId, event.threadSeq);
        } else {
            stored |= states.threads.follow(event, state, out);
        }
        return settle(event.userId, user, out) | dirty;
    }

    /** Forgets the edits of the thread's replies up to its cursor; true when state changed. */
    private boolean cutThreadEdits(long conversationId, long threadSeq) throws Exception {
        return state.editCount > 0
                && states.edits.cut(
                        conversationId,
                        state,
                        threadSeq,
                        states.threads.cursor(conversationId, threadSeq));
    }

    /**
     * CONVERSATION_PREFERENCE: each field it carries is decided on its own by the newest setAt; on
     * a tie the quieter count preference (greater value), and ignoring channel mentions.
     */
    boolean preference(ChatEvent event, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        boolean dirty = totals.keep(user);
        begin(event.conversationId);
        if (event.carriesCountPreference()
                && (event.time > state.preferenceSetAt
                        || (event.time == state.preferenceSetAt
                                && event.countPreference() > state.preference))) {
            state.preferenceSetAt = event.time;
            state.preference = event.countPreference();
            stored = true;
        }
        long ignore = event.ignoresChannelMentions() ? 1 : -1;
        if (event.carriesIgnoreChannelMentions()
                && (event.time > state.ignoreChannelMentionsSetAt
                        || (event.time == state.ignoreChannelMentionsSetAt
                                && ignore > state.ignoreChannelMentions))) {
            boolean ignored = state.ignoresChannelMentions();
            state.ignoreChannelMentionsSetAt = event.time;
            state.ignoreChannelMentions = ignore;
            stored = true;
            if (ignored != state.ignoresChannelMentions()) {
                states.threads.channelMentionsToggled(
                        event.userId, event.conversationId, state, out);
            }
        }
        return settle(event.userId, user, out) | dirty;
    }

    /**
     * CONVERSATION_MARKED_UNREAD: the newest mark counts; one made by the user's newest ALL_READ is
     * cleared by it, whenever it arrives.
     */
    boolean mark(ChatEvent event, InboxState user, Collector<UnreadCount> out) throws Exception {
        boolean dirty = totals.keep(user);
        begin(event.conversationId);
        if (event.time > state.markedAt && event.time > user.allReadAt) {
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
        restored = 0;
        if (state.sentAtKept == 0) {
            restored = restoredUnread(id, state);
            if (restored > 0) {
                state.sentAts = states.sentAts.add(id, 0, state.sentAts, restored, 0);
            }
            state.sentAtKept = 1;
            stored = true;
        }
        before = ConversationView.of(state);
        channelMayBeStale =
                Projection.refreshes(state.refreshedIn, states.incarnation)
                        && (state.channelMentionCount > 0 || state.editCount > 0);
    }

    /**
     * The largest unread seq of a record an earlier build kept, which kept no {@code sentAt}: the
     * cursor an ALL_READ moves it to (see {@link SentAts}); 0 when none is, or the record is of
     * this build. After {@link ConversationSeqs#upgrade}.
     */
    long restoredUnread(long id, ConversationState conversation) throws Exception {
        if (conversation.sentAtKept != 0 || ConversationSeqs.count(conversation) == 0) {
            return 0;
        }
        long[] largest = {0};
        states.unreadSeqs.forEach(id, conversation, seq -> largest[0] = Math.max(largest[0], seq));
        return largest[0];
    }

    /**
     * Writes out what the conversation shows differently (all of it when this incarnation has not
     * written it yet), stores its state when needed, and moves the totals by the difference in its
     * share; true when the user's inbox state must be stored.
     */
    private boolean settle(long user, InboxState inbox, Collector<UnreadCount> out)
            throws Exception {
        ConversationView after = ConversationView.of(state);
        long incarnation = states.incarnation;
        boolean refresh = Projection.refreshes(state.refreshedIn, incarnation);
        boolean refreshChannel =
                Projection.refreshesChannel(state.refreshedIn, incarnation, channelMayBeStale);
        Projection.conversation(user, conversationId, before, after, refresh, refreshChannel, out);
        long stamp =
                Projection.stamp(
                        state.refreshedIn,
                        incarnation,
                        refreshChannel || before.channelMentions() != after.channelMentions());
        if (stamp != state.refreshedIn) {
            state.refreshedIn = stamp;
            stored = true;
        }
        if (stored) {
            states.conversations.put(conversationId, state);
        }
        return totals.add(user, inbox, after.share().minus(before.share()), out);
    }
}
