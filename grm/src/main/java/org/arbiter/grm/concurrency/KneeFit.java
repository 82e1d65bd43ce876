package org.arbiter.grm.concurrency;

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
        long distinct = java.util.stream.IntStream.range(0, size).mapToDouble(i -> Math.round(n[i] * 10) / 10.0).distinct().count();
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
            double[] p = solve(mask);
            if (p == null || p[0] < 0 || p[1] < 0 || p[2] < 0) {
                continue;
            }
            double err = 0;
            for (int i = 0; i < size; i++) {
                double r = p[0] * n[i] * n[i] + p[1] * n[i] + p[2] - l[i];
                err += r * r;
            }
            if (err < bestErr && p[0] * max * max + p[1] * max + p[2] > 0) {
                bestErr = err;
                best = p;
            }
        }
        return best;
    }

    /** Least squares over the parameters in {@code mask} (bit 0 = a, 1 = b, 2 = c), others 0. */
    private double[] solve(int mask) {
        int[] idx = new int[3];
        int m = 0;
        for (int j = 0; j < 3; j++) {
            if ((mask & (1 << j)) != 0) {
                idx[m++] = j;
            }
        }
        double[][] ata = new double[m][m];
        double[] atb = new double[m];
        for (int i = 0; i < size; i++) {
            double[] row = {n[i] * n[i], n[i], 1};
            for (int r = 0; r < m; r++) {
                atb[r] += row[idx[r]] * l[i];
                for (int c2 = 0; c2 < m; c2++) {
                    ata[r][c2] += row[idx[r]] * row[idx[c2]];
                }
            }
        }
        double[] x = gauss(ata, atb);
        if (x == null) {
            return null;
        }
        double[] p = new double[3];
        for (int r = 0; r < m; r++) {
            p[idx[r]] = x[r];
        }
        return p;
    }

    private static double[] gauss(double[][] a, double[] b) {
        int m = b.length;
        for (int col = 0; col < m; col++) {
            int pivot = col;
            for (int r = col + 1; r < m; r++) {
                if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) {
                    pivot = r;
                }
            }
            if (Math.abs(a[pivot][col]) < 1e-12) {
                return null;
            }
            double[] t = a[col];
            a[col] = a[pivot];
            a[pivot] = t;
            double tb = b[col];
            b[col] = b[pivot];
            b[pivot] = tb;
            for (int r = 0; r < m; r++) {
                if (r != col) {
                    double f = a[r][col] / a[col][col];
                    for (int c2 = col; c2 < m; c2++) {
                        a[r][c2] -= f * a[col][c2];
                    }
                    b[r] -= f * b[col];
                }
            }
        }
        double[] x = new double[m];
        for (int r = 0; r < m; r++) {
            x[r] = b[r] / a[r][r];
        }
        return x;
    }
}
