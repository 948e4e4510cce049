package dev.unread.channels;

import dev.unread.contract.ThreadTrack;
import java.util.Arrays;

/**
 * A member's part in a thread of a channel, as {@link ChannelStateSchema#THREADS} keeps it: the
 * thread cursor, the facts that decide whether the member follows it (docs/contract.md, "Who
 * follows a thread"), and its unread replies that name the member.
 *
 * <ul>
 *   <li>{@code read}: the largest of the member's thread reads and replies.
 *   <li>{@code explicitSetAt}, {@code explicitValue}: the newest THREAD_FOLLOWED (0: none); two
 *       tied, false.
 *   <li>{@code sentAt}, {@code sent}: the newest {@code sentAt} and the largest seq of a reply the
 *       member sent, 0 when none: what of the cursor outlives an erasure.
 *   <li>{@code named}: the replies above the thread's cut that name the member by their newest
 *       edit, not deleted, as {@code seq << 1 | mentionsAll}, ascending.
 *   <li>{@code namedAt}: the replies that named the member as sent after the newest explicit fact,
 *       as (seq, sentAt) pairs: each makes the member a follower at its {@code sentAt} if the
 *       member is a member at its seq, which a late membership event may decide.
 * </ul>
 *
 * <p>Form: {@code [read, explicitSetAt, explicitValue, sentAt, refreshedIn, shown, shown read,
 * shown named, shown namedAll, n named, sent, named…, namedAt pairs…]}.
 */
final class ThreadRecord {

    private static final int HEADER = 11;

    long read;
    long explicitSetAt;
    boolean explicitValue;
    long sentAt;
    long sent;
    long refreshedIn;

    /** The track Redis holds of the thread, as this stage last wrote it; null: no field. */
    ThreadTrack shown;

    long[] named = new long[0];
    long[] namedAt = new long[0];

    static ThreadRecord decode(long[] form) {
        ThreadRecord r = new ThreadRecord();
        if (form == null) {
            return r;
        }
        r.read = form[0];
        r.explicitSetAt = form[1];
        r.explicitValue = form[2] != 0;
        r.sentAt = form[3];
        r.refreshedIn = form[4];
        r.shown = form[5] == 0 ? null : new ThreadTrack(form[6], form[7], form[8]);
        int n = (int) form[9];
        r.sent = form[10];
        r.named = Arrays.copyOfRange(form, HEADER, HEADER + n);
        r.namedAt = Arrays.copyOfRange(form, HEADER + n, form.length);
        return r;
    }

    long[] encode() {
        long[] form = new long[HEADER + named.length + namedAt.length];
        form[0] = read;
        form[1] = explicitSetAt;
        form[2] = explicitValue ? 1 : 0;
        form[3] = sentAt;
        form[4] = refreshedIn;
        if (shown != null) {
            form[5] = 1;
            form[6] = shown.read();
            form[7] = shown.named();
            form[8] = shown.namedAll();
        }
        form[9] = named.length;
        form[10] = sent;
        System.arraycopy(named, 0, form, HEADER, named.length);
        System.arraycopy(namedAt, 0, form, HEADER + named.length, namedAt.length);
        return form;
    }

    /** Kept only for a cursor or an explicit follow: what the bound of bare threads counts. */
    boolean bare() {
        return sentAt == 0 && named.length == 0 && namedAt.length == 0;
    }

    /** Holds no fact of the member's. */
    boolean empty() {
        return bare() && read == 0 && explicitSetAt == 0;
    }

    /** An explicit follow or unfollow at {@code setAt}; two tied, false. */
    void explicit(long setAt, boolean following) {
        if (setAt > explicitSetAt) {
            explicitSetAt = setAt;
            explicitValue = following;
        } else if (setAt == explicitSetAt && explicitValue != following) {
            explicitValue = false;
        } else {
            return;
        }
        int kept = 0;
        long[] later = new long[namedAt.length];
        for (int i = 0; i < namedAt.length; i += 2) {
            if (namedAt[i + 1] > explicitSetAt) {
                later[kept++] = namedAt[i];
                later[kept++] = namedAt[i + 1];
            }
        }
        namedAt = Arrays.copyOf(later, kept);
    }

