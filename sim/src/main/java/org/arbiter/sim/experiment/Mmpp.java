package org.arbiter.sim.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/*
 * Design note — the yield experiment's Markov-modulated Poisson arrivals (--arrivals mmpp).
 *
 * Two states, high and low: in the high state every class arrives at its mean rate × (1 + 0.15), in
 * the low state × (1 − 0.15). The dwell in each state is exponential with mean 30 s (both states
 * alike, so the long-run mean rate is the demand: each state holds half the time), and the process
 * starts in either state with probability 1/2 (its stationary law). One modulating path is shared by
 * the three classes (their rates rise and fall together, as one trace's would), drawn from its own
 * random stream seeded by the run's seed, so a run's path does not depend on the policy or layout.
 *
 * Arrivals given the path are a non-homogeneous Poisson process: the next arrival after t is where
 * the integrated rate from t reaches an Exp(1) draw. The inter-arrival coefficient of variation of
 * such a process (dwell ≫ inter-arrival) is that of an arrival-weighted mixture of Exp(λ(1 ± a)):
 * CV² = 2 / (1 − a²) − 1, 1.023 for a = 0.15, close to 002 Table 2's 1.019-1.021 (std-dev / mean of
 * its three traces). YieldExperiment measures it over a long run and writes it to result.json.
 *
 * Not thread-safe (the path is extended lazily); deterministic under the seed.
 */

/** Two-rate MMPP: rate × (1 ± 0.15), Exp(30 s) dwell per state. See the design note. */
final class Mmpp {

    static final double AMPLITUDE = 0.15;
    static final double DWELL_SECONDS = 30;

    private final SplittableRandom random;
    /** Segment i runs from starts[i] to starts[i + 1] with factor factors[i]. */
    private final List<Double> starts = new ArrayList<>();
    private final List<Double> factors = new ArrayList<>();
    private double pathEnd;

    Mmpp(long seed) {
        random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 0x4D4D5050L);
        starts.add(0.0);
        factors.add(random.nextBoolean() ? 1 + AMPLITUDE : 1 - AMPLITUDE);
        pathEnd = dwell();
    }

    private double dwell() {
        return -DWELL_SECONDS * Math.log(1 - random.nextDouble());
    }

    /** Extends the path to beyond {@code t}. */
    private void extend(double t) {
        while (pathEnd <= t) {
            starts.add(pathEnd);
            double f = factors.get(factors.size() - 1);
            factors.add(f > 1 ? 1 - AMPLITUDE : 1 + AMPLITUDE);
            pathEnd += dwell();
        }
    }

    private double end(int i) {
        return i + 1 < starts.size() ? starts.get(i + 1) : pathEnd;
    }

    private int segment(double t) {
        extend(t);
        int lo = 0;
        int hi = starts.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (starts.get(mid) <= t) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** The rate factor (1 ± 0.15) in force at {@code t}. */
    double factor(double t) {
        return factors.get(segment(t));
    }

    /** The next arrival after {@code now} of a class with mean rate {@code meanRate}, given an Exp(1) draw {@code e}. */
    double next(double now, double meanRate, double e) {
        if (!(meanRate > 0)) {
            return Double.POSITIVE_INFINITY;
        }
        double need = e;
        double t = now;
        int i = segment(now);
        while (true) {
            double rate = meanRate * factors.get(i);
            double end = end(i);
            double room = (end - t) * rate;
            if (room >= need) {
                return t + need / rate;
            }
            need -= room;
            t = end;
            i++;
            extend(t);
        }
    }

    /** The path up to {@code until}: [start, end, factor] per segment, cut at {@code cut} as well (if inside). */
    List<double[]> segments(double until, double cut) {
        extend(until);
        List<double[]> out = new ArrayList<>();
        for (int i = 0; i < starts.size() && starts.get(i) < until; i++) {
            double a = starts.get(i);
            double b = Math.min(end(i), until);
            if (a < cut && cut < b) {
                out.add(new double[] {a, cut, factors.get(i)});
                out.add(new double[] {cut, b, factors.get(i)});
            } else {
                out.add(new double[] {a, b, factors.get(i)});
            }
        }
        return out;
    }

    /**
     * The inter-arrival coefficient of variation (std-dev / mean) of classes with the given mean rates
     * over {@code seconds} of a path drawn from {@code seed}: per class, then of all arrivals merged
     * (last entry).
     */
    static double[] interArrivalCv(long seed, double[] meanRates, double seconds) {
        Mmpp m = new Mmpp(seed);
        SplittableRandom r = new SplittableRandom(seed ^ 0x43564356L);
        int n = meanRates.length;
        double[] next = new double[n];
        double[] last = new double[n + 1];
        double[] sum = new double[n + 1];
        double[] sq = new double[n + 1];
        long[] count = new long[n + 1];
        java.util.Arrays.fill(last, Double.NaN);
        for (int c = 0; c < n; c++) {
            next[c] = m.next(0, meanRates[c], -Math.log(1 - r.nextDouble()));
        }
        while (true) {
            int c = 0;
            for (int k = 1; k < n; k++) {
                if (next[k] < next[c]) {
                    c = k;
                }
            }
            double t = next[c];
            if (t >= seconds) {
                break;
            }
            for (int k : new int[] {c, n}) {
                if (!Double.isNaN(last[k])) {
                    double x = t - last[k];
                    sum[k] += x;
                    sq[k] += x * x;
                    count[k]++;
                }
                last[k] = t;
            }
            next[c] = m.next(t, meanRates[c], -Math.log(1 - r.nextDouble()));
        }
        double[] cv = new double[n + 1];
        for (int k = 0; k <= n; k++) {
            double mean = sum[k] / count[k];
            cv[k] = Math.sqrt(Math.max(0, sq[k] / count[k] - mean * mean)) / mean;
        }
        return cv;
    }
}
