package dev.unread.contract;

/**
 * A member's track of a thread of a channel that the member follows (docs/contract.md, "Channels in
 * Redis"): the field {@code {C}:{T}} of {@code chat:channel-tracks:{userId}}; no field, not
 * followed. {@link TrackJson} reads and writes its JSON.
 */
public final class ThreadTrack {

    /** A thread's track with every field at its default. */
    public static final ThreadTrack EMPTY = new ThreadTrack(0, 0, 0);

    private final long read;
    private final long named;
    private final long namedAll;

    /**
     * @param read the member's thread cursor
     * @param named the unread replies that name the member by id, by their newest edit, not deleted
     * @param namedAll of {@code named}, those that also mention everyone
     */
    public ThreadTrack(long read, long named, long namedAll) {
        this.read = read;
        this.named = named;
        this.namedAll = namedAll;
    }

    public long read() {
        return read;
    }

    public long named() {
        return named;
    }

    public long namedAll() {
        return namedAll;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ThreadTrack that
                && read == that.read
                && named == that.named
                && namedAll == that.namedAll;
    }

    @Override
    public int hashCode() {
        int h = Long.hashCode(read);
        h = 31 * h + Long.hashCode(named);
        h = 31 * h + Long.hashCode(namedAll);
        return h;
    }
}
