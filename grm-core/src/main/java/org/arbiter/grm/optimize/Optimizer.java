package org.arbiter.grm.optimize;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/*
 * Design note — the optimiser.
 *
 * Problem (003 §IV-A, eq. 2-3). F flows share M units of concurrency (M = N·q: N = Σ_s N_s slots,
 * q = granularity, one unit = 1/q of a slot). Flow i gets k_i units, L_i ≤ k_i ≤ H_i, Σ k_i = M
 * exactly, and yields value v_i(k_i) = U_c(t_i(k_i/q)) (eq. 7 of eq. 9). Flows are grouped into
 * classes. Objectives:
 *     sum (eq. 2a): maximise Σ_i v_i(k_i);
 *     min (eq. 2b): maximise min_c Σ_{i∈c} v_i(k_i)   (a class with no flow takes no part).
 * Every flow is shifted to its lower bound first: k_i = L_i + x_i, Σ x_i = M' = M − Σ L_i
 * (infeasible when M' < 0, or when the upper bounds cannot hold M).
 *
 * Exact dynamic programming. 003's recurrence (§IV-C) is a chain of (max,+) convolutions,
 *     f_i(n) = max_{0 ≤ x ≤ n} v_i(x) + f_{i−1}(n − x),
 * O(M'²) each, O(F·M'²) in all (003 §IV-C). The ceiling, not the target; three exact shortcuts:
 *
 * 1. Concave pieces (SMAWK-style monotone argmax, by divide and conquer). If v is concave on an
 *    interval [a, b] of x, the best j = n − x for output n is non-decreasing in n (for j₁ < j₂
 *    the gain v(n − j₂) − v(n − j₁) is non-decreasing in n when v is concave), so all outputs
 *    of that piece cost O((M' + b − a) log M') instead of O(M'·(b − a)). Every table is split
 *    into maximal concave runs; the convolution is the max over runs. Eq. 9 with eq. 7
 *    (α = β = 1) gives two runs per flow — flat at U(cap) while the flow would be unstable, then
 *    concave (t(w) is convex and decreasing in w on the stable branch); 002's step-shaped
 *    yields give a few flat runs. A table with many runs (arbitrary utilities) falls back to the
 *    direct O(M'·range) loop, whichever the operation count says is cheaper — always exact.
 * 2. Constant flows (no arrivals, no measurement, or pinned with L = H) leave the recurrence:
 *    their spare room H − L is pooled into one "slack" table worth 0, last in the chain (so it
 *    takes units only when no variable flow gains from them), and the units it takes go to the
 *    last constant flows in input order. Exact: a constant flow's units change no value.
 * 3. min: per class c, the chain above gives V_c(n), the best class total with n units (for a
 *    fixed class budget the class's best sum is what maximises the minimum, and it also
 *    maximises the total). When every V_c is non-decreasing (always for monotone utilities,
 *    as 003 eq. 7 and 002's yields are) the best minimum is a threshold search instead of the
 *    O(C·M'²) max-min merge: with u_c(m) = the fewest units for which V_c ≥ m, the threshold m
 *    is reachable iff Σ_c u_c(m) ≤ M'; m* is the largest reachable value among the V_c's
 *    (binary search per class, O(C² log² M')). The units left over, M' − Σ u_c(m*), are then
 *    placed to maximise Σ_c V_c by one more (max,+) chain over classes with lower bounds u_c:
 *    the result is the exact lexicographic optimum (largest minimum, then largest total).
 *    Non-monotone tables fall back to the max-min merge h_j(n) = max_x min(V_j(x), h_{j−1}(n−x))
 *    (ties: the larger total, a heuristic there; only the minimum is claimed exact).
 *
 * Ties: smaller x for the later flow (so earlier flows in input order get the units), classes
 * likewise; the same input always gives the same output. Floating point: the concave shortcut
 * relies on the tables' differences as computed, so its results can differ from the direct loop
 * by rounding (≈1e−15 relative), never by a unit's worth of utility.
 *
 * Complexity: time O(F·P·(M' log M')) where P is the number of concave runs per table (2 for the
 * 003's model), bounded by 003's O(F·M'²); min adds O(C² log² M') and a chain over
 * classes (O(C·R²) at worst, R = units left after the thresholds). Memory O(F·M') ints for the
 * choices that reconstruct the allocation.
 *
 * Fast paths (issue 32). When every variable item promises its shape (Item.concaveAfterFlat), sum
 * and min are first tried by Marginal (marginal gains on the concave hulls; the common-level search;
 * at sizes the DP cannot hold, per-class thresholds): exact where they answer (see its design
 * note), the DP here otherwise. maximiseSumByDp / maximiseMinByDp run the DP alone (the reference).
 *
 * Thread-safety: stateless; each call allocates its own tables.
 */

