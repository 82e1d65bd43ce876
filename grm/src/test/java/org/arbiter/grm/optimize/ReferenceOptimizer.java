package org.arbiter.grm.optimize;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The first optimiser, kept as a test oracle: the plain O(F·M'²) knapsack for sum and the plain
 * max-min merge for min, with no structure exploited. {@link Optimizer} must reach the same
 * objective on every instance.
 */
final class ReferenceOptimizer {

    private static final double NEG = Double.NEGATIVE_INFINITY;

    private ReferenceOptimizer() {
    }

    /** Maximises Σ v_i. */
    static Optimizer.Result maximiseSum(List<? extends Optimizer.Item> items, int totalUnits) {
        int[] units = new int[items.size()];
        int free = prepare(items, totalUnits, units);
        List<Integer> active = activeIndices(items, units, free);
        if (active.isEmpty()) {
            return new Optimizer.Result(units, sum(items, units));
        }
        int[] extra = knapsack(items, active, free).take(free);
        for (int j = 0; j < active.size(); j++) {
            units[active.get(j)] += extra[j];
        }
        return new Optimizer.Result(units, sum(items, units));
    }

    /** Maximises min over groups of Σ_{i in group} v_i. */
    static Optimizer.Result maximiseMin(List<? extends Optimizer.Item> items, int totalUnits) {
        int[] units = new int[items.size()];
        int free = prepare(items, totalUnits, units);
        int groups = 0;
        for (Optimizer.Item it : items) {
            groups = Math.max(groups, it.group() + 1);
        }
        // Constant flows keep their lower bound; every other flow enters its class's table.
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
            return new Optimizer.Result(units, min(items, units, groups));
        }
        // The constant part of each group's total.
        double[] base = new double[groups];
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i).isConstant()) {
                base[items.get(i).group()] += items.get(i).value(units[i]);
            }
        }
        Table[] classTables = new Table[variableGroups.size()];
        for (int j = 0; j < variableGroups.size(); j++) {
            int g = variableGroups.get(j);
            classTables[j] = knapsack(items, members.get(g), free).plus(base[g]);
        }
        // Merge by max-min, tie-break on the larger total.
        double[] hMin = classTables[0].best.clone();
        double[] hSum = classTables[0].best.clone();
        int[][] split = new int[variableGroups.size()][];
        for (int j = 1; j < variableGroups.size(); j++) {
            double[] v = classTables[j].best;
            double[] nMin = new double[free + 1];
            double[] nSum = new double[free + 1];
            int[] choice = new int[free + 1];
            for (int n = 0; n <= free; n++) {
                double bestMin = NEG;
                double bestSum = NEG;
                int bestX = -1;
                for (int x = 0; x <= n; x++) {
                    if (v[x] == NEG || hMin[n - x] == NEG) {
                        continue;
                    }
                    double m = Math.min(v[x], hMin[n - x]);
                    double s = v[x] + hSum[n - x];
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
        // Walk back: units per class, then per flow within the class.
        int n = free;
        for (int j = variableGroups.size() - 1; j >= 0; j--) {
            int x = j == 0 ? n : split[j][n];
            int[] extra = classTables[j].take(x);
            List<Integer> m = members.get(variableGroups.get(j));
            for (int k = 0; k < m.size(); k++) {
                units[m.get(k)] += extra[k];
            }
            n -= x;
        }
        return new Optimizer.Result(units, min(items, units, groups));
    }

    /** Sets every flow to its lower bound; returns the units left to distribute (or throws). */
    private static int prepare(List<? extends Optimizer.Item> items, int totalUnits, int[] units) {
        long lower = 0;
        for (int i = 0; i < items.size(); i++) {
            Optimizer.Item it = items.get(i);
            if (it.lower() < 0 || it.upper() < it.lower()) {
                throw new IllegalArgumentException("flow " + i + ": bounds [" + it.lower() + ", " + it.upper()
                        + "] (expected: 0 <= lower <= upper)");
            }
            units[i] = it.lower();
            lower += it.lower();
        }
        if (lower > totalUnits) {
            throw new Optimizer.InfeasibleException("the lower bounds need " + lower + " units but only " + totalUnits
                    + " exist (expected: minWeight, minShare and pins to fit in N)");
        }
        long room = 0;
        for (Optimizer.Item it : items) {
            room += it.upper() - it.lower();
        }
        if (lower + room < totalUnits) {
            throw new Optimizer.InfeasibleException("the upper bounds allow only " + (lower + room) + " of " + totalUnits
                    + " units (expected: pins to leave room for the rest of N)");
        }
        return (int) (totalUnits - lower);
    }

    /** Non-constant flows; if there are none, constant ones absorb the free units. */
    private static List<Integer> activeIndices(List<? extends Optimizer.Item> items, int[] units, int free) {
        List<Integer> active = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            if (!items.get(i).isConstant()) {
                active.add(i);
            }
        }
        if (active.isEmpty()) {
            absorbIntoLastConstant(items, units, free);
        }
        return active;
    }

    private static void absorbIntoLastConstant(List<? extends Optimizer.Item> items, int[] units, int free) {
        for (int i = items.size() - 1; i >= 0 && free > 0; i--) {
            int room = items.get(i).upper() - units[i];
            int give = Math.min(room, free);
            units[i] += give;
            free -= give;
        }
    }

    /** Sum-knapsack over {@code members} with 0..free extra units each. */
    private static Table knapsack(List<? extends Optimizer.Item> items, List<Integer> members, int free) {
        double[] f = new double[free + 1];
        Arrays.fill(f, NEG);
        f[0] = 0;
        int[][] choice = new int[members.size()][];
        for (int j = 0; j < members.size(); j++) {
            Optimizer.Item it = items.get(members.get(j));
            int range = Math.min(free, it.upper() - it.lower());
            double[] v = new double[range + 1];
            for (int x = 0; x <= range; x++) {
                v[x] = it.value(it.lower() + x);
            }
            double[] g = new double[free + 1];
            int[] c = new int[free + 1];
            for (int n = 0; n <= free; n++) {
                double best = NEG;
                int bestX = -1;
                int maxX = Math.min(range, n);
                for (int x = 0; x <= maxX; x++) {
                    double prev = f[n - x];
                    if (prev == NEG) {
                        continue;
                    }
                    double s = prev + v[x];
                    if (s > best) {
                        best = s;
                        bestX = x;
                    }
                }
                g[n] = best;
                c[n] = bestX;
            }
            f = g;
            choice[j] = c;
        }
        return new Table(f, choice);
    }

    /** A knapsack's best values per budget and the choices to reconstruct them. */
    private static final class Table {
        final double[] best;
        final int[][] choice;

        Table(double[] best, int[][] choice) {
            this.best = best;
            this.choice = choice;
        }

        Table plus(double constant) {
            double[] b = best.clone();
            for (int i = 0; i < b.length; i++) {
                if (b[i] != NEG) {
                    b[i] += constant;
                }
            }
            return new Table(b, choice);
        }

        /** Extra units per member that reach best[budget]. */
        int[] take(int budget) {
            if (best[budget] == NEG) {
                throw new Optimizer.InfeasibleException("no allocation uses exactly " + budget + " free units");
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

    private static double sum(List<? extends Optimizer.Item> items, int[] units) {
        double s = 0;
        for (int i = 0; i < items.size(); i++) {
            s += items.get(i).value(units[i]);
        }
        return s;
    }

    private static double min(List<? extends Optimizer.Item> items, int[] units, int groups) {
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
}
