package dev.unread.contract;

import java.util.ArrayList;
import java.util.List;

/**
 * A member's track of a channel (docs/contract.md, "Channels in Redis"): the field {@code {C}} of
 * {@code chat:channel-tracks:{userId}}, written by the job's channel stage, read by every reader of
 * the member's counts. {@link TrackJson} reads and writes its JSON.
 */
public final class ChannelTrack {

    /** A track with every field at its default: no membership, nothing read. */
    public static final ChannelTrack EMPTY =
            new ChannelTrack(List.of(), 0, 0, 0, 0, InputField.CountPreference.ALL, false, false);

    private final List<Interval> members;
    private final long read;
    private final long floor;
    private final long named;
    private final long namedAll;
    private final InputField.CountPreference preference;
    private final boolean ignoreAll;
    private final boolean left;

    /**
     * @param members the seqs at which the member is a member, as inclusive intervals in rising
     *     order that do not touch; only the last may be open (the member is a member now)
     * @param read the member's cursor, lastReadSeq
     * @param floor the largest seq sent at or before the member's mark all read or erasure, 0 if
     *     none
     * @param named the unread roots that name the member by id, by their newest edit, not deleted
     * @param namedAll of {@code named}, those that also mention everyone
     * @param preference the member's count preference for the channel
     * @param ignoreAll whether the member ignores channel-wide mentions here
     * @param left whether the member's newest membership event is a leave: nothing counts
     */
    public ChannelTrack(
            List<Interval> members,
            long read,
            long floor,
            long named,
            long namedAll,
            InputField.CountPreference preference,
            boolean ignoreAll,
            boolean left) {
        this.members = List.copyOf(members);
        this.read = read;
        this.floor = floor;
        this.named = named;
        this.namedAll = namedAll;
        this.preference = preference;
        this.ignoreAll = ignoreAll;
        this.left = left;
    }

    public List<Interval> members() {
        return members;
    }

    public long read() {
        return read;
    }

    public long floor() {
        return floor;
    }

    public long named() {
        return named;
    }

    public long namedAll() {
        return namedAll;
    }

    public InputField.CountPreference preference() {
        return preference;
    }

    public boolean ignoreAll() {
        return ignoreAll;
    }

    public boolean left() {
        return left;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChannelTrack that
                && members.equals(that.members)
                && read == that.read
                && floor == that.floor
                && named == that.named
                && namedAll == that.namedAll
                && preference == that.preference
                && ignoreAll == that.ignoreAll
                && left == that.left;
    }

    @Override
    public int hashCode() {
        int h = members.hashCode();
        h = 31 * h + Long.hashCode(read);
        h = 31 * h + Long.hashCode(floor);
        h = 31 * h + Long.hashCode(named);
        h = 31 * h + Long.hashCode(namedAll);
        h = 31 * h + preference.hashCode();
        h = 31 * h + Boolean.hashCode(ignoreAll);
        h = 31 * h + Boolean.hashCode(left);
        return h;
    }

    /**
     * The seqs whose roots count for the member: the membership intervals cut above max({@code
     * floor}, {@code read}); none while {@link #left}.
     */
    public List<Interval> counted() {
        return left ? List.of() : cutAbove(members, Math.max(floor, read));
    }

    /** As {@link #counted}, for a followed thread: cut above max({@code floor}, its cursor). */
    public List<Interval> counted(ThreadTrack thread) {
        return left ? List.of() : cutAbove(members, Math.max(floor, thread.read()));
    }

    private static List<Interval> cutAbove(List<Interval> intervals, long cut) {
        List<Interval> above = new ArrayList<>(intervals.size());
        for (Interval interval : intervals) {
            if (interval.open() || interval.to() > cut) {
                above.add(new Interval(Math.max(interval.from(), cut + 1), interval.to()));
            }
        }
        return above;
    }

    /**
     * The seqs {@code from} to {@code to}, both included; {@code to} is {@link #OPEN} for an
     * interval that runs to the channel's end (JSON {@code [from]}).
     */
    public static final class Interval {

        /** {@link #to} of an open interval. */
        public static final long OPEN = Long.MAX_VALUE;

        private final long from;
        private final long to;

        public Interval(long from, long to) {
            this.from = from;
            this.to = to;
        }

        public long from() {
            return from;
        }

        public long to() {
            return to;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Interval that && from == that.from && to == that.to;
        }

        @Override
        public int hashCode() {
            int h = Long.hashCode(from);
            h = 31 * h + Long.hashCode(to);
            return h;
        }

        public static Interval open(long from) {
            return new Interval(from, OPEN);
        }

        public boolean open() {
            return to == OPEN;
        }
    }
}
