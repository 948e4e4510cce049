package dev.unread.counter;

import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import java.util.function.LongConsumer;
import org.apache.flink.util.Collector;

/**
 * One read track of a user (docs/contract.md): a cursor that only moves forward over a
 * conversation's own messages (root 0, {@link ConversationTrack}) or over one thread's replies
 * ({@link ThreadTrack}), keyed by (conversation, root). Past the cursor it keeps the unread seqs,
 * of those the ones that mention the user by id and the ones that mention the user only
 * channel-wide (disjoint), the deleted seqs ({@link Deletions}), the {@code sentAt}s of the
 * messages from others for ALL_READ ({@link SentAts}); the edits of its messages ({@link Edits})
 * are kept with the conversation, by root. Moving the cursor cuts them all. The rules of those sets
 * are written here once; where a track keeps them, the two kinds say.
 *
 * <p>One instance of each kind is pointed at the record an event changes, one event at a time:
 * {@link #start}, then {@link #touch} upgrades a record of an earlier build and notes what this
 * counter incarnation has yet to write of it, and {@link #writeOut} writes out what it shows
 * differently ({@link Refresh}).
 */
abstract class ReadTrack {

    /** The seq sets of a track past its cursor. */
    enum Seqs {
        UNREAD,
        /** The unread seqs that mention the user by id. */
        MENTIONS,
        /** The unread seqs that mention the user only channel-wide (@all, @channel, @here). */
        CHANNEL_MENTIONS,
        DELETED
    }

    /**
     * The record's own numbers the track keeps: its cursor, whether it keeps the {@code sentAt}s of
     * its unread messages (0 in a record of a build before ALL_READ, else 1), and its {@code
     * refreshedIn} (see {@link Refresh}).
     */
    enum Field {
        CURSOR,
        SENT_AT_KEPT,
        REFRESHED_IN
    }

    private final Edits edits;
    private final SentAts sentAts;
    private final long incarnation;

    long conversationId;

    /** The thread's root seq; 0 for the conversation's own messages. */
    long root;

    /** The conversation's record: the track's own for root 0, else its thread's conversation's. */
    ConversationState conversation;

    /** Whether the track's record changed in this event and must be stored. */
    boolean stored;

    /** Whether the cursor moved in this event. */
    boolean cursorMoved;

    /** Whether the conversation's record changed for a thread's cursor (its edits were cut). */
    boolean editsCut;

    /** The largest unread seq {@link #touch} found in a record of an earlier build, else 0. */
    long restored;

    /** Whether the channel-wide mention count may be stale in Redis: see {@link Refresh}. */
    private boolean channelMayBeStale;

    ReadTrack(Edits edits, SentAts sentAts, long incarnation) {
        this.edits = edits;
        this.sentAts = sentAts;
        this.incarnation = incarnation;
    }

    abstract long get(Field field);

    abstract void set(Field field, long value);

    /** The {@code sentAt}s the record holds: see {@link SentAts}. */
    abstract byte[] sentAts();

    abstract void sentAts(byte[] kept);

    abstract long count(Seqs seqs);

    /** Adds a seq; false when it was there. */
    abstract boolean add(Seqs seqs, long seq) throws Exception;

    /** Removes a seq; false when it was not there. */
    abstract boolean remove(Seqs seqs, long seq) throws Exception;

    /** Whether a set holds a seq; asked only of a set with seqs ({@link #contains}). */
    abstract boolean holds(Seqs seqs, long seq) throws Exception;

    abstract void removeUpTo(Seqs seqs, long cursor) throws Exception;

    abstract void forEachUnread(LongConsumer visit) throws Exception;

    /**
     * Whether the conversation keeps a deletion of {@code seq} that the track has not: a reply's,
     * whose thread cursor the conversation's may pass first.
     */
    abstract boolean deletedInConversation(long seq) throws Exception;

    /**
     * Writes out what the record shows differently since {@link #touch}, and every count {@code
     * refresh} names; true when its channel-wide mention count changed.
     */
    abstract boolean project(long user, Refresh refresh, Collector<UnreadCount> out);

    /** Points the track at a record of (conversation, root), for an event to change it. */
    final void start(long conversationId, long root, ConversationState conversation) {
        this.conversationId = conversationId;
        this.root = root;
        this.conversation = conversation;
        stored = false;
        cursorMoved = false;
        editsCut = false;
    }

    /**
     * The first look at the record in an event: a record of a build that kept no {@code sentAt}
     * gets one pair, its largest unread seq at time 0 (see {@link SentAts}), and what this
     * incarnation has yet to write of it is noted.
     */
    final void touch() throws Exception {
        restored = 0;
        if (get(Field.SENT_AT_KEPT) == 0) {
            restored = restoredUnread();
            if (restored > 0) {
                sentAts(sentAts.add(conversationId, root, sentAts(), restored, 0));
            }
            set(Field.SENT_AT_KEPT, 1);
            stored = true;
        }
        // The conversation's edits are not told apart by thread, nor by incarnation.
        channelMayBeStale =
                Refresh.pending(get(Field.REFRESHED_IN), incarnation)
                        && (count(Seqs.CHANNEL_MENTIONS) > 0 || conversation.editCount > 0);
    }

    /**
     * The largest unread seq of a record an earlier build kept, which kept no {@code sentAt}: the
     * cursor an ALL_READ moves it to (see {@link SentAts}); 0 when none is, or the record is of
     * this build.
     */
    final long restoredUnread() throws Exception {
        if (get(Field.SENT_AT_KEPT) != 0 || count(Seqs.UNREAD) == 0) {
            return 0;
        }
        long[] largest = {0};
        forEachUnread(seq -> largest[0] = Math.max(largest[0], seq));
        return largest[0];
    }

