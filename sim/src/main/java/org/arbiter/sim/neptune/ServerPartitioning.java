package org.arbiter.sim.neptune;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/*
 * Design note — server partitioning, the baseline 002 §3 compares Neptune with (after DDSD [41]).
 *
 * Every interval (10 s in 002) the partitioner predicts each class's demand d_c from the past
 * interval's usage, in servers (arrivals × mean service time / interval), and allocates a_c
 * servers out of the S that are up:
 *   - under-load (Σ d_c ≤ S): a_c = d_c + (S − Σ d) · d_c / Σ d (the rest in proportion to demand);
 *   - overload: first a_c = min(d_c, g_c · S) (g_c the guarantee), then the rest goes to the
 *     classes in priority order (full yield / mean service time, from profiling), each up to its
 *     demand; what is left after every demand is met is shared in proportion to demand.
 * Fractional allocations: a class with a_c = k + f gets k dedicated servers and f of the shared
 * pool (the servers left after every class's whole servers; Σ f = the pool's size).
 *
 * Pure and stateless; thread-safe.
 */

/** The server-partitioning allocation of 002 §3. See the design note. */
public final class ServerPartitioning {

    private ServerPartitioning() {
    }

    /**
     * @param demandServers per class, predicted demand in servers (≥ 0)
     * @param guarantee     per class, guaranteed fraction of the servers (Σ ≤ 1)
     * @param priority      per class, full yield / mean service time (higher first)
     * @param servers       servers up
     * @return per class, servers allocated (fractional), summing to {@code servers} (0 if no demand)
     */
    public static double[] allocate(double[] demandServers, double[] guarantee, double[] priority, int servers) {
        int n = demandServers.length;
        if (guarantee.length != n || priority.length != n) {
            throw new IllegalArgumentException("guarantee, priority: lengths " + guarantee.length + ", "
                    + priority.length + " (expected: " + n + ", as demandServers)");
        }
        double[] a = new double[n];
        double total = Arrays.stream(demandServers).sum();
        if (servers <= 0) {
            return a;
        }
        if (total <= 0) {
            Arrays.fill(a, (double) servers / n);
            return a;
        }
        if (total <= servers) {
            for (int c = 0; c < n; c++) {
                a[c] = demandServers[c] + (servers - total) * demandServers[c] / total;
            }
            return a;
        }
        double left = servers;
        for (int c = 0; c < n; c++) {
            a[c] = Math.min(demandServers[c], guarantee[c] * servers);
            left -= a[c];
        }
        Integer[] order = IntStream.range(0, n).boxed().sorted(Comparator.comparingDouble(c -> -priority[c]))
                .toArray(Integer[]::new);
        for (int c : order) {
            double more = Math.min(left, demandServers[c] - a[c]);
            a[c] += more;
            left -= more;
        }
        if (left > 1e-12) {
            for (int c = 0; c < n; c++) {
                a[c] += left * demandServers[c] / total;
            }
        }
        return a;
    }

    /**
     * Whole servers first, then the pool: {@code result[c]} = k_c dedicated servers (floor a_c) and
     * the pool, the servers after all dedicated ones, is shared by the fractional parts.
     */
    public static int[] dedicated(double[] allocation) {
        int[] k = new int[allocation.length];
        for (int c = 0; c < k.length; c++) {
            k[c] = (int) Math.floor(allocation[c] + 1e-9);
        }
        return k;
    }
}