/** Exact DP over units for the sum and min objectives. See the design note above. */
public final class Optimizer {

    /** A flow as the optimiser sees it: bounds in units and a value table. */
    public interface Item {
        /** Class index (0-based) for the min objective. */
        int group();

        /** L_i, the fewest units. */
        int lower();

        /** H_i, the most units (≥ lower). */
        int upper();

        /** v_i(k) for lower ≤ k ≤ upper. */
        double value(int units);

        /** True when value(k) is the same for every k. */
        boolean isConstant();

        /**
         * A promise about the shape of value(k) on [lower, upper], by the model's mathematics (not by
         * looking at values): non-decreasing, and concave from the first k whose value exceeds
         * value(lower). When every variable item promises it, the fast exact paths ({@link Marginal})
         * answer; false (the default) keeps the DP.
         */
        default boolean concaveAfterFlat() {
            return false;
        }
    }

    /** Which algorithm gave a result. */
    public enum Path {
        /** sum by marginal gains on the flows' concave hulls ({@link Marginal}). */
        MARGINAL,
        /** min by the common-level search on the class hulls, then marginal gains ({@link Marginal}). */
        LEVEL,
        /**
         * min by per-class thresholds on true values (many classes reach the level inside a chord):
         * the minimum exact, the total the greedy's ({@link Marginal.Thresholds}).
         */
        THRESHOLDS,
        /** the dynamic programme (concave runs, threshold search or max-min merge). */
        DP;

        /** The name used in decisions and metrics: marginal, level, dp. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Units per flow, the objective they reach and the path that found them. */
    public record Result(int[] units, double objective, Path path) {
        public Result(int[] units, double objective) {
            this(units, objective, Path.DP);
        }
    }

    private static final double NEG = Double.NEGATIVE_INFINITY;

    private Optimizer() {
    }

    /** Maximises Σ v_i: the marginal-gain path when the items allow it and it proves its answer, else the DP. */
    public static Result maximiseSum(List<? extends Item> items, int totalUnits) {
        int[] units = new int[items.size()];
        int free = prepare(items, totalUnits, units);
        if (Marginal.applies(items)) {
            Result fast = Marginal.maximiseSum(items, totalUnits);
            if (fast != null) {
                return fast;
            }
        }
        return dynamicSum(items, units, free);
    }

    /** Maximises Σ v_i by the DP alone (the reference the fast path is measured and tested against). */
    public static Result maximiseSumByDp(List<? extends Item> items, int totalUnits) {
        int[] units = new int[items.size()];
        return dynamicSum(items, units, prepare(items, totalUnits, units));
    }

    private static Result dynamicSum(List<? extends Item> items, int[] units, int free) {
        List<Integer> active = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            if (!items.get(i).isConstant()) {
                active.add(i);
            }
        }
        if (active.isEmpty()) {
            absorbIntoLastConstant(items, units, free);
            return new Result(units, sum(items, units));
        }
        List<double[]> tables = new ArrayList<>();
        for (int i : active) {
            tables.add(table(items.get(i), free));
        }
        tables.add(slack(items, free));
        int[] extra = Chain.of(tables, free).take(free);
        for (int j = 0; j < active.size(); j++) {
            units[active.get(j)] += extra[j];
        }
        absorbIntoLastConstant(items, units, extra[active.size()]);
        return new Result(units, sum(items, units));
    }

