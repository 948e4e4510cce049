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
    private final Channels channels;

    /** Whether sending a root makes its sender follow its thread by default. */
    private final boolean trackRootSenders;

    /** The conversation being changed, one event at a time: its own read track. */
    private final ConversationTrack track;

    /** Its record. */
    private ConversationState state;

    Conversations(
            UserStates states, UserTotals totals, Channels channels, boolean trackRootSenders) {
        this.states = states;
        this.totals = totals;
        this.channels = channels;
        this.trackRootSenders = trackRootSenders;
        track = new ConversationTrack(states);
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
        int mention =
                states.edits.mention(
                        message.conversationId,
                        state,
                        message.seq,
                        message.threadSeq,
                        Edits.of(message.mentioned, message.mentionsAll));
        if (message.isReply()) {
            track.stored |= states.threads.reply(message, mention, state, user.allReadAt, out);
            return settle(message.userId, user, out) | dirty;
        }
        track.mentionsAll(message.mentionsAll);
        ThreadFollows follows = states.threads.follows();
        if (message.mentioned && follows.noteInvolved(message, state)) {
            track.stored = true;
            if (follows.rootsUninvolvedThread(message)) {
                track.stored |=
                        states.threads.involveThread(
                                message.userId, message.conversationId, message.seq, state, out);
            }
        }
        track.message(message.seq, message.time, message.deleted, mention, user.allReadAt);
        dirty |= settle(message.userId, user, out);
        if (track.cursorMoved) {
            emitCursor(message.userId, cursors);
        }
        return dirty;
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
        track.mentionsAll(edit.mentionsAll && !edit.isReply());
        long cursor =
                edit.isReply()
                        ? states.threads.cursor(edit.conversationId, edit.threadSeq)
                        : state.lastReadSeq;
        if (edit.seq > cursor && !track.contains(ReadTrack.Seqs.DELETED, edit.seq)) {
            int mention = states.edits.apply(edit, state);
            if (mention >= 0) {
                track.stored = true;
                if (edit.isReply()) {
                    states.threads.edit(
                            edit.userId,
                            edit.conversationId,
                            edit.threadSeq,
                            edit.seq,
                            mention,
                            state,
                            out);
                } else if (track.isUnread(edit.seq)) {
                    track.edited(edit.seq, mention);
                }
            }
        }
        if (edit.isReply() && edit.mentionsAll) {
            track.stored |=
                    states.threads.channelMentioned(
                            edit.userId, edit.conversationId, edit.threadSeq, state, out);
        }
        return settle(edit.userId, user, out) | dirty;
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
        ThreadFollows follows = states.threads.follows();
        ConversationState own = states.conversation(message.conversationId);
        if (!follows.noteInvolved(message, own)) {
            return false;
        }
        states.conversations.put(message.conversationId, own);
        if (!follows.rootsUninvolvedThread(message)) {
            return false;
        }
        boolean dirty = totals.keep(user);
        begin(message.conversationId);
        track.stored |=
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
            track.stored = true;
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
            track.stored = true;
        }
        return readTo(read.readSeq(), read.userId, user, cursors, out) | dirty;
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
            track.stored = true;
        }
        return readTo(Math.max(seq, track.restored), user, inbox, cursors, out) | dirty;
    }

    /** Moves the cursor forward to {@code seq}, settles, and tells the cursor if it moved. */
    private boolean readTo(
            long seq,
            long user,
            InboxState inbox,
            Consumer<ConversationCursor> cursors,
            Collector<UnreadCount> out)
            throws Exception {
        if (seq > state.lastReadSeq) {
            track.moveCursor(seq);
        }
        boolean dirty = settle(user, inbox, out);
        if (track.cursorMoved) {
            emitCursor(user, cursors);
        }
        return dirty;
    }

    private void emitCursor(long user, Consumer<ConversationCursor> cursors) {
        cursors.accept(
                new ConversationCursor(
                        user,
                        track.conversationId,
                        state.lastReadSeq,
                        ConversationSeqs.visibleCount(state)));
    }

    /**
     * A read of one of the user's channels, which the channel stage counts: here it only clears a
     * mark made before it. Its time is kept even with no mark yet, as a mark older than it may
     * still arrive and must find itself cleared ("Marked unread" holds in any order).
     */
    boolean channelRead(ChatEvent read, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        ConversationState kept = states.conversation(read.conversationId);
        if (read.time <= kept.lastReadAt) {
            return false;
        }
        if (kept.markedAt <= kept.lastReadAt) {
            // Nothing shown changes: the channel's counts are the stage's.
            kept.lastReadAt = read.time;
            states.conversations.put(read.conversationId, kept);
            return false;
        }
        begin(read.conversationId);
        state.lastReadAt = read.time;
        track.stored = true;
        return settle(read.userId, user, out);
    }

    /**
     * The conversation turned out to be one of the user's channels: what its record held here (a
     * mark, at most, as no message of a channel comes here) leaves the totals, to which readers add
     * each channel themselves.
     */
    boolean becameChannel(long user, long id, InboxState inbox, Collector<UnreadCount> out)
            throws Exception {
        ConversationState kept = states.conversations.get(id);
        if (kept == null) {
            return false;
        }
        return totals.add(user, inbox, Share.NONE.minus(ConversationView.of(kept).share()), out);
    }

    /** See {@link Deletions}: the message leaves every count, whenever it comes. */
    boolean delete(ChatEvent event, InboxState user, Collector<UnreadCount> out) throws Exception {
        boolean dirty = totals.keep(user);
        begin(event.conversationId);
        track.delete(event.seq);
        track.stored |=
                states.threads.delete(event.userId, event.conversationId, event.seq, state, out);
        return settle(event.userId, user, out) | dirty;
    }

    /** THREAD_READ or THREAD_FOLLOWED, see {@link Threads}. */
    boolean thread(ChatEvent event, InboxState user, Collector<UnreadCount> out) throws Exception {
        boolean dirty = totals.keep(user);
        begin(event.conversationId);
        track.stored |=
                event.kind == ChatEvent.Kind.THREAD_READ
                        ? states.threads.read(event, state, out)
                        : states.threads.follow(event, state, out);
        return settle(event.userId, user, out) | dirty;
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
            track.stored = true;
        }
        long ignore = event.ignoresChannelMentions() ? 1 : -1;
        if (event.carriesIgnoreChannelMentions()
                && (event.time > state.ignoreChannelMentionsSetAt
                        || (event.time == state.ignoreChannelMentionsSetAt
                                && ignore > state.ignoreChannelMentions))) {
            boolean ignored = state.ignoresChannelMentions();
            state.ignoreChannelMentionsSetAt = event.time;
            state.ignoreChannelMentions = ignore;
            track.stored = true;
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
            track.stored = true;
        }
        return settle(event.userId, user, out) | dirty;
    }

    /** Reads a conversation's state (new when none) and what it shows now. */
    private void begin(long id) throws Exception {
        state = states.conversation(id);
        track.begin(id, state);
    }

    /**
     * Writes out what the conversation shows differently (all of it when this incarnation has not
     * written it yet), stores its state when needed, and moves the totals by the difference in its
     * share; true when the user's inbox state must be stored.
     */
    private boolean settle(long user, InboxState inbox, Collector<UnreadCount> out)
            throws Exception {
        track.writeOut(user, out);
        if (track.stored) {
            states.conversations.put(track.conversationId, state);
        }
        Share change =
                channels.isChannel(inbox, track.conversationId)
                        ? Share.NONE
                        : track.after.share().minus(track.before.share());
        return totals.add(user, inbox, change, out);
    }
}
