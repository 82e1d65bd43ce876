package org.arbiter.gateway;

/**
 * Arrivals and gateway drops over a sliding window (002 §4.2's "30-second window of recent request
 * dropping statistics"), in 30 buckets: the ratio the adaptive scheduler switches on. Time is
 * passed in. Not thread-safe: owned by its {@link GatewayCore}.
 */
final class RecentDrops {

    private static final int BUCKETS = 30;

    private final long bucketNanos;
    private final long[] arrivals = new long[BUCKETS];
    private final long[] drops = new long[BUCKETS];
    private long bucket; // index of the current bucket since time 0 (floorDiv(now, bucketNanos))
    private boolean started;

    RecentDrops(double windowSeconds) {
        this.bucketNanos = Math.max(1, Math.round(windowSeconds * 1e9 / BUCKETS));
    }

    void arrival(long nowNanos) {
        arrivals[slot(nowNanos)]++;
    }

    void drop(long nowNanos) {
        drops[slot(nowNanos)]++;
    }

    /** Drops over arrivals in the window ending now; 0 without arrivals. */
    double ratio(long nowNanos) {
        slot(nowNanos);
        long a = 0;
        long d = 0;
        for (int i = 0; i < BUCKETS; i++) {
            a += arrivals[i];
            d += drops[i];
        }
        return a == 0 ? 0 : Math.min(1, (double) d / a);
    }

    private int slot(long nowNanos) {
        long b = Math.floorDiv(nowNanos, bucketNanos);
        if (!started) {
            started = true;
            bucket = b;
        }
        if (b > bucket) {
            long clear = Math.min(BUCKETS, b - bucket);
            for (long i = 1; i <= clear; i++) {
                int k = (int) Math.floorMod(bucket + i, (long) BUCKETS);
                arrivals[k] = 0;
                drops[k] = 0;
            }
            bucket = b;
        }
        return (int) Math.floorMod(bucket, (long) BUCKETS);
    }
}
