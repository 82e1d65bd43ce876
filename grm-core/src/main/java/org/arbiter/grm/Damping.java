package org.arbiter.grm;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.override.PinSelection;
import org.arbiter.common.utility.UtilityFunction;

/*
 * Design note — changes smaller than the model's error (issue 19).
 *
 * The optimiser returns the exact optimum of this period's models, and the models carry an error:
 * each flow's prediction is off by a relative ē_c on average (the prediction error the GRM tracks,
 * PredictionErrors, per class). An allocation whose objective is within that error of the optimum is
 * as good as the optimum for all the model can tell, and moving to the optimum anyway makes the
 * weights follow the statistics' noise. So, after the solve:
 *
 *   δ = the objective's uncertainty at the optimum: per flow u_f = the larger of |U_c(t_f(1 ± ē_c))
 *       − U_c(t_f)| at its predicted t_f; for sum δ = Σ_f u_f, for min δ = Σ_g u_{g,c*} over the flows of
 *       the class c* that holds the minimum;
 *   1. an even split: the optimum's class totals, each split evenly over the class's unpinned
 *      flows (largest remainder, ties to the busier flow), if Ω(split) ≥ Ω(optimum) − δ: gateways are
 *      interchangeable unless the model tells them apart beyond its error. Where the utility is flat
 *      in the weight (003 §V-B phase A, light load) the DP's choice between splits hangs on noise, or on
 *      a 3:2 spread of 5 clients over two gateways that uses 3 and 2 slots of the 8 either way;
 *   2. else the optimum.
 *
 * Tried and dropped (issue 19): holding the allocation in force when it is within δ of the optimum.
 * With one gateway it held phase A's light-load allocation (premium 8-9 slots, which the flat utility
 * cannot tell from less) into phase D, whose premium weight then no longer came out the highest
 * (ExperimentsTest.phases_premiumWeightInB_aboveC_andHighestInD_everySeed). And a class total split in
 * proportion to the flows' clients: right after a phase change the window's client counts are skewed,
 * and it published 5 against 3 slots for 10 and 10 clients for several periods.
 *
 * With ē = 0 (nothing checked yet) δ = 0: the split is taken only when it is as good as the optimum. Pure and stateless.
 */

/** Picks the allocation to publish: the optimum, or its even split over the gateways when that is within the model's error (see the note). */
public final class Damping {

    private Damping() {
    }

    /** What was published. */
    public enum Choice { OPTIMUM, SPLIT }

    /**
     * The allocation chosen (the split valued without its N(g,s) partition, which the caller makes for the one it
     * keeps: GrmSolver.withCaps), why, and δ, the objective's uncertainty it was chosen within.
     */
    public record Chosen(Solution solution, Choice choice, double delta) {
    }

    /**
     * @param problem   this period's problem
     * @param optimum   its optimum ({@link GrmSolver#solve})
     * @param meanError per class, the model's mean absolute relative error ē_c (absent: 0)
     */
    public static Chosen choose(Problem problem, Solution optimum, Map<String, Double> meanError) {
        requireNonNull(problem, "problem");
        requireNonNull(optimum, "optimum");
        requireNonNull(meanError, "meanError");
        Solution best = GrmSolver.value(problem, optimum.weights()); // objective and predictions: no caps needed
        double delta = uncertainty(problem, best, meanError);
        Map<String, Map<String, Double>> split = split(problem, optimum.weights());
        if (feasible(problem, split) && !same(problem, split, optimum.weights())) {
            Solution s = GrmSolver.value(problem, split);
            if (s.objective() >= best.objective() - delta) {
                return new Chosen(s, Choice.SPLIT, delta); // without N(g,s): GrmSolver.withCaps partitions it
            }
        }
        return new Chosen(optimum, Choice.OPTIMUM, delta);
    }

