package dev.unread.events;

import java.util.Objects;

/**
 * An input record the job refused, with the reason: written to the dead-letter topic with the
 * original key and value bytes untouched and the reason and source coordinates in headers.
 */
public class DeadLetter {
    public RawRecord source;
    public String reason;

    public DeadLetter() {}

    public DeadLetter(RawRecord source, String reason) {
        this.source = source;
        this.reason = reason;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof DeadLetter)) {
            return false;
        }
        DeadLetter that = (DeadLetter) o;
        return Objects.equals(source, that.source) && Objects.equals(reason, that.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, reason);
    }

    @Override
    public String toString() {
        return "DeadLetter(" + source + ": " + reason + ")";
    }
}
