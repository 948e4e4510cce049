package dev.unread.counter;

/**
 * Which of a record's counts {@link Projection} writes out even unchanged: all of them ({@code
 * all}), the channel-wide mention count ({@code channel}), on a counter incarnation's first write
 * of them (see UnreadCounter). A record's {@code refreshedIn} says which of its counts this
 * incarnation wrote: {@link #stamp}.
 *
 * <p>The channel-wide mention counts are refreshed on their own, only where Redis may hold a stale
 * value of them, so that a message without {@code mentionsAll} costs no command on their keys,
 * restore or not. A count 0 in the restored state rose in the rolled-back timeline only through an
 * event that carries {@code mentionsAll} (a message, a reply, an edit), or through what the
 * restored state kept: an unread channel-wide mention (shown again by a follow, a join or heeding
 * channel mentions) or an edit (which makes a message that comes one). So it is written at the
 * record's first touch when the record kept either, and at any touch by an event with {@code
 * mentionsAll}; else not before it changes. What this incarnation keeps it writes when it changes,
 * so only the first touch asks what was kept.
 */
public final class Refresh {

    /** Only what changed: the expiry and the savepoint republish write every count they show. */
    public static final Refresh NONE = new Refresh(false, false);

    private static final Refresh CHANNEL = new Refresh(false, true);
    private static final Refresh ALL = new Refresh(true, true);
    private static final Refresh ALL_BUT_CHANNEL = new Refresh(true, false);

    private final boolean all;
    private final boolean channel;

    public Refresh(boolean all, boolean channel) {
        this.all = all;
        this.channel = channel;
    }

    public boolean all() {
        return all;
    }

    public boolean channel() {
        return channel;
    }

    /**
     * For a record with {@code refreshedIn}; {@code channelMayBeStale}: Redis may hold a value of
     * its channel-wide mention count that the replay after a restore would not write.
     */
    static Refresh of(long refreshedIn, long incarnation, boolean channelMayBeStale) {
        boolean channel = refreshedIn != incarnation && channelMayBeStale;
        if (pending(refreshedIn, incarnation)) {
            return channel ? ALL : ALL_BUT_CHANNEL;
        }
        return channel ? CHANNEL : NONE;
    }

    /**
     * Whether this incarnation is yet to write a record's counts, given its {@code refreshedIn}:
     * all of them, the channel-wide mentions' aside.
     */
    static boolean pending(long refreshedIn, long incarnation) {
        return refreshedIn != incarnation && refreshedIn != ~incarnation;
    }

    /**
     * A record's {@code refreshedIn} once its counts are written: {@code incarnation} when its
     * channel-wide mention count was written too in this incarnation ({@code channelChanged}: it
     * was, as changed), else its complement, which no incarnation is (never 0 nor -1, see
     * UnreadCounter).
     */
    long stamp(long refreshedIn, long incarnation, boolean channelChanged) {
        return refreshedIn == incarnation || channel || channelChanged ? incarnation : ~incarnation;
    }
}
