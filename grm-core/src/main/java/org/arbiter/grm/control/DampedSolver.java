package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.function.LongSupplier;
import org.arbiter.grm.Damping;
import org.arbiter.grm.GrmSolver;
import org.arbiter.grm.Problem;
import org.arbiter.grm.ProblemException;
import org.arbiter.grm.Solution;

/*
 * Design note — stage 3 of the GRM step: the solver.
 *
 * What it computes: the optimal weights w(g,c) of the period's problem, maximising the sum or the
 * minimum of the classes' utilities (003 eq. 2a/2b) subject to Σ w = N = Σ_s N_s (eq. 3-4), by
 * GrmSolver's exact dynamic programme, with N(g,s) partitioned from them (eq. 5-6); then Damping:
 * a class is split evenly over the gateways instead when the optimum's gain over that split is
 * within the model's error ē_c (PredictionTracker's moving mean of |t_pred − t_measured| / t_measured).
 * The solve time (optimum and damping) is measured on the ticker it is given: System::nanoTime in
 * the service, a fake in the simulator and the tests.
 *
 * Output: Solved — the solution to publish, what Damping chose and the solve time — or
 * ProblemException when no allocation satisfies the constraints.
 *
 * Not thread-safe only through its ticker; otherwise stateless.
 */

/** Stage 3 of {@link GrmStep}: the optimum, damped by the model's error; see the design note. */
final class DampedSolver {

    /**
     * A solved period.
     *
     * @param solution     what is published: the optimum or its even split ({@code chosen.solution()})
     * @param chosen       Damping's choice
     * @param solveSeconds time spent solving and damping, on the ticker
     */
    record Solved(Solution solution, Damping.Chosen chosen, double solveSeconds) {
        Solved {
            requireNonNull(solution, "solution");
            requireNonNull(chosen, "chosen");
        }
    }

    private final LongSupplier nanoTicker;

    /** @param nanoTicker measures solve time ({@code System::nanoTime} live, a fake in tests) */
    DampedSolver(LongSupplier nanoTicker) {
        this.nanoTicker = requireNonNull(nanoTicker, "nanoTicker");
    }

    /**
     * @param problem    the period's problem
     * @param meanErrors per class, ē_c (the prior until the class's predictions have been checked)
     * @throws ProblemException when the problem is infeasible
     */
    Solved solve(Problem problem, Map<String, Double> meanErrors) {
        long started = nanoTicker.getAsLong();
        // partitioned once, the solution kept: the damping often keeps the even split instead of the optimum
        Solution optimum = GrmSolver.solveWithoutCaps(problem);
        Damping.Chosen chosen = Damping.choose(problem, optimum, meanErrors);
        Solution kept = GrmSolver.withCaps(problem, chosen.solution());
        double solveSeconds = (nanoTicker.getAsLong() - started) / 1e9;
        // the even split is valued, not optimised: the decision names the path that found the optimum
        return new Solved(kept.withPath(optimum.path()), new Damping.Chosen(kept, chosen.choice(), chosen.delta()),
                solveSeconds);
    }
}
