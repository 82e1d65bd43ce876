package org.arbiter.grm.optimize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The optimiser on arbitrary value tables (not only 003 eq. 7 of eq. 9): concave, flat-then-concave
 * (003's shape), steps (002's yields), noise, non-monotone — against exhaustive
 * enumeration on small instances and, on larger ones where the concave-run shortcut and the
 * threshold search for min are exercised, against {@link ReferenceOptimizer}: the objectives'
 * definitions as a plain memoised recursion, sharing no code with the optimiser (and itself checked
 * against enumeration).
 */
final class OptimizerProperties {

    @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
    void sumAndMin_equalBruteForce_onArbitraryTables(@ForAll long seed) {
        Random rnd = new Random(seed);
        int total = 2 + rnd.nextInt(9);
        List<TableItem> items = randomItems(rnd, 1 + rnd.nextInt(4), total, 1 + rnd.nextInt(3));
        if (!feasible(items, total)) {
            return;
        }
        Optimizer.Result sum = Optimizer.maximiseSum(items, total);
        Optimizer.Result min = Optimizer.maximiseMin(items, total);
        assertThat(sum.objective()).isCloseTo(brute(items, total, false), within(1e-9));
        assertThat(min.objective()).isCloseTo(brute(items, total, true), within(1e-9));
        assertValid(items, total, sum);
        assertValid(items, total, min);
    }

    @Property(tries = 120, edgeCases = EdgeCasesMode.NONE)
    void sumAndMin_equalThePlainDp_onLargerInstances(@ForAll long seed) {
        Random rnd = new Random(seed);
        int total = 20 + rnd.nextInt(120);
        List<TableItem> items = randomItems(rnd, 2 + rnd.nextInt(7), total, 1 + rnd.nextInt(4));
        if (!feasible(items, total)) {
            return;
        }
        Optimizer.Result sum = Optimizer.maximiseSum(items, total);
        Optimizer.Result min = Optimizer.maximiseMin(items, total);
        assertThat(sum.objective()).isCloseTo(ReferenceOptimizer.maximiseSum(items, total), within(1e-9));
        assertThat(min.objective()).isCloseTo(ReferenceOptimizer.maximiseMin(items, total), within(1e-9));
        assertValid(items, total, sum);
        assertValid(items, total, min);
    }

    /** The oracle itself against exhaustive enumeration, so that the larger property rests on something checked. */
    @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
    void theReference_equalsBruteForce_onSmallInstances(@ForAll long seed) {
        Random rnd = new Random(seed);
        int total = 2 + rnd.nextInt(9);
        List<TableItem> items = randomItems(rnd, 1 + rnd.nextInt(4), total, 1 + rnd.nextInt(3));
        if (!feasible(items, total)) {
            return;
        }
        assertThat(ReferenceOptimizer.maximiseSum(items, total)).isCloseTo(brute(items, total, false), within(1e-9));
        assertThat(ReferenceOptimizer.maximiseMin(items, total)).isCloseTo(brute(items, total, true), within(1e-9));
    }

    @Property(tries = 200, edgeCases = EdgeCasesMode.NONE)
    void convolution_equalsTheDirectLoop_forEveryShape(@ForAll long seed, @ForAll @IntRange(min = 0, max = 60) int reach,
                                                      @ForAll @IntRange(min = 0, max = 60) int range) {
        Random rnd = new Random(seed);
        int free = reach + range + rnd.nextInt(5) - 2;
        if (free < Math.max(reach, 0)) {
            return;
        }
        double[] f = new double[free + 1];
        Arrays.fill(f, Double.NEGATIVE_INFINITY);
        for (int j = 0; j <= reach; j++) {
            f[j] = rnd.nextInt(3) == 0 ? rnd.nextInt(5) : rnd.nextGaussian() * 10;
        }
        double[] v = shape(rnd, range + 1);
        double[] g = new double[free + 1];
        int[] c = new int[free + 1];
        Arrays.fill(g, Double.NEGATIVE_INFINITY);
        Arrays.fill(c, -1);
        Optimizer.convolve(f, reach, v, g, c);
        for (int n = 0; n <= free; n++) {
            double best = Double.NEGATIVE_INFINITY;
            for (int x = 0; x <= Math.min(range, n); x++) {
                if (n - x <= reach) {
                    best = Math.max(best, f[n - x] + v[x]);
                }
            }
            if (best == Double.NEGATIVE_INFINITY) {
                assertThat(g[n]).isEqualTo(best);
            } else {
                assertThat(g[n]).isCloseTo(best, within(1e-9));
                assertThat(f[n - c[n]] + v[c[n]]).isEqualTo(g[n]);
            }
        }
    }

    @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
    void sameInput_givesTheSameAllocation(@ForAll long seed) {
        Random rnd = new Random(seed);
        int total = 10 + rnd.nextInt(40);
        List<TableItem> items = randomItems(rnd, 2 + rnd.nextInt(5), total, 1 + rnd.nextInt(3));
        if (!feasible(items, total)) {
            return;
        }
        assertThat(Optimizer.maximiseMin(items, total).units()).isEqualTo(Optimizer.maximiseMin(items, total).units());
        assertThat(Optimizer.maximiseSum(items, total).units()).isEqualTo(Optimizer.maximiseSum(items, total).units());
    }

