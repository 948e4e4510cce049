package dev.unread.channels;

import java.util.Arrays;

/**
 * One seq of a channel, as {@link ChannelStateSchema#MESSAGES} keeps it: the message (once it came)
 * with its sender, {@code sentAt}, thread, whom it names and whether it mentions everyone as sent
 * and by its newest edits, and whether it is deleted (a deletion may come first, and is kept).
 *
 * <p>Form: {@code [flags, senderId, sentAt, threadSeq, editedAt, n, n mentions as sent, mentions by
 * the newest edits]}, mentions ascending.
 */
final class MessageRecord {

    private static final int PRESENT = 1;
    private static final int DELETED = 2;
    private static final int ALL = 4;
    private static final int EDITED = 8;
    private static final int EDIT_ALL = 16;
    private static final int REPLIED = 32;
    private static final int HEADER = 6;
    private static final long[] NONE = new long[0];

    long flags;
    long senderId;
    long sentAt;
    long threadSeq;
    long editedAt;
    long[] sentMentions = NONE;
    long[] editMentions = NONE;

    static MessageRecord decode(long[] form) {
        MessageRecord r = new MessageRecord();
        if (form == null) {
            return r;
        }
        r.flags = form[0];
        r.senderId = form[1];
        r.sentAt = form[2];
        r.threadSeq = form[3];
        r.editedAt = form[4];
        int n = (int) form[5];
        r.sentMentions = Arrays.copyOfRange(form, HEADER, HEADER + n);
        r.editMentions = Arrays.copyOfRange(form, HEADER + n, form.length);
        return r;
    }

    long[] encode() {
        long[] form = new long[HEADER + sentMentions.length + editMentions.length];
        form[0] = flags;
        form[1] = senderId;
        form[2] = sentAt;
        form[3] = threadSeq;
        form[4] = editedAt;
        form[5] = sentMentions.length;
        System.arraycopy(sentMentions, 0, form, HEADER, sentMentions.length);
        System.arraycopy(editMentions, 0, form, HEADER + sentMentions.length, editMentions.length);
        return form;
    }

    boolean present() {
        return (flags & PRESENT) != 0;
    }

    boolean deleted() {
        return (flags & DELETED) != 0;
    }

    boolean root() {
        return threadSeq == 0;
    }

    /** Whether it mentions everyone as sent. */
    boolean sentAll() {
        return (flags & ALL) != 0;
    }

    /** Whether it mentions everyone by its newest edits, else as sent. */
    boolean all() {
        return (flags & EDITED) != 0 ? (flags & EDIT_ALL) != 0 : sentAll();
    }

    /** Whom it names by id by its newest edits, else as sent; ascending. */
    long[] named() {
        return (flags & EDITED) != 0 ? editMentions : sentMentions;
    }

    boolean sentNames(long userId) {
        return Arrays.binarySearch(sentMentions, userId) >= 0;
    }

    void arrive(long senderId, long sentAt, long threadSeq, boolean all, long[] mentions) {
        flags |= PRESENT | (all ? ALL : 0);
        this.senderId = senderId;
        this.sentAt = sentAt;
        this.threadSeq = threadSeq;
        this.sentMentions = mentions;
    }

    /** Whether a reply of this root came (before the root, too). */
    boolean replied() {
        return (flags & REPLIED) != 0;
    }

    void reply() {
        flags |= REPLIED;
    }

    void delete() {
        flags |= DELETED;
    }

    /**
     * Takes an edit at {@code editedAt}; false when it changes nothing (an older edit, or a tie
     * that takes nothing away). Edits tied on {@code editedAt} name a user only if each names them,
     * and mention everyone only if each does.
     */
    boolean edit(long editedAt, boolean all, long[] mentions) {
        boolean edited = (flags & EDITED) != 0;
        if (edited && editedAt < this.editedAt) {
            return false;
        }
        if (edited && editedAt == this.editedAt) {
            long[] both = Arrays.stream(editMentions).filter(u -> contains(mentions, u)).toArray();
            boolean bothAll = (flags & EDIT_ALL) != 0 && all;
            if (both.length == editMentions.length && bothAll == ((flags & EDIT_ALL) != 0)) {
                return false;
            }
            editMentions = both;
            flags = bothAll ? flags | EDIT_ALL : flags & ~EDIT_ALL;
            return true;
        }
        this.editedAt = editedAt;
        editMentions = mentions;
        flags = (flags | EDITED) & ~EDIT_ALL | (all ? EDIT_ALL : 0);
        return true;
    }

    static boolean contains(long[] ascending, long userId) {
        return Arrays.binarySearch(ascending, userId) >= 0;
    }
}
