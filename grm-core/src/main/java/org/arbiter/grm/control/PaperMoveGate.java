package org.arbiter.grm.control;

import java.util.LinkedHashMap;
import java.util.Map;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.grm.GrmSolver;
import org.arbiter.grm.Problem;
import org.arbiter.grm.Solution;
import org.arbiter.common.utility.UtilityFunction;

/**
 * {@code grm.model: paper}: whether a proposed allocation's predicted gain over the weights in force is larger
 * than the noise of the measurement it was predicted from.
 *
 * <p>003 eq. 8-9 take a flow's measured mean response time t̃ as exact. It is the mean of the n requests the
 * statistics window completed, so it carries a standard error of about t̃ / √n (a response time about as
 * variable as an exponential one: standard deviation ≈ mean). Eq. 9 fed a window that came out high predicts a
 * gain from moving slots to that flow that is only the window's noise; on 003 §V-B's phase B that noise tips
 * the paper model from (6, 4) into (5, 5), a second fixed point it never leaves (docs/grm.md). The gate lets a
 * move through only when its predicted gain exceeds {@link #Z} standard errors of the objective measured under
 * the weights in force: Σ over the flows of the objective's class(es) of (U'(t̃) · t̃ / √n)² under the root —
 * the binding class for {@code min}, every flow for {@code sum}.
 *
 * <p>Pure: inputs only.
 */
final class PaperMoveGate {

    /** Standard errors a predicted gain must exceed: about a 2.5 % chance that noise alone passes. */
    static final double Z = 2;

    private PaperMoveGate() {
    }

    /**
     * Whether {@code proposed} may replace the weights in force ({@code problem}'s flows' weights): true when it
     * keeps them, when the weights in force do not fill the problem's N (a server came or went: nothing to stay
     * at), or when its gain exceeds {@link #Z} standard errors.
     */
    static boolean significant(Problem problem, Solution proposed, Map<String, GatewayStats> live) {
        Map<String, Map<String, Double>> inForce = new LinkedHashMap<>();
        double sum = 0;
        boolean same = true;
        for (Problem.Flow f : problem.flows()) {
            inForce.computeIfAbsent(f.gateway(), g -> new LinkedHashMap<>()).put(f.cls(), f.weight());
            sum += f.weight();
            double p = proposed.weights().getOrDefault(f.gateway(), Map.of()).getOrDefault(f.cls(), 0.0);
            same &= Math.abs(p - f.weight()) < 1e-9;
        }
        long n = problem.servers().stream().mapToLong(Problem.Server::concurrency).sum();
        if (same || Math.abs(sum - n) > 1e-9) {
            return true;
        }
        Solution stay = GrmSolver.value(problem, inForce);
        double gain = proposed.objective() - stay.objective();
        return gain > Z * standardError(problem, stay, live);
    }

    /** The standard error of {@code stay}'s objective, from each flow's window (see the class comment). */
    static double standardError(Problem problem, Solution stay, Map<String, GatewayStats> live) {
        Map<String, Double> classTotal = new LinkedHashMap<>();
        Map<String, Double> classVariance = new LinkedHashMap<>();
        for (Problem.Flow f : problem.flows()) {
            Solution.Prediction at = stay.predicted().get(f.id());
            GatewayStats g = live.get(f.gateway());
            GatewayStats.ClassStats cs = g == null ? null : g.classes().get(f.cls());
            classTotal.merge(f.cls(), at == null ? 0 : at.utility(), Double::sum);
            if (at == null || cs == null) {
                continue;
            }
            double completed = cs.throughput() * g.windowSeconds();
            double t = at.responseTime();
            if (!(completed >= 1) || !(t > 0) || !Double.isFinite(t)) {
                continue;
            }
            double slope = slope(problem.classNamed(f.cls()).utility(), t);
            double se = slope * t / Math.sqrt(completed);
            classVariance.merge(f.cls(), se * se, Double::sum);
        }
        if (problem.parameters().combine() == Problem.Combine.SUM) {
            return Math.sqrt(classVariance.values().stream().mapToDouble(Double::doubleValue).sum());
        }
        String binding = classTotal.entrySet().stream().min(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                .orElse(null);
        return binding == null ? 0 : Math.sqrt(classVariance.getOrDefault(binding, 0.0));
    }

    /** |U'(t)|, numerically (the utilities are piecewise smooth; a kink at the target gives the mean slope). */
    private static double slope(UtilityFunction u, double t) {
        double h = Math.max(1e-6, t * 1e-4);
        double s = Math.abs(u.utility(t + h) - u.utility(Math.max(0, t - h))) / (t + h - Math.max(0, t - h));
        return Double.isFinite(s) ? s : 0;
    }
}
