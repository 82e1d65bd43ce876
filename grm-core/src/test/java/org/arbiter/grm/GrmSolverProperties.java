package org.arbiter.grm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Assume;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.arbiter.common.utility.UtilityFunction;

/** The optimiser against brute-force enumeration, and the constraints of every allocation. */
final class GrmSolverProperties {

    @Property(tries = 250, edgeCases = EdgeCasesMode.NONE)
    void objective_equalsBruteForce_onSmallInstances(@ForAll("instances") Problem problem) {
        Solution s = GrmSolver.solve(problem);
        double brute = bruteForce(problem);
        assertThat(s.objective()).isCloseTo(brute, within(1e-9));
        assertThat(recompute(problem, s)).isCloseTo(s.objective(), within(1e-9));
    }

    @Property(tries = 250, edgeCases = EdgeCasesMode.NONE)
    void everyAllocation_satisfiesTheConstraints(@ForAll("instances") Problem problem) {
        Solution s = GrmSolver.solve(problem);
        int q = problem.parameters().granularity();
        double total = 0;
        for (Problem.Flow f : problem.flows()) {
            double w = s.weights().get(f.gateway()).get(f.cls());
            Double pin = problem.pins().get(f.id());
            if (pin != null) {
                assertThat(w).isEqualTo(pin);
            } else {
                assertThat(w).isGreaterThanOrEqualTo(problem.parameters().minWeight() - 1e-9);
                double share = problem.classNamed(f.cls()).minShare() * problem.totalConcurrency()
                        / problem.gateways().size();
                assertThat(w).isGreaterThanOrEqualTo(share - 1e-9);
            }
            assertThat(w * q).isCloseTo(Math.rint(w * q), within(1e-9));
            total += w;
        }
        assertThat(total).isCloseTo(problem.totalConcurrency(), within(1e-9));
        for (Problem.Server srv : problem.servers()) {
            int sum = s.serverCaps().values().stream().mapToInt(m -> m.get(srv.id())).sum();
            assertThat(sum).isEqualTo(srv.concurrency());
        }
    }

    @Property(tries = 150, edgeCases = EdgeCasesMode.NONE)
    void moreConcurrency_neverLowersTheObjective(@ForAll("instances") Problem problem) {
        // Only without minShare: a larger N raises minShare · N / |G| and may force units to move.
        Assume.that(problem.classes().stream().allMatch(c -> c.minShare() == 0));
        List<Problem.Server> more = new ArrayList<>(problem.servers());
        more.add(new Problem.Server("extra", 1));
        Problem bigger = new Problem(more, problem.classes(), problem.flows(), problem.parameters(), problem.pins(), problem.deltaMu());
        assertThat(GrmSolver.solve(bigger).objective()).isGreaterThanOrEqualTo(GrmSolver.solve(problem).objective() - 1e-9);
    }

