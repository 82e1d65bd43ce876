package org.arbiter.grm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
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
            assertThat(w).isGreaterThanOrEqualTo(problem.parameters().minWeight() - 1e-9);
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
        List<Problem.Server> more = new ArrayList<>(problem.servers());
        more.add(new Problem.Server("extra", 1));
        Problem bigger = new Problem(more, problem.classes(), problem.flows(), problem.parameters(), problem.pins());
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
                // eq. 9; with 001's feedback the predicted load carries the backlog above Little's level.
                double lambda = f.arrivalRate();
                if (problem.parameters().prediction() == Problem.Prediction.QUEUE_LENGTH) {
                    lambda += problem.parameters().gain()
                            * Math.max(0, f.queueLength() - f.arrivalRate() * f.responseTime())
                            / problem.parameters().controlPeriodSeconds();
                }
                double denom = 1 / f.responseTime() + f.arrivalRate() / f.weight() - lambda / w;
                expected = denom <= 0 ? cap : Math.min(1 / denom, cap);
            }
            Solution.Prediction pr = s.predicted().get(f.id());
            assertThat(pr.responseTime()).isCloseTo(expected, within(1e-9));
            double tau = c.targetSeconds();
            double u = expected <= tau ? (tau - expected) : -(expected - tau);
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
                cs.add(new Problem.ClassSpec("c" + i, tau, UtilityFunction.pacifici(tau, 1, 1, 1), 0, 10));
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
            List<Problem.Server> servers = List.of(new Problem.Server("s1", n2));
            Problem.Prediction pred = rnd.nextBoolean() ? Problem.Prediction.MM1 : Problem.Prediction.QUEUE_LENGTH;
            return new Problem(servers, cs, fs, new Problem.Parameters(comb, qq, 1, pred, 5, 1), Map.of());
        });
    }

    /** Enumerates every allocation of the units. */
    static double bruteForce(Problem p) {
        int q = p.parameters().granularity();
        int units = p.totalConcurrency() * q;
        int lower = (int) Math.ceil(p.parameters().minWeight() * q);
        double[] best = {Double.NEGATIVE_INFINITY};
        enumerate(p, new int[p.flows().size()], 0, units, lower, best);
        return best[0];
    }

    private static void enumerate(Problem p, int[] k, int i, int left, int lower, double[] best) {
        if (i == k.length - 1) {
            if (left < lower) {
                return;
            }
            k[i] = left;
            best[0] = Math.max(best[0], objective(p, k));
            return;
        }
        for (int x = lower; x <= left - lower * (k.length - 1 - i); x++) {
            k[i] = x;
            enumerate(p, k, i + 1, left - x, lower, best);
        }
    }

    static double objective(Problem p, int[] units) {
        Map<String, Double> byClass = new HashMap<>();
        double sum = 0;
        for (int i = 0; i < units.length; i++) {
            Problem.Flow f = p.flows().get(i);
            Problem.ClassSpec c = p.classNamed(f.cls());
            double u = c.utility().utility(GrmSolver.model(f, c, p.parameters()).predict(units[i] / (double) p.parameters().granularity()));
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
