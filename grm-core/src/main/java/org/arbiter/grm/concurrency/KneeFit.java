package org.arbiter.grm.concurrency;

import java.util.stream.IntStream;
import org.arbiter.grm.model.QuadraticLeastSquares;

/*
 * Design note — N_s at the knee (003 Fig. 7, 004 eq. 7).
 *
 * Model: a server's latency grows with its concurrency N as L(N) = aN² + bN + c, a, b, c ≥ 0
 * (004 eq. 7: c the bare service time, b queueing for shared resources, a thrashing). Its
 * throughput is then X(N) = N / L(N), which rises, flattens and (with a > 0) falls: 003 Fig. 7.
 * From the (N_e, L) samples the gateways report, fit a, b, c by non-negative least squares
 * (exact: the best of the 8 active sets of the 3-parameter problem), and choose the smallest N in
 * [min, max] whose predicted throughput reaches 95 % of the maximum over that range.
 *
 * Samples: the last 64, so the fit follows a changing workload. Until three distinct N spanning
 * at least 4 have been seen there is nothing to fit; if the server is then saturated (the measured in-flight count is at
 * the limit, so N_e never varies by itself) the limit probes: anchor, anchor + d, anchor − d with
 * d = max(2, anchor/4), each held for `hold` samples (the statistics window over the control
 * period, so a point's samples are not averaged with its neighbour's), anchor being the limit when probing began. Once the
 * history holds only the chosen N again (64 periods later) it probes anew: the fit follows the
 * workload.
 * Thread-safety: not thread-safe.
 */

/** N_s at the knee of the fitted throughput curve. See the design note. */
final class KneeFit implements ConcurrencyController {

    private static final int HISTORY = 64;

    private final int min;
    private final int max;
    private final double fraction;
    private final double[] n = new double[HISTORY];
    private final double[] l = new double[HISTORY];
    private int size;
    private int next;
    private int current;
    private int anchor = -1;
    private int probe;
    private final int hold;

    KneeFit(int initial, int min, int max, double fraction) {
        this(initial, min, max, fraction, 1);
    }

    /** @param hold samples each probe point is held (the measurement window over the period, so samples are clean) */
    KneeFit(int initial, int min, int max, double fraction, int hold) {
        this.hold = Math.max(1, hold);
        if (min < 1 || max < min) {
            throw new IllegalArgumentException("concurrency range: [" + min + ", " + max + "] (expected: 1 <= min <= max)");
        }
        this.min = min;
        this.max = max;
        this.fraction = fraction;
        this.current = Math.max(min, Math.min(max, initial));
    }

    @Override
    public int update(Sample s) {
        if (s.inFlight() > 0 && s.latencySeconds() > 0) {
            n[next] = s.inFlight();
            l[next] = s.latencySeconds();
            next = (next + 1) % HISTORY;
            size = Math.min(size + 1, HISTORY);
        }
        double[] fit = fit();
        if (fit != null) {
            current = knee(fit[0], fit[1], fit[2], min, max, fraction);
            anchor = -1;
        } else if (s.inFlight() >= 0.9 * current) {
            if (anchor < 0) {
                anchor = current;
                probe = 0;
            }
            int d = Math.max(2, anchor / 4);
            int[] points = {anchor + d, anchor - d, anchor};
            current = Math.max(min, Math.min(max, points[(probe++ / hold) % points.length]));
        }
        return current;
    }

    @Override
    public int current() {
        return current;
    }

    /** The smallest N in [min, max] with N/L(N) ≥ fraction · max_N N/L(N). */
    static int knee(double a, double b, double c, int min, int max, double fraction) {
        double best = 0;
        for (int k = min; k <= max; k++) {
            best = Math.max(best, k / (a * k * k + b * k + c));
        }
        for (int k = min; k <= max; k++) {
            if (k / (a * k * k + b * k + c) >= fraction * best) {
                return k;
            }
        }
        return max;
    }

    /** a, b, c ≥ 0 minimising Σ (aN² + bN + c − L)², or null with too little data. */
    double[] fit() {
        long distinct = IntStream.range(0, size).mapToDouble(i -> Math.round(n[i] * 10) / 10.0).distinct().count();
        double lo = Double.POSITIVE_INFINITY;
        double hi = 0;
        for (int i = 0; i < size; i++) {
            lo = Math.min(lo, n[i]);
            hi = Math.max(hi, n[i]);
        }
        if (distinct < 3 || hi - lo < 4) { // a curve from neighbouring points extrapolates wildly
            return null;
        }
        double[] best = null;
        double bestErr = Double.POSITIVE_INFINITY;
        for (int mask = 1; mask < 8; mask++) {
            double[] p = QuadraticLeastSquares.solve(mask, n, l, size);
            if (p == null || p[0] < 0 || p[1] < 0 || p[2] < 0) {
                continue;
            }
            double err = QuadraticLeastSquares.squaredError(p, n, l, size);
            if (err < bestErr && p[0] * max * max + p[1] * max + p[2] > 0) {
                bestErr = err;
                best = p;
            }
        }
        return best;
    }
}