    @Property(tries = 250, edgeCases = EdgeCasesMode.NONE)
    void predictions_agreeWithEquations7And9(@ForAll("instances") Problem problem) {
        Solution s = GrmSolver.solve(problem);
        for (Problem.Flow f : problem.flows()) {
            Problem.ClassSpec c = problem.classNamed(f.cls());
            double w = s.weights().get(f.gateway()).get(f.cls());
            double cap = c.responseTimeCap() * c.targetSeconds();
            double expected;
            if (f.arrivalRate() == 0 || f.responseTime() == 0) {
                expected = Math.min(f.responseTime(), cap);
            } else {
                // 003 eq. 9; with 001's feedback the predicted load carries the backlog above Little's level.
                double lambda = f.arrivalRate();
                if (problem.parameters().prediction() == Problem.Prediction.QUEUE_LENGTH) {
                    lambda += problem.parameters().gain()
                            * Math.max(0, f.queueLength() - f.arrivalRate() * f.responseTime())
                            / problem.parameters().controlPeriodSeconds();
                } else if (problem.parameters().prediction() == Problem.Prediction.LIU) {
                    // 001 Step 3 written out: μ = 1/τ + λ̃ + (k/τ)(ℓ − λ̃τ) + Δμ; eq. 9 carries μ − 1/τ, at least 0
                    double tau = c.targetSeconds();
                    double k = problem.parameters().liuK();
                    double dm = problem.deltaMu().getOrDefault(f.id(), 0.0);
                    lambda = Math.max(0, f.arrivalRate() + k / tau * (f.queueLength() - f.arrivalRate() * tau) + dm);
                }
                double denom = 1 / f.responseTime() + f.arrivalRate() / f.weight() - lambda / w;
                expected = denom <= 0 ? cap : Math.min(1 / denom, cap);
            }
            Solution.Prediction pr = s.predicted().get(f.id());
            assertThat(pr.responseTime()).isCloseTo(expected, within(1e-9));
            double tau = c.targetSeconds();
            double u = c.utility() instanceof UtilityFunction.Pacifici
                    ? (expected <= tau ? (tau - expected) : -(expected - tau)) // 003 eq. 7, φ = α = β = 1
                    : c.utility().utility(expected);
            assertThat(pr.utility()).isCloseTo(u, within(1e-9));
        }
    }

    @Provide
    Arbitrary<Problem> instances() {
        Arbitrary<Integer> gateways = Arbitraries.integers().between(1, 2);
        Arbitrary<Integer> classes = Arbitraries.integers().between(1, 3);
        Arbitrary<Integer> q = Arbitraries.integers().between(1, 2);
        Arbitrary<Problem.Combine> combine = Arbitraries.of(Problem.Combine.class);
        Arbitrary<Integer> ns = Arbitraries.integers().between(2, 8);
        Arbitrary<Long> seed = Arbitraries.longs();
        return Combinators.combine(gateways, classes, q, combine, ns, seed).as((g, c, qq, comb, n, sd) -> {
            java.util.Random rnd = new java.util.Random(sd);
            List<Problem.ClassSpec> cs = new ArrayList<>();
            for (int i = 0; i < c; i++) {
                double tau = 0.5 + rnd.nextInt(6) * 0.5;
                // Mostly 003 eq. 7; sometimes one of 002's yield shapes (steps: ties and flat runs).
                UtilityFunction u = rnd.nextInt(4) > 0 ? UtilityFunction.pacifici(tau, 1, 1, 1)
                        : UtilityFunction.yield(List.of("throughput", "response-time", "hybrid").get(rnd.nextInt(3)),
                                1 + rnd.nextInt(4), rnd.nextInt(3), tau, tau / 2);
                double minShare = rnd.nextInt(4) == 0 ? 0.1 * rnd.nextInt(4) : 0;
                cs.add(new Problem.ClassSpec("c" + i, tau, u, minShare, 10));
            }
            List<Problem.Flow> fs = new ArrayList<>();
            for (int gi = 0; gi < g; gi++) {
                for (int ci = 0; ci < c; ci++) {
                    if (fs.size() >= 4 || (fs.size() > 0 && rnd.nextInt(5) == 0)) {
                        continue;
                    }
                    // Some flows idle, some overloaded (unstable at small w), some comfortable.
                    double lambda = rnd.nextInt(6) == 0 ? 0 : 0.5 + rnd.nextDouble() * 12;
                    double t = 0.2 + rnd.nextDouble() * 6;
                    double w = 1 + rnd.nextInt(5);
                    fs.add(new Problem.Flow("g" + gi, "c" + ci, lambda, t, w, rnd.nextInt(5)));
                }
            }
            int n2 = Math.max(n, fs.size());
            Problem.Prediction pred = Problem.Prediction.values()[rnd.nextInt(Problem.Prediction.values().length)];
            Map<Problem.FlowId, Double> deltaMu = new HashMap<>();
            if (pred == Problem.Prediction.LIU) {
                fs.forEach(f -> deltaMu.put(f.id(), rnd.nextDouble() * 2 - 1));
            }
            Map<Problem.FlowId, Double> pins = new HashMap<>();
            if (fs.size() > 1 && rnd.nextInt(4) == 0) {
                pins.put(fs.get(rnd.nextInt(fs.size())).id(), 1 + rnd.nextInt(2) / (double) qq);
            }
            Problem.Parameters params = new Problem.Parameters(comb, qq, 1, pred, 5, 1, 0.5 + rnd.nextDouble());
            // Keep the instance feasible (infeasible bounds have their own test): the smallest N ≥ n2
            // that holds its own lower bounds (they grow with N through minShare, Σ minShare < 1).
            int n3 = n2;
            while (true) {
                int lowerSum = 0;
                for (Problem.Flow f : fs) {
                    lowerSum += lowerUnits(f, cs.get(Integer.parseInt(f.cls().substring(1))), pins, params, n3,
                            (int) fs.stream().map(Problem.Flow::gateway).distinct().count());
                }
                if (lowerSum <= n3 * qq) {
                    break;
                }
                n3++;
            }
            return new Problem(List.of(new Problem.Server("s1", n3)), cs, fs, params, pins, deltaMu);
        });
    }

