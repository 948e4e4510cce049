package dev.unread.contract;

/**
 * A member's track of a thread of a channel that the member follows (docs/contract.md, "Channels in
 * Redis"): the field {@code {C}:{T}} of {@code chat:channel-tracks:{userId}}; no field, not
 * followed. {@link TrackJson} reads and writes its JSON.
 *
 * @param read the member's thread cursor
 * @param named the unread replies that name the member by id, by their newest edit, not deleted
 * @param namedAll of {@code named}, those that also mention everyone
 */
public record ThreadTrack(long read, long named, long namedAll) {

    /** A thread's track with every field at its default. */
    public static final ThreadTrack EMPTY = new ThreadTrack(0, 0, 0);
}
