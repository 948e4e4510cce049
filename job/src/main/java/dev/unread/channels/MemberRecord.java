package dev.unread.channels;

import dev.unread.contract.ChannelTrack;
import dev.unread.contract.ChannelTrack.Interval;
import dev.unread.contract.InputField.CountPreference;
import dev.unread.state.Memberships;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A member of a channel as {@link ChannelStateSchema#MEMBERS} keeps it: everything its track is
 * made of, and the threads it has a record of.
 *
 * <ul>
 *   <li>{@code memberships}: the member's membership events, each its seq, negated for a leave,
 *       ordered by seq and at one seq the join first, each once: member(U,C,s) is governed by the
 *       last event below s, so a join at j starts membership at j + 1, a leave at l ends it at l,
 *       and a leave wins a tie.
 *   <li>{@code named}: the roots above the member's cut (max(floor, read)) that name it by id by
 *       their newest edit and are not deleted, each as {@code seq << 1 | mentionsAll}, ascending,
 *       whether or not the member is a member at their seq: a late join counts them.
 *   <li>{@code threads}: the threads the member has a record of, each as {@code root << 1 | bare}
 *       (kept only for a thread cursor or an explicit follow), the least recently touched by a read
 *       or follow first (see ChannelThreads).
 * </ul>
 *
 * <p>Form: {@code [read, floor, allReadAt, erasedAt, preference, preferenceSetAt, ignoreAll,
 * ignoreSetAt, refreshedIn, n memberships, n named, sent, memberships…, named…, threads…]}.
 */
final class MemberRecord {

    private static final int HEADER = 12;
    private static final CountPreference[] PREFERENCES = CountPreference.values();

    long read;
    long floor;
    long allReadAt;
    long erasedAt;
    long preference;
    long preferenceSetAt;
    boolean ignoreAll;
    long ignoreSetAt;

    /** The stage's incarnation that last wrote the track (see ChannelStage). */
    long refreshedIn;

    /**
     * The largest root the member sent: the cursor an erasure that arrives after it keeps when the
     * root was sent after the erasure (a root's {@code sentAt} grows with its seq).
     */
    long sent;

    long[] memberships = new long[0];
    long[] named = new long[0];
    long[] threads = new long[0];

    static MemberRecord decode(long[] form) {
        MemberRecord r = new MemberRecord();
        if (form == null) {
            return r;
        }
        r.read = form[0];
        r.floor = form[1];
        r.allReadAt = form[2];
        r.erasedAt = form[3];
        r.preference = form[4];
        r.preferenceSetAt = form[5];
        r.ignoreAll = form[6] != 0;
        r.ignoreSetAt = form[7];
        r.refreshedIn = form[8];
        int m = (int) form[9];
        int n = (int) form[10];
        r.sent = form[11];
        r.memberships = Arrays.copyOfRange(form, HEADER, HEADER + m);
        r.named = Arrays.copyOfRange(form, HEADER + m, HEADER + m + n);
        r.threads = Arrays.copyOfRange(form, HEADER + m + n, form.length);
        return r;
    }

    long[] encode() {
        int m = memberships.length;
        int n = named.length;
        long[] form = new long[HEADER + m + n + threads.length];
        form[0] = read;
        form[1] = floor;
        form[2] = allReadAt;
        form[3] = erasedAt;
        form[4] = preference;
        form[5] = preferenceSetAt;
        form[6] = ignoreAll ? 1 : 0;
        form[7] = ignoreSetAt;
        form[8] = refreshedIn;
        form[9] = m;
        form[10] = n;
        form[11] = sent;
        System.arraycopy(memberships, 0, form, HEADER, m);
        System.arraycopy(named, 0, form, HEADER + m, n);
        System.arraycopy(threads, 0, form, HEADER + m + n, threads.length);
        return form;
    }

    /** The seq above which the member's roots count. */
    long cut() {
        return Math.max(floor, read);
    }

    /** The later of the member's mark all read and erasure: what its floor is sent by. */
    long floorTime() {
        return Math.max(allReadAt, erasedAt);
    }

    boolean hasMemberships() {
        return memberships.length > 0;
    }

    /** Takes membership event {@code event} (a seq, negated for a leave); false for a duplicate. */
    boolean addMembership(long event) {
        int at = 0;
        while (at < memberships.length && Memberships.after(event, memberships[at])) {
            at++;
        }
        if (at < memberships.length && memberships[at] == event) {
            return false;
        }
        long[] next = new long[memberships.length + 1];
        System.arraycopy(memberships, 0, next, 0, at);
        next[at] = event;
        System.arraycopy(memberships, at, next, at + 1, memberships.length - at);
        memberships = next;
        return true;
    }

    /** member(U,C,seq): the last membership event below {@code seq} is a join. */
    boolean member(long seq) {
        long governing = 0;
        for (long event : memberships) {
            if (Math.abs(event) >= seq) {
                break;
            }
            governing = event;
        }
        return governing > 0;
    }

    boolean left() {
        return memberships.length > 0 && memberships[memberships.length - 1] < 0;
    }

    /** The seqs at which the member is a member, as the track's intervals. */
    List<Interval> intervals() {
        List<Interval> intervals = new ArrayList<>();
        long from = -1;
        for (long event : memberships) {
            if (event > 0 && from < 0) {
                from = event + 1;
            } else if (event < 0 && from >= 0) {
                if (-event >= from) {
                    intervals.add(new Interval(from, -event));
                }
                from = -1;
            }
        }
        if (from >= 0) {
            intervals.add(Interval.open(from));
        }
        return intervals;
    }

    /** Puts {@code seq} into {@link #named} (or updates its flag); false when nothing changed. */
    boolean name(long seq, boolean all) {
        long entry = seq << 1 | (all ? 1 : 0);
        int at = indexOfNamed(seq);
        if (at >= 0) {
            if (named[at] == entry) {
                return false;
            }
            named[at] = entry;
            return true;
        }
        int insert = -at - 1;
        long[] next = new long[named.length + 1];
        System.arraycopy(named, 0, next, 0, insert);
        next[insert] = entry;
        System.arraycopy(named, insert, next, insert + 1, named.length - insert);
        named = next;
        return true;
    }

    /** Takes {@code seq} out of {@link #named}; false when it was not in. */
    boolean unname(long seq) {
        int at = indexOfNamed(seq);
        if (at < 0) {
            return false;
        }
        long[] next = new long[named.length - 1];
        System.arraycopy(named, 0, next, 0, at);
        System.arraycopy(named, at + 1, next, at, named.length - at - 1);
        named = next;
        return true;
    }

    /** Forgets the named roots at or below the cut, which no longer count. */
    void cutNamed() {
        long cut = cut();
        int keep = 0;
        while (keep < named.length && (named[keep] >>> 1) <= cut) {
            keep++;
        }
        if (keep > 0) {
            named = Arrays.copyOfRange(named, keep, named.length);
        }
    }

    /** The member's track of the channel. */
    ChannelTrack track() {
        long count = 0;
        long countAll = 0;
        long cut = cut();
        for (long entry : named) {
            if ((entry >>> 1) > cut && member(entry >>> 1)) {
                count++;
                countAll += entry & 1;
            }
        }
        return new ChannelTrack(
                intervals(),
                read,
                floor,
                count,
                countAll,
                PREFERENCES[(int) preference],
                ignoreAll,
                left());
    }

    private int indexOfNamed(long seq) {
        int low = 0;
        int high = named.length - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            long at = named[mid] >>> 1;
            if (at < seq) {
                low = mid + 1;
            } else if (at > seq) {
                high = mid - 1;
            } else {
                return mid;
            }
        }
        return -(low + 1);
    }
}