    /**
     * The fewest units of a flow: its pin, else max(minWeight, minShare · N / |G|), in units of
     * 1/q rounded up (the rules, restated here rather than taken from GrmSolver).
     */
    static int lowerUnits(Problem.Flow f, Problem.ClassSpec c, Map<Problem.FlowId, Double> pins,
                          Problem.Parameters p, int n, int gateways) {
        int q = p.granularity();
        Double pin = pins.get(f.id());
        if (pin != null) {
            return (int) Math.round(pin * q);
        }
        return (int) Math.ceil(Math.max(p.minWeight(), c.minShare() * n / gateways) * q - 1e-9);
    }

    /** Enumerates every allocation of the units within every flow's bounds. */
    static double bruteForce(Problem p) {
        int q = p.parameters().granularity();
        int units = p.totalConcurrency() * q;
        int[] lower = new int[p.flows().size()];
        int[] upper = new int[lower.length];
        for (int i = 0; i < lower.length; i++) {
            Problem.Flow f = p.flows().get(i);
            lower[i] = lowerUnits(f, p.classNamed(f.cls()), p.pins(), p.parameters(), p.totalConcurrency(),
                    p.gateways().size());
            upper[i] = p.pins().containsKey(f.id()) ? lower[i] : units;
        }
        double[] best = {Double.NEGATIVE_INFINITY};
        enumerate(p, new int[lower.length], 0, units, lower, upper, best);
        return best[0];
    }

    private static void enumerate(Problem p, int[] k, int i, int left, int[] lower, int[] upper, double[] best) {
        if (i == k.length) {
            if (left == 0) {
                best[0] = Math.max(best[0], objective(p, k));
            }
            return;
        }
        for (int x = lower[i]; x <= Math.min(upper[i], left); x++) {
            k[i] = x;
            enumerate(p, k, i + 1, left - x, lower, upper, best);
        }
    }

    static double objective(Problem p, int[] units) {
        Map<String, Double> byClass = new HashMap<>();
        double sum = 0;
        for (int i = 0; i < units.length; i++) {
            Problem.Flow f = p.flows().get(i);
            Problem.ClassSpec c = p.classNamed(f.cls());
            double u = c.utility().utility(GrmSolver.model(p, f).predict(units[i] / (double) p.parameters().granularity()));
            sum += u;
            byClass.merge(f.cls(), u, Double::sum);
        }
        return p.parameters().combine() == Problem.Combine.SUM ? sum
                : byClass.values().stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    }

    static double recompute(Problem p, Solution s) {
        int[] units = new int[p.flows().size()];
        for (int i = 0; i < units.length; i++) {
            Problem.Flow f = p.flows().get(i);
            units[i] = (int) Math.round(s.weights().get(f.gateway()).get(f.cls()) * p.parameters().granularity());
        }
        return objective(p, units);
    }
}