    /** δ: the objective's uncertainty at {@code s} given the classes' mean relative errors. */
    static double uncertainty(Problem problem, Solution s, Map<String, Double> meanError) {
        Map<String, Double> perClass = new LinkedHashMap<>();
        Map<String, Double> totals = new LinkedHashMap<>();
        for (Problem.Flow f : problem.flows()) {
            Solution.Prediction pr = s.predicted().get(f.id());
            double e = Math.max(0, meanError.getOrDefault(f.cls(), 0.0));
            UtilityFunction u = problem.classNamed(f.cls()).utility();
            double t = pr.responseTime();
            double at = u.utility(t);
            double d = Math.max(Math.abs(u.utility(t * (1 + e)) - at), Math.abs(u.utility(Math.max(0, t * (1 - e))) - at));
            perClass.merge(f.cls(), Double.isFinite(d) ? d : 0, Double::sum);
            totals.merge(f.cls(), pr.utility(), Double::sum);
        }
        if (problem.parameters().combine() == Problem.Combine.SUM) {
            return perClass.values().stream().mapToDouble(Double::doubleValue).sum();
        }
        String worst = null;
        for (Map.Entry<String, Double> t : totals.entrySet()) {
            if (worst == null || t.getValue() < totals.get(worst)) {
                worst = t.getKey();
            }
        }
        return worst == null ? 0 : perClass.get(worst);
    }

    /**
     * Each class's total over its unpinned flows split over them evenly (largest remainder; ties to
     * the busier, then the earlier flow).
     */
    static Map<String, Map<String, Double>> split(Problem problem, Map<String, Map<String, Double>> weights) {
        int q = problem.parameters().granularity();
        Map<String, List<Problem.Flow>> byClass = new LinkedHashMap<>();
        for (Problem.Flow f : problem.flows()) {
            if (!problem.pins().containsKey(f.id())) {
                byClass.computeIfAbsent(f.cls(), c -> new ArrayList<>()).add(f);
            }
        }
        Map<String, Map<String, Double>> out = new LinkedHashMap<>();
        weights.forEach((g, w) -> out.put(g, new LinkedHashMap<>(w)));
        for (List<Problem.Flow> flows : byClass.values()) {
            if (flows.size() < 2) {
                continue;
            }
            long units = 0;
            for (Problem.Flow f : flows) {
                units += Math.round(weightOf(weights, f) * q);
            }
            long[] share = new long[flows.size()];
            double[] rest = new double[flows.size()];
            long given = 0;
            for (int i = 0; i < share.length; i++) {
                double exact = units / (double) share.length;
                share[i] = (long) Math.floor(exact);
                rest[i] = exact - share[i];
                given += share[i];
            }
            for (long left = units - given; left > 0; left--) {
                int pick = 0;
                for (int i = 1; i < rest.length; i++) {
                    if (rest[i] > rest[pick] + 1e-12 || (Math.abs(rest[i] - rest[pick]) <= 1e-12
                            && flows.get(i).arrivalRate() > flows.get(pick).arrivalRate())) {
                        pick = i;
                    }
                }
                share[pick]++;
                rest[pick] = -1;
            }
            for (int i = 0; i < share.length; i++) {
                Problem.Flow f = flows.get(i);
                out.computeIfAbsent(f.gateway(), g -> new LinkedHashMap<>()).put(f.cls(), share[i] / (double) q);
            }
        }
        return out;
    }

    private static double weightOf(Map<String, Map<String, Double>> weights, Problem.Flow f) {
        return weights.getOrDefault(f.gateway(), Map.of()).getOrDefault(f.cls(), 0.0);
    }

    private static boolean same(Problem problem, Map<String, Map<String, Double>> a, Map<String, Map<String, Double>> b) {
        for (Problem.Flow f : problem.flows()) {
            if (Math.abs(weightOf(a, f) - weightOf(b, f)) > 1e-9) {
                return false;
            }
        }
        return true;
    }

    /** Every flow on the grid, within its bounds, pins kept, Σ w = N; gateways and classes exactly the problem's. */
    static boolean feasible(Problem problem, Map<String, Map<String, Double>> weights) {
        int q = problem.parameters().granularity();
        int n = problem.totalConcurrency();
        int gateways = problem.gateways().size();
        long sum = 0;
        int count = 0;
        for (Problem.Flow f : problem.flows()) {
            Double w = weights.getOrDefault(f.gateway(), Map.of()).get(f.cls());
            if (w == null || !(w >= 0)) {
                return false;
            }
            double units = w * q;
            long u = Math.round(units);
            if (Math.abs(units - u) > 1e-6) {
                return false;
            }
            Double pin = problem.pins().get(f.id());
            if (pin != null) {
                if (u != PinSelection.pinUnits(pin, q)) {
                    return false;
                }
            } else if (u < PinSelection.lowerUnits(problem.parameters().minWeight(),
                    problem.classNamed(f.cls()).minShare(), n, gateways, q)) {
                return false;
            }
            sum += u;
            count++;
        }
        long entries = weights.values().stream().mapToLong(Map::size).sum();
        return sum == problem.totalUnits() && entries == count;
    }
}