    /** The largest seq an ALL_READ at {@code time} reads: see {@link AllRead}. */
    final long readBy(long time) throws Exception {
        return Math.max(sentAts.sentBy(conversationId, root, sentAts(), time), restoredUnread());
    }

    /** Whether this incarnation wrote all of the record's counts, the channel-wide one too. */
    final boolean written() {
        return get(Field.REFRESHED_IN) == incarnation;
    }

    final long cursor() {
        return get(Field.CURSOR);
    }

    /** The event carries {@code mentionsAll}: the channel-wide mention count may be stale. */
    final void mentionsAll(boolean mentionsAll) {
        channelMayBeStale |= mentionsAll;
    }

    /** Whether a set holds a seq, reading no state while it is empty. */
    final boolean contains(Seqs seqs, long seq) throws Exception {
        return count(seqs) > 0 && holds(seqs, seq);
    }

    /** Whether {@code seq} is past the cursor and unread. */
    final boolean isUnread(long seq) throws Exception {
        return seq > cursor() && contains(Seqs.UNREAD, seq);
    }

    /**
     * A message (a reply, on a thread's track) from another user, {@code mention} whom it mentions
     * as its newest edit says, else as sent (see {@link Edits}). Past the cursor: one sent by
     * {@code allReadAt} (the user's newest ALL_READ) is read by it, and moves the cursor to its
     * seq, whenever it arrives; else its {@code sentAt} is kept, and, unless it is deleted ({@code
     * deleted}: stamped so by the conversation's stage), it is unread.
     */
    final void message(long seq, long sentAt, boolean deleted, int mention, long allReadAt)
            throws Exception {
        if (seq <= cursor()) {
            return;
        }
        if (sentAt <= allReadAt) {
            moveCursor(seq);
            return;
        }
        byte[] kept = sentAts.add(conversationId, root, sentAts(), seq, sentAt);
        if (kept != sentAts()) {
            sentAts(kept);
            stored = true;
        }
        if (deleted || contains(Seqs.DELETED, seq)) {
            return;
        }
        if (deletedInConversation(seq)) {
            stored |= add(Seqs.DELETED, seq);
            return;
        }
        stored |= add(Seqs.UNREAD, seq);
        // Also for a duplicate or another record of the message: see Edits.after. A record that
        // mentions nobody adds nothing, unless an edit says so.
        if (mention != Edits.NONE) {
            stored |= mark(seq, Edits.after(mentionOf(seq), mention));
        }
    }

    /** An edit's verdict {@code mention} (see {@link Edits}) of unread seq {@code seq}. */
    final void edited(long seq, int mention) throws Exception {
        stored |= mark(seq, mention);
    }

    /**
     * A deletion of {@code seq} past the cursor: kept, and the seq leaves the unread and mention
     * seqs. At or below the cursor it changes nothing: the message was read and counts nowhere.
     */
    final void delete(long seq) throws Exception {
        if (seq <= cursor() || !add(Seqs.DELETED, seq)) {
            return;
        }
        // Mentioned seqs, by id or channel-wide, are a subset of the unread ones.
        if (remove(Seqs.UNREAD, seq)) {
            mark(seq, Edits.NONE);
        }
        stored = true;
    }

    /** Moves the cursor forward to {@code seq}: what the track keeps up to it goes. */
    final void moveCursor(long seq) throws Exception {
        set(Field.CURSOR, seq);
        for (Seqs seqs : Seqs.values()) {
            removeUpTo(seqs, seq);
        }
        sentAts(sentAts.cut(conversationId, root, sentAts(), seq));
        editsCut = edits.cut(conversationId, conversation, root, seq);
        stored = true;
        cursorMoved = true;
    }

    /** Whom unread seq {@code seq} mentions now, as the sets say. */
    private int mentionOf(long seq) throws Exception {
        if (contains(Seqs.MENTIONS, seq)) {
            return Edits.BY_ID;
        }
        return contains(Seqs.CHANNEL_MENTIONS, seq) ? Edits.CHANNEL : Edits.NONE;
    }

    /**
     * Puts unread seq {@code seq} in the mention set {@code mention} says, out of the other; true
     * when a set changed.
     */
    private boolean mark(long seq, int mention) throws Exception {
        boolean changed = false;
        if (mention != Edits.BY_ID && count(Seqs.MENTIONS) > 0) {
            changed |= remove(Seqs.MENTIONS, seq);
        }
        if (mention != Edits.CHANNEL && count(Seqs.CHANNEL_MENTIONS) > 0) {
            changed |= remove(Seqs.CHANNEL_MENTIONS, seq);
        }
        if (mention == Edits.BY_ID) {
            changed |= add(Seqs.MENTIONS, seq);
        } else if (mention == Edits.CHANNEL) {
            changed |= add(Seqs.CHANNEL_MENTIONS, seq);
        }
        return changed;
    }

    /**
     * Writes out what the record shows differently (all of it when this incarnation has not written
     * it yet) and stamps the record with what this incarnation wrote of it.
     */
    final void writeOut(long user, Collector<UnreadCount> out) {
        long refreshedIn = get(Field.REFRESHED_IN);
        Refresh refresh = Refresh.of(refreshedIn, incarnation, channelMayBeStale);
        long stamp = refresh.stamp(refreshedIn, incarnation, project(user, refresh, out));
        if (stamp != refreshedIn) {
            set(Field.REFRESHED_IN, stamp);
            stored = true;
        }
    }
}