    /** The member sent reply {@code seq} at {@code sentAt}: it reads the thread up to it. */
    void sent(long seq, long sentAt) {
        read = Math.max(read, seq);
        this.sentAt = Math.max(this.sentAt, sentAt);
        sent = Math.max(sent, seq);
    }

    /**
     * The member's erasure at {@code erasedAt}, which may reach the stage after replies the member
     * sent or was named in after it: those stay, with the cursor of the replies sent (as sentAt
     * does not fall as seq rises, the largest is the newest); the reads and follows before it go.
     * The named replies stay as any message's, the new floor cutting those before.
     */
    void erase(long erasedAt) {
        if (sentAt <= erasedAt) {
            sentAt = 0;
            sent = 0;
        }
        read = sent;
        if (explicitSetAt <= erasedAt) {
            explicitSetAt = 0;
            explicitValue = false;
        }
        int kept = 0;
        long[] later = new long[namedAt.length];
        for (int i = 0; i < namedAt.length; i += 2) {
            if (namedAt[i + 1] > erasedAt) {
                later[kept++] = namedAt[i];
                later[kept++] = namedAt[i + 1];
            }
        }
        namedAt = Arrays.copyOf(later, kept);
    }

    /** Reply {@code seq}, sent at {@code sentAt}, named the member as sent. */
    void namedAt(long seq, long sentAt) {
        if (sentAt <= explicitSetAt) {
            return;
        }
        for (int i = 0; i < namedAt.length; i += 2) {
            if (namedAt[i] == seq) {
                return;
            }
        }
        namedAt = Arrays.copyOf(namedAt, namedAt.length + 2);
        namedAt[namedAt.length - 2] = seq;
        namedAt[namedAt.length - 1] = sentAt;
    }

    /**
     * follows(U,C,T) by the newest fact, the explicit one on a tie; {@code fallback} when there is
     * none (the defaults).
     */
    boolean follows(MemberRecord member, boolean fallback) {
        long implicitAt = sentAt;
        for (int i = 0; i < namedAt.length; i += 2) {
            if (namedAt[i + 1] > implicitAt && member.member(namedAt[i])) {
                implicitAt = namedAt[i + 1];
            }
        }
        if (explicitSetAt > 0 && explicitSetAt >= implicitAt) {
            return explicitValue;
        }
        return implicitAt > 0 || fallback;
    }

    void name(long seq, boolean all) {
        long entry = seq << 1 | (all ? 1 : 0);
        for (int i = 0; i < named.length; i++) {
            if ((named[i] >>> 1) == seq) {
                named[i] = entry;
                return;
            }
        }
        named = Arrays.copyOf(named, named.length + 1);
        named[named.length - 1] = entry;
        Arrays.sort(named);
    }

    void unname(long seq) {
        named = Arrays.stream(named).filter(e -> (e >>> 1) != seq).toArray();
    }

    /** The thread's cut for the member: the later of its floor and the thread cursor. */
    long cut(MemberRecord member) {
        return Math.max(member.floor, read);
    }

    /** Forgets the named replies at or below the cut. */
    void cutNamed(MemberRecord member) {
        long cut = cut(member);
        named = Arrays.stream(named).filter(e -> (e >>> 1) > cut).toArray();
    }

    ThreadTrack track(MemberRecord member) {
        long cut = cut(member);
        long count = 0;
        long countAll = 0;
        for (long entry : named) {
            if ((entry >>> 1) > cut && member.member(entry >>> 1)) {
                count++;
                countAll += entry & 1;
            }
        }
        return new ThreadTrack(read, count, countAll);
    }
}
