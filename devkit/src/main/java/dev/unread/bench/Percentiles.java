package dev.unread.bench;

import java.util.Arrays;

/** Percentiles by nearest rank: always a value that was measured, never an interpolation. */
final class Percentiles {

    private Percentiles() {}

    /**
     * The smallest value with at least {@code p} percent of the values at or below it. Sorts a
     * copy: the caller's timings stay in the order they were taken.
     */
    static double nearestRank(double[] values, double p) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("p must be in (0, 100], was " + p);
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        // p * n before the division: exact for whole percentiles, where 0.99 * 100 is not 99.
        int rank = (int) Math.ceil(p * sorted.length / 100);
        return sorted[Math.max(rank, 1) - 1];
    }
}
