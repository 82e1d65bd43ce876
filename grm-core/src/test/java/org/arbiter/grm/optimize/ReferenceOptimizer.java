package org.arbiter.grm.optimize;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A test oracle for {@link Optimizer}, written from the problem's definition (003 §IV-A, eq. 2-3)
 * and sharing no code with it: no shift to the lower bounds, no concave runs, no special case for
 * constant flows, no threshold search.
 *
 * <p>Flow i gets k_i units, L_i ≤ k_i ≤ H_i, Σ k_i = M, and yields v_i(k_i). The objectives:
 * <ul>
 *   <li>sum: max Σ_i v_i(k_i). {@code best(i, m)}, the most flows i.. can yield with exactly m
 *       units, is max over k_i of v_i(k_i) + best(i + 1, m − k_i), and best(F, 0) = 0 (no flow
 *       left, no unit left): every allocation is one path through this recursion.</li>
 *   <li>min: max over allocations of min over the classes that have a flow of Σ_{i∈c} v_i(k_i).
 *       Given how many units x_c class c gets, its total is at most V_c(x_c), the sum recursion
 *       over its own flows, and reaches it; the minimum grows with each class's total, so the
 *       best minimum is max over splits (x_c) with Σ x_c = M of min_c V_c(x_c), which the same
 *       recursion over classes computes with min in place of +.</li>
 * </ul>
 * Memoised on (flow or class, units left): O(F·M²) time, fine for the instances the properties
 * draw. Only the objective is returned: ties between allocations are Optimizer's business.
 */
final class ReferenceOptimizer {

    private static final double NONE = Double.NEGATIVE_INFINITY;

    private ReferenceOptimizer() {
    }

    /** max Σ v_i(k_i) over the feasible allocations of exactly {@code totalUnits}. */
    static double maximiseSum(List<? extends Optimizer.Item> items, int totalUnits) {
        return feasible(new SumOverFlows(items).best(0, totalUnits), items, totalUnits);
    }

    /** max min over the classes with a flow of Σ_{i∈c} v_i(k_i), over the feasible allocations. */
    static double maximiseMin(List<? extends Optimizer.Item> items, int totalUnits) {
        List<SumOverFlows> classes = new ArrayList<>();
        for (int c = 0; c <= items.stream().mapToInt(Optimizer.Item::group).max().orElse(-1); c++) {
            int g = c;
            List<? extends Optimizer.Item> members = items.stream().filter(it -> it.group() == g).toList();
            if (!members.isEmpty()) {
                classes.add(new SumOverFlows(members));
            }
        }
        return feasible(new MinOverClasses(classes, totalUnits).best(0, totalUnits), items, totalUnits);
    }

    private static double feasible(double objective, List<? extends Optimizer.Item> items, int totalUnits) {
        if (objective == NONE) {
            throw new IllegalArgumentException("no allocation of exactly " + totalUnits + " units within the bounds of "
                    + items.size() + " flows");
        }
        return objective;
    }

    /** best(i, m): the most flows i.. yield with exactly m units (NONE if they cannot hold m). */
    private static final class SumOverFlows {
        private final List<? extends Optimizer.Item> flows;
        private final double[][] memo;

        SumOverFlows(List<? extends Optimizer.Item> flows) {
            this.flows = flows;
            int most = flows.stream().mapToInt(Optimizer.Item::upper).sum();
            this.memo = new double[flows.size() + 1][most + 1];
            for (double[] row : memo) {
                Arrays.fill(row, Double.NaN);
            }
        }

        double best(int i, int m) {
            if (m < 0 || m >= memo[i].length) {
                return NONE;
            }
            if (i == flows.size()) {
                return m == 0 ? 0 : NONE;
            }
            if (Double.isNaN(memo[i][m])) {
                Optimizer.Item flow = flows.get(i);
                double best = NONE;
                for (int k = flow.lower(); k <= Math.min(flow.upper(), m); k++) {
                    double rest = best(i + 1, m - k);
                    if (rest != NONE) {
                        best = Math.max(best, flow.value(k) + rest);
                    }
                }
                memo[i][m] = best;
            }
            return memo[i][m];
        }
    }

    /** best(j, m): the largest min over classes j.. of their best totals, splitting exactly m units. */
    private static final class MinOverClasses {
        private final List<SumOverFlows> classes;
        private final double[][] memo;

        MinOverClasses(List<SumOverFlows> classes, int totalUnits) {
            this.classes = classes;
            this.memo = new double[classes.size() + 1][totalUnits + 1];
            for (double[] row : memo) {
                Arrays.fill(row, Double.NaN);
            }
        }

        double best(int j, int m) {
            if (j == classes.size()) {
                return m == 0 ? Double.POSITIVE_INFINITY : NONE; // the minimum over no class
            }
            if (Double.isNaN(memo[j][m])) {
                double best = NONE;
                for (int x = 0; x <= m; x++) {
                    double mine = classes.get(j).best(0, x);
                    double rest = best(j + 1, m - x);
                    if (mine != NONE && rest != NONE) {
                        best = Math.max(best, Math.min(mine, rest));
                    }
                }
                memo[j][m] = best;
            }
            return memo[j][m];
        }
    }
}
