package org.arbiter.gateway;

import java.util.Arrays;

/**
 * A small log-bucketed histogram of durations in nanoseconds: 4 % relative precision from 1 µs to
 * about 20 minutes (about 530 int counters), cheap enough to keep one per class per time bucket.
 * Not thread-safe.
 */
final class LogHistogram {

    private static final double BASE = 1.04;
    private static final double LOG_BASE = Math.log(BASE);
    private static final double MIN_NANOS = 1_000;
    static final int BUCKETS = 2 + (int) (Math.log(1.2e12 / MIN_NANOS) / LOG_BASE);

    private final int[] counts = new int[BUCKETS];
    private long total;

    void record(long nanos) {
        counts[index(nanos)]++;
        total++;
    }

    static int index(long nanos) {
        if (nanos <= MIN_NANOS) {
            return 0;
        }
        int i = 1 + (int) (Math.log(nanos / MIN_NANOS) / LOG_BASE);
        return Math.min(i, BUCKETS - 1);
    }

    /** Representative value of bucket i (geometric middle), ns. */
    static double value(int i) {
        if (i == 0) {
            return MIN_NANOS;
        }
        return MIN_NANOS * Math.pow(BASE, i - 0.5);
    }

    /** Takes this histogram's counts off {@code acc} (the bucket leaves a window whose sum acc is). */
    void subtractFrom(long[] acc) {
        if (total == 0) {
            return;
        }
        for (int i = 0; i < BUCKETS; i++) {
            acc[i] -= counts[i];
        }
    }

    void addTo(long[] acc) {
        if (total == 0) {
            return;
        }
        for (int i = 0; i < BUCKETS; i++) {
            acc[i] += counts[i];
        }
    }

    void reset() {
        if (total != 0) {
            Arrays.fill(counts, 0);
            total = 0;
        }
    }

    /** The q-quantile (0..1) of merged counts, ns; 0 when empty. */
    static double quantile(long[] acc, double q) {
        long n = 0;
        for (long c : acc) {
            n += c;
        }
        if (n == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * n);
        long seen = 0;
        for (int i = 0; i < acc.length; i++) {
            seen += acc[i];
            if (seen >= rank && acc[i] > 0) {
                return value(i);
            }
        }
        return value(acc.length - 1);
    }
}