    /**
     * Maximises min over groups of Σ_{i in group} v_i (then the total): the level path when the items
     * allow it and it proves its answer, else the DP.
     */
    public static Result maximiseMin(List<? extends Item> items, int totalUnits) {
        int[] units = new int[items.size()];
        int free = prepare(items, totalUnits, units);
        int groups = groups(items);
        if (Marginal.applies(items)) {
            Result fast = Marginal.maximiseMin(items, totalUnits, groups);
            if (fast != null) {
                return fast;
            }
        }
        return dynamicMin(items, units, free, groups);
    }

    /** Maximises the min objective by the DP alone (the reference the fast path is measured and tested against). */
    public static Result maximiseMinByDp(List<? extends Item> items, int totalUnits) {
        int[] units = new int[items.size()];
        int free = prepare(items, totalUnits, units);
        return dynamicMin(items, units, free, groups(items));
    }

    private static int groups(List<? extends Item> items) {
        int groups = 0;
        for (Item it : items) {
            groups = Math.max(groups, it.group() + 1);
        }
        return groups;
    }

    private static Result dynamicMin(List<? extends Item> items, int[] units, int free, int groups) {
        // Constant flows keep their lower bound; every other flow enters its class's chain.
        List<List<Integer>> members = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            members.add(new ArrayList<>());
        }
        for (int i = 0; i < items.size(); i++) {
            if (!items.get(i).isConstant()) {
                members.get(items.get(i).group()).add(i);
            }
        }
        List<Integer> variableGroups = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            if (!members.get(g).isEmpty()) {
                variableGroups.add(g);
            }
        }
        if (variableGroups.isEmpty()) {
            absorbIntoLastConstant(items, units, free);
            return new Result(units, min(items, units, groups));
        }
        double[] base = new double[groups];
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i).isConstant()) {
                base[items.get(i).group()] += items.get(i).value(units[i]);
            }
        }
        int classes = variableGroups.size();
        Chain[] chains = new Chain[classes];
        double[][] v = new double[classes][];
        boolean monotone = true;
        for (int j = 0; j < classes; j++) {
            int g = variableGroups.get(j);
            List<double[]> tables = new ArrayList<>();
            for (int i : members.get(g)) {
                tables.add(table(items.get(i), free));
            }
            if (j == 0) {
                // The constant flows' room rides with the first class: worth 0, it changes no total.
                tables.add(slack(items, free));
            }
            chains[j] = Chain.of(tables, free);
            v[j] = chains[j].best.clone();
            for (int n = 0; n <= free; n++) {
                if (v[j][n] != NEG) {
                    v[j][n] += base[g];
                }
                if (v[j][n] == NEG || Double.isNaN(v[j][n]) || (n > 0 && v[j][n] < v[j][n - 1])) {
                    monotone = false;
                }
            }
        }
        int[] budgets = monotone ? thresholdBudgets(v, free) : maxMinMergeBudgets(v, free);
        for (int j = 0; j < classes; j++) {
            int[] extra = chains[j].take(budgets[j]);
            List<Integer> m = members.get(variableGroups.get(j));
            for (int k = 0; k < m.size(); k++) {
                units[m.get(k)] += extra[k];
            }
            if (j == 0) {
                absorbIntoLastConstant(items, units, extra[m.size()]);
            }
        }
        return new Result(units, min(items, units, groups));
    }

    /**
     * Class budgets for non-decreasing class tables: the largest reachable minimum m*, each class
     * at least u_c(m*), the rest placed to maximise the total. Exact lexicographic optimum.
     */
    private static int[] thresholdBudgets(double[][] v, int free) {
        int classes = v.length;
        double best = NEG;
        for (double[] vc : v) {
            // Largest n whose value vc[n] is reachable as a minimum; reachability is monotone in the
            // value. min_c vc[0] is always reachable (need 0), so some class sets best.
            int lo = 0;
            int hi = free;
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (need(v, vc[mid]) <= free) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            if (need(v, vc[lo]) <= free) { // else not even vc[0] is reachable: another class binds
                best = Math.max(best, vc[lo]);
            }
        }
        int[] lower = new int[classes];
        int used = 0;
        for (int j = 0; j < classes; j++) {
            lower[j] = firstAtLeast(v[j], best);
            used += lower[j];
        }
        int left = free - used;
        List<double[]> rest = new ArrayList<>();
        for (int j = 0; j < classes; j++) {
            rest.add(Arrays.copyOfRange(v[j], lower[j], lower[j] + left + 1));
        }
        int[] extra = Chain.of(rest, left).take(left);
        for (int j = 0; j < classes; j++) {
            lower[j] += extra[j];
        }
        return lower;
    }

    /** Σ_c u_c(m): the units every class needs to reach m (Integer.MAX_VALUE when one cannot). */
    private static long need(double[][] v, double m) {
        long total = 0;
        for (double[] vc : v) {
            int u = firstAtLeast(vc, m);
            if (u == vc.length) {
                return Integer.MAX_VALUE;
            }
            total += u;
        }
        return total;
    }

    /** The first index n of the non-decreasing {@code vc} with vc[n] ≥ m, or vc.length. */
    private static int firstAtLeast(double[] vc, double m) {
        int lo = 0;
        int hi = vc.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (vc[mid] >= m) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** Class budgets by the general max-min merge, ties to the larger total. O(C·M'²). */
    private static int[] maxMinMergeBudgets(double[][] v, int free) {
        int classes = v.length;
        double[] hMin = v[0].clone();
        double[] hSum = v[0].clone();
        int[][] split = new int[classes][];
        for (int j = 1; j < classes; j++) {
            double[] vj = v[j];
            double[] nMin = new double[free + 1];
            double[] nSum = new double[free + 1];
            int[] choice = new int[free + 1];
            for (int n = 0; n <= free; n++) {
                double bestMin = NEG;
                double bestSum = NEG;
                int bestX = -1;
                for (int x = 0; x <= n; x++) {
                    if (vj[x] == NEG || hMin[n - x] == NEG) {
                        continue;
                    }
                    double m = Math.min(vj[x], hMin[n - x]);
                    double s = vj[x] + hSum[n - x];
                    if (m > bestMin || (m == bestMin && s > bestSum)) {
                        bestMin = m;
                        bestSum = s;
                        bestX = x;
                    }
                }
                nMin[n] = bestMin;
                nSum[n] = bestSum;
                choice[n] = bestX;
            }
            hMin = nMin;
            hSum = nSum;
            split[j] = choice;
        }
        if (hMin[free] == NEG) {
            throw new InfeasibleException("no allocation uses exactly " + free + " free units");
        }
        int[] budgets = new int[classes];
        int n = free;
        for (int j = classes - 1; j >= 0; j--) {
            budgets[j] = j == 0 ? n : split[j][n];
            n -= budgets[j];
        }
        return budgets;
    }

    /**
     * The constant flows' spare room as one table worth 0 everywhere: units placed there change
     * no value, so a variable flow is never forced to take units it would rather not (a
     * non-monotone utility) and units never go unplaced. Last in its chain, so it takes units
     * only when no variable flow gains from them.
     */
    private static double[] slack(List<? extends Item> items, int free) {
        long room = 0;
        for (Item it : items) {
            if (it.isConstant()) {
                room += it.upper() - it.lower();
            }
        }
        return new double[(int) Math.min(free, room) + 1];
    }

    /** v(lower + x) for x = 0..min(free, upper − lower). */
    private static double[] table(Item it, int free) {
        int range = Math.min(free, it.upper() - it.lower());
        double[] v = new double[range + 1];
        for (int x = 0; x <= range; x++) {
            v[x] = it.value(it.lower() + x);
        }
        return v;
    }

    /** Sets every flow to its lower bound; returns the units left to distribute (or throws). */
    static int prepare(List<? extends Item> items, int totalUnits, int[] units) {
        long lower = 0;
        for (int i = 0; i < items.size(); i++) {
            Item it = items.get(i);
            if (it.lower() < 0 || it.upper() < it.lower()) {
                throw new IllegalArgumentException("flow " + i + ": bounds [" + it.lower() + ", " + it.upper()
                        + "] (expected: 0 <= lower <= upper)");
            }
            units[i] = it.lower();
            lower += it.lower();
        }
        if (lower > totalUnits) {
            throw new InfeasibleException("the lower bounds need " + lower + " units but only " + totalUnits
                    + " exist (expected: minWeight, minShare and pins to fit in N)");
        }
        long room = 0;
        for (Item it : items) {
            room += it.upper() - it.lower();
        }
        if (lower + room < totalUnits) {
            throw new InfeasibleException("the upper bounds allow only " + (lower + room) + " of " + totalUnits
                    + " units (expected: pins to leave room for the rest of N)");
        }
        return (int) (totalUnits - lower);
    }

    /** Gives {@code free} units to the constant flows, the last in input order first. */
    private static void absorbIntoLastConstant(List<? extends Item> items, int[] units, int free) {
        for (int i = items.size() - 1; i >= 0 && free > 0; i--) {
            if (!items.get(i).isConstant()) {
                continue;
            }
            int room = items.get(i).upper() - units[i];
            int give = Math.min(room, free);
            units[i] += give;
            free -= give;
        }
    }

    /**
     * A chain of (max,+) convolutions: best[n] is the best total of the tables with exactly n
     * units (−∞ where impossible), choice[j][n] the units table j takes at running total n.
     */
    static final class Chain {
        final double[] best;
        final int[][] choice;

        private Chain(double[] best, int[][] choice) {
            this.best = best;
            this.choice = choice;
        }

        /** Convolves {@code tables} (table j: value at x = 0..len−1 extra units) up to {@code free}. */
        static Chain of(List<double[]> tables, int free) {
            double[] f = new double[free + 1];
            Arrays.fill(f, NEG);
            f[0] = 0;
            int reach = 0;
            int[][] choice = new int[tables.size()][];
            for (int j = 0; j < tables.size(); j++) {
                double[] v = tables.get(j);
                double[] g = new double[free + 1];
                Arrays.fill(g, NEG);
                int[] c = new int[free + 1];
                Arrays.fill(c, -1);
                convolve(f, reach, v, g, c);
                reach = (int) Math.min(free, (long) reach + v.length - 1);
                f = g;
                choice[j] = c;
            }
            return new Chain(f, choice);
        }

        /** Extra units per table that reach best[budget]. */
        int[] take(int budget) {
            if (best[budget] == NEG) {
                throw new InfeasibleException("no allocation uses exactly " + budget + " free units");
            }
            int[] out = new int[choice.length];
            int n = budget;
            for (int j = choice.length - 1; j >= 0; j--) {
                out[j] = choice[j][n];
                n -= out[j];
            }
            return out;
        }
    }

    /**
     * g[n] = max_x f[n − x] + v[x] over x in v's range, f finite on [0, reach]; c[n] = the best x
     * (the smallest among equals). g and c come filled with −∞ and −1.
     */
    static void convolve(double[] f, int reach, double[] v, double[] g, int[] c) {
        int free = g.length - 1;
        int range = v.length - 1;
        int outMax = (int) Math.min(free, (long) reach + range);
        List<int[]> pieces = concavePieces(v);
        double direct = (double) (outMax + 1) * (Math.min(range, reach) + 1);
        double log = 64 - Long.numberOfLeadingZeros(outMax + 1L);
        double divided = 0;
        for (int[] p : pieces) {
            divided += (Math.min(outMax, (long) reach + p[1]) - p[0] + 1 + p[1] - p[0] + 1) * log * 1.5;
        }
        if (pieces.isEmpty() || divided >= direct) {
            for (int n = 0; n <= outMax; n++) {
                double best = NEG;
                int bestX = -1;
                for (int x = Math.max(0, n - reach), maxX = Math.min(range, n); x <= maxX; x++) {
                    double s = f[n - x] + v[x];
                    if (s > best) {
                        best = s;
                        bestX = x;
                    }
                }
                g[n] = best;
                c[n] = bestX;
            }
            return;
        }
        for (int[] p : pieces) {
            int nHi = (int) Math.min(outMax, (long) reach + p[1]);
            if (p[0] <= nHi) {
                divide(f, reach, v, p[0], p[1], g, c, p[0], nHi, 0, reach);
            }
        }
    }

    /**
     * Outputs nLo..nHi of f ⊕ (v restricted to the concave run [a, b]), knowing the best
     * j = n − x lies in [jLo, jHi]; merged into g/c (larger value, then smaller x, wins).
     */
    private static void divide(double[] f, int reach, double[] v, int a, int b, double[] g, int[] c,
                               int nLo, int nHi, int jLo, int jHi) {
        while (nLo <= nHi) {
            int mid = (nLo + nHi) >>> 1;
            int from = Math.max(jLo, Math.max(0, mid - b));
            int to = Math.min(jHi, Math.min(reach, mid - a));
            double best = NEG;
            int bestJ = from;
            for (int j = from; j <= to; j++) {
                double s = f[j] + v[mid - j];
                if (s >= best) { // the largest j among equals: the smallest x
                    best = s;
                    bestJ = j;
                }
            }
            int x = mid - bestJ;
            if (best > g[mid] || (best == g[mid] && best != NEG && x < c[mid])) {
                g[mid] = best;
                c[mid] = x;
            }
            // Left half recursively (the smaller side first keeps the depth at log), right half by looping.
            if (mid - nLo < nHi - mid) {
                divide(f, reach, v, a, b, g, c, nLo, mid - 1, jLo, bestJ);
                nLo = mid + 1;
                jLo = bestJ;
            } else {
                divide(f, reach, v, a, b, g, c, mid + 1, nHi, bestJ, jHi);
                nHi = mid - 1;
                jHi = bestJ;
            }
        }
    }

    /**
     * Maximal runs [a, b] on which v is concave (differences non-increasing, as computed); empty
     * when v has a non-finite value (the direct loop handles those).
     */
    static List<int[]> concavePieces(double[] v) {
        List<int[]> pieces = new ArrayList<>();
        for (double d : v) {
            if (!Double.isFinite(d)) {
                return pieces;
            }
        }
        int a = 0;
        while (a < v.length) {
            int b = a;
            while (b + 1 < v.length && (b == a || v[b + 1] - v[b] <= v[b] - v[b - 1])) {
                b++;
            }
            pieces.add(new int[] {a, b});
            a = b + 1;
        }
        return pieces;
    }

    /** The sum objective (003 eq. 2a) of {@code units}: Σ value. */
    public static double sum(List<? extends Item> items, int[] units) {
        double s = 0;
        for (int i = 0; i < items.size(); i++) {
            s += items.get(i).value(units[i]);
        }
        return s;
    }

    /** The min objective (003 eq. 2b) of {@code units}: the smallest class total over {@code groups} classes. */
    public static double min(List<? extends Item> items, int[] units, int groups) {
        double[] totals = new double[groups];
        boolean[] present = new boolean[groups];
        for (int i = 0; i < items.size(); i++) {
            totals[items.get(i).group()] += items.get(i).value(units[i]);
            present[items.get(i).group()] = true;
        }
        double m = Double.POSITIVE_INFINITY;
        for (int g = 0; g < groups; g++) {
            if (present[g]) {
                m = Math.min(m, totals[g]);
            }
        }
        return m;
    }

    /** No allocation satisfies the constraints. */
    public static final class InfeasibleException extends RuntimeException {
        public InfeasibleException(String message) {
            super(message);
        }
    }
}
