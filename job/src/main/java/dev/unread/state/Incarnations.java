package dev.unread.state;

import java.util.concurrent.ThreadLocalRandom;

/**
 * An operator's incarnation: a random id per open (each start or restore), which records note when
 * this incarnation wrote them out, so that the first touch after a restore writes a value out even
 * if unchanged (Redis may hold one of a timeline the restore rolled back).
 */
public final class Incarnations {

    private Incarnations() {}

    /** A new incarnation: neither 0, a fresh record's, nor -1, the complement of 0. */
    public static long next() {
        long incarnation;
        do {
            incarnation = ThreadLocalRandom.current().nextLong();
        } while (incarnation == 0 || incarnation == -1);
        return incarnation;
    }
}
