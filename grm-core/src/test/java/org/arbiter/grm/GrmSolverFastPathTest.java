package org.arbiter.grm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.arbiter.common.utility.UtilityFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The GRM core's fast exact paths on whole problems of the shapes the GRM solves (003 eq. 7,
 * α = β = 1, open-loop eq. 9 and the slot model), against the DP on the same problem: the same
 * objective, and the fast path is the one that answered wherever the cluster can make every flow
 * stable, and in overload but for a branch budget spent (see the assertion).
 */
final class GrmSolverFastPathTest {

    @ParameterizedTest(name = "{0} flows, N = {1}, load {2}, slots {3}")
    @CsvSource({
        "40, 400, 0.6, false", "40, 400, 0.85, true", "100, 1000, 0.7, false", "100, 1000, 0.9, true",
        "200, 2000, 0.6, true", "60, 300, 1.3, false", "60, 300, 1.5, true"})
    void theFastPath_equalsTheDp_overSeeds(int flows, int n, double load, boolean slots) {
        int fastSum = 0;
        int fastMin = 0;
        for (long seed = 1; seed <= 5; seed++) {
            for (Problem.Combine combine : Problem.Combine.values()) {
                Problem p = problem(flows, n, load, slots, combine, seed);
                Solution quick = GrmSolver.solve(p);
                Solution dp = GrmSolver.solveByDp(p);
                assertThat(quick.objective()).as("seed %d %s", seed, combine)
                        .isCloseTo(dp.objective(), within(1e-9 * (1 + Math.abs(dp.objective()))));
                assertThat(dp.path()).isEqualTo("dp");
                if (!quick.path().equals("dp")) {
                    assertThat(quick.path()).isEqualTo(combine == Problem.Combine.SUM ? "marginal" : "level");
                    fastSum += combine == Problem.Combine.SUM ? 1 : 0;
                    fastMin += combine == Problem.Combine.MIN ? 1 : 0;
                }
            }
        }
        // below saturation every seed is answered fast; in overload a part-taken chord is branched on,
        // and only a branch budget spent leaves it to the DP (docs/grm.md)
        assertThat(fastSum).as("sum answered by marginal gains, of 5 seeds").isEqualTo(5);
        assertThat(fastMin).as("min answered by the level search, of 5 seeds").isGreaterThanOrEqualTo(load < 1 ? 5 : 4);
    }

    /** 10 gateways × flows/10 classes, targets 1-4 s, rates around {@code load} of the slots' capacity. */
    static Problem problem(int flows, int n, double load, boolean slots, Problem.Combine combine, long seed) {
        Random rnd = new Random(seed);
        int gateways = Math.min(10, flows);
        int classes = (flows + gateways - 1) / gateways;
        List<Problem.ClassSpec> cs = new ArrayList<>();
        for (int c = 0; c < classes; c++) {
            double tau = 1 + rnd.nextInt(4);
            cs.add(new Problem.ClassSpec("c" + c, tau, UtilityFunction.pacifici(tau, 1, 1, 1), 0, 10));
        }
        List<Problem.Flow> fs = new ArrayList<>();
        double w = (double) n / flows;
        for (int i = 0; i < flows; i++) {
            double s = 0.2 + rnd.nextDouble();
            double lambda = load * w / s * (0.5 + rnd.nextDouble());
            double t = slots ? s * (1 + rnd.nextDouble()) : 0.5 + 3 * rnd.nextDouble();
            fs.add(new Problem.Flow("g" + (i % gateways), "c" + (i / gateways), lambda, t, w, 0,
                    slots ? Math.min(w, lambda * s) : 0, slots ? s : 0));
        }
        List<Problem.Server> servers = new ArrayList<>();
        for (int s = 0; s < n / 10; s++) {
            servers.add(new Problem.Server("s" + s, 10));
        }
        return new Problem(servers, cs, fs, new Problem.Parameters(combine, 1, 1, Problem.Prediction.MM1, 5, 1), Map.of());
    }
}
