package dev.unread.generator;

import java.util.SplittableRandom;

/**
 * Draws ranks 1..n with probability proportional to {@code 1 / rank^exponent}: Zipf's law, the
 * shape of chat traffic (a few users receive much of it). Exponent 0 is uniform.
 *
 * <p>Rejection-inversion sampling (W. Hörmann and G. Derflinger, "Rejection-inversion to generate
 * variates from monotone discrete distributions", 1996), as in Apache Commons Math's {@code
 * ZipfDistribution}: constant expected time and no table, so millions of users cost no memory.
 */
final class ZipfSampler {

    private final int n;
    private final double exponent;
    private final double hIntegralX1;
    private final double hIntegralN;
    private final double s;

    ZipfSampler(int n, double exponent) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be >= 1, was " + n);
        }
        if (!(exponent >= 0) || Double.isInfinite(exponent)) {
            throw new IllegalArgumentException("exponent must be >= 0, was " + exponent);
        }
        this.n = n;
        this.exponent = exponent;
        this.hIntegralX1 = hIntegral(1.5) - 1.0;
        this.hIntegralN = hIntegral(n + 0.5);
        this.s = 2.0 - hIntegralInverse(hIntegral(2.5) - h(2.0));
    }

    /** A rank from 1 (the most likely) to n. */
    int sample(SplittableRandom random) {
        while (true) {
            double u = hIntegralN + random.nextDouble() * (hIntegralX1 - hIntegralN);
            double x = hIntegralInverse(u);
            int k = (int) (x + 0.5);
            if (k < 1) {
                k = 1;
            } else if (k > n) {
                k = n;
            }
            // Accepts at once in most draws; the second test is the exact rejection.
            if (k - x <= s || u >= hIntegral(k + 0.5) - h(k)) {
                return k;
            }
        }
    }

    /** The probability of {@code rank}, for tests. */
    static double probability(int rank, int n, double exponent) {
        double norm = 0;
        for (int k = 1; k <= n; k++) {
            norm += Math.pow(k, -exponent);
        }
        return Math.pow(rank, -exponent) / norm;
    }

    /** The integral of {@link #h} from 1 to x, shifted: log-based so that exponent 1 is exact. */
    private double hIntegral(double x) {
        double logX = Math.log(x);
        return helper2((1.0 - exponent) * logX) * logX;
    }

    private double h(double x) {
        return Math.exp(-exponent * Math.log(x));
    }

    private double hIntegralInverse(double x) {
        double t = x * (1.0 - exponent);
        if (t < -1.0) {
            // Rounding can take t just below -1, where log1p is undefined.
            t = -1.0;
        }
        return Math.exp(helper1(t) * x);
    }

    /** log(1 + x) / x, accurate near 0. */
    private static double helper1(double x) {
        if (Math.abs(x) > 1e-8) {
            return Math.log1p(x) / x;
        }
        return 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
    }

    /** (exp(x) - 1) / x, accurate near 0. */
    private static double helper2(double x) {
        if (Math.abs(x) > 1e-8) {
            return Math.expm1(x) / x;
        }
        return 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x));
    }
}
