package dev.unread.sinks;

import java.time.Instant;

/**
 * The versions of UNREAD_CHANGED messages: the wall clock in microseconds, and one more than the
 * last one when the clock has not moved on (or went back). So versions rise strictly within a
 * writer, and across a restore or a rescale too, where a user's next writer starts from its own
 * clock: the seconds a restore takes are far more than the skew between machines kept by NTP.
 *
 * <p>No state is needed, so nothing changes in checkpoints or savepoints, and a replay after a
 * restore publishes the replayed counts with versions above everything published before the
 * failure, so a client never drops them as old. A counter kept in Flink state would not do that: a
 * restore from the same checkpoint twice would hand out the same numbers again.
 *
 * <p>Microseconds of epoch time stay below 2^53 until the year 2255, so JavaScript clients read
 * them exactly.
 */
final class ChangeVersions {

    private long last;

    long next() {
        Instant now = Instant.now();
        last = Math.max(now.getEpochSecond() * 1_000_000 + now.getNano() / 1000, last + 1);
        return last;
    }
}
