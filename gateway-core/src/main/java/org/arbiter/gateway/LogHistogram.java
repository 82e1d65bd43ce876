package org.arbiter.gateway;

/**
 * The cells of a log-bucketed histogram of durations in nanoseconds: 4 % relative precision from 1 µs
 * to about 20 minutes (about 530 cells). StatsRecorder keeps each class's window as counts per cell and
 * each bucket's responses as the cells they fell in. Stateless.
 */
final class LogHistogram {

    private static final double BASE = 1.04;
    private static final double LOG_BASE = Math.log(BASE);
    private static final double MIN_NANOS = 1_000;
    static final int BUCKETS = 2 + (int) (Math.log(1.2e12 / MIN_NANOS) / LOG_BASE);

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