    /** Value tables of every shape; bounds random; groups 0..groups−1. */
    static List<TableItem> randomItems(Random rnd, int count, int total, int groups) {
        List<TableItem> items = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int lower = rnd.nextInt(3);
            boolean pinned = rnd.nextInt(8) == 0;
            int upper = pinned ? lower : lower + rnd.nextInt(total + 1);
            double[] v = rnd.nextInt(8) == 0 ? constant(rnd, upper + 1) : shape(rnd, upper + 1);
            items.add(new TableItem(rnd.nextInt(groups), lower, upper, v));
        }
        return items;
    }

    static double[] constant(Random rnd, int n) {
        double[] v = new double[n];
        Arrays.fill(v, rnd.nextGaussian());
        return v;
    }

    /** A table of one of the shapes the optimiser meets (or worse). */
    static double[] shape(Random rnd, int n) {
        double[] v = new double[n];
        switch (rnd.nextInt(6)) {
            case 0 -> { // flat at the cap while unstable, then concave: 003 eq. 7 of eq. 9
                double lambda = 0.5 + rnd.nextDouble() * n;
                double mu = 0.5 + rnd.nextDouble() * 2;
                double cap = 10;
                for (int x = 0; x < n; x++) {
                    double d = mu - lambda / Math.max(x, 1e-9);
                    double t = d <= 0 ? cap : Math.min(1 / d, cap);
                    v[x] = 2 - t;
                }
            }
            case 1 -> { // concave
                double a = rnd.nextDouble() * 5;
                for (int x = 0; x < n; x++) {
                    v[x] = a * Math.sqrt(x) - 0.01 * x * x;
                }
            }
            case 2 -> { // steps (throughput yield), with ties
                double level = -rnd.nextInt(3);
                for (int x = 0; x < n; x++) {
                    if (rnd.nextInt(5) == 0) {
                        level += rnd.nextInt(3);
                    }
                    v[x] = level;
                }
            }
            case 3 -> { // linear, many ties
                int slope = rnd.nextInt(3);
                for (int x = 0; x < n; x++) {
                    v[x] = slope * x;
                }
            }
            case 4 -> { // non-decreasing noise
                double level = rnd.nextGaussian();
                for (int x = 0; x < n; x++) {
                    level += rnd.nextDouble();
                    v[x] = level;
                }
            }
            default -> { // anything: non-monotone, non-concave
                for (int x = 0; x < n; x++) {
                    v[x] = rnd.nextGaussian() * 3;
                }
            }
        }
        return v;
    }

    static boolean feasible(List<TableItem> items, int total) {
        int lo = items.stream().mapToInt(TableItem::lower).sum();
        int hi = items.stream().mapToInt(TableItem::upper).sum();
        return lo <= total && total <= hi;
    }

    static void assertValid(List<TableItem> items, int total, Optimizer.Result r) {
        int sum = 0;
        for (int i = 0; i < items.size(); i++) {
            assertThat(r.units()[i]).isBetween(items.get(i).lower(), items.get(i).upper());
            sum += r.units()[i];
        }
        assertThat(sum).isEqualTo(total);
    }

    static double brute(List<TableItem> items, int total, boolean min) {
        double[] best = {Double.NEGATIVE_INFINITY};
        enumerate(items, new int[items.size()], 0, total, min, best);
        return best[0];
    }

    private static void enumerate(List<TableItem> items, int[] k, int i, int left, boolean min, double[] best) {
        if (i == k.length) {
            if (left == 0) {
                best[0] = Math.max(best[0], objective(items, k, min));
            }
            return;
        }
        for (int x = items.get(i).lower(); x <= Math.min(items.get(i).upper(), left); x++) {
            k[i] = x;
            enumerate(items, k, i + 1, left - x, min, best);
        }
    }

    static double objective(List<TableItem> items, int[] k, boolean min) {
        double[] byGroup = new double[8];
        boolean[] present = new boolean[8];
        double sum = 0;
        for (int i = 0; i < k.length; i++) {
            double v = items.get(i).value(k[i]);
            sum += v;
            byGroup[items.get(i).group()] += v;
            present[items.get(i).group()] = true;
        }
        if (!min) {
            return sum;
        }
        double m = Double.POSITIVE_INFINITY;
        for (int g = 0; g < byGroup.length; g++) {
            if (present[g]) {
                m = Math.min(m, byGroup[g]);
            }
        }
        return m;
    }

    /**
     * An optimiser item over an explicit table v[k], k = 0..upper; {@code shaped}: the table is
     * non-decreasing, flat then concave, and says so ({@link Optimizer.Item#concaveAfterFlat}).
     */
    record TableItem(int group, int lower, int upper, double[] v, boolean shaped) implements Optimizer.Item {
        TableItem(int group, int lower, int upper, double[] v) {
            this(group, lower, upper, v, false);
        }

        @Override
        public double value(int units) {
            return v[units];
        }

        @Override
        public boolean concaveAfterFlat() {
            return shaped;
        }

        @Override
        public boolean isConstant() {
            if (lower == upper) {
                return true;
            }
            for (int k = lower; k <= upper; k++) {
                if (v[k] != v[lower]) {
                    return false;
                }
            }
            return true;
        }
    }
}
