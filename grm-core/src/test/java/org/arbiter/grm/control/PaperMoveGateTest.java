package org.arbiter.grm.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.utility.UtilityFunction;
import org.arbiter.grm.GrmSolver;
import org.arbiter.grm.Problem;
import org.arbiter.grm.Solution;
import org.junit.jupiter.api.Test;

/**
 * {@code grm.model: paper}'s move gate: a proposal passes only when its predicted gain exceeds two standard
 * errors of the objective measured under the weights in force, each flow's t̃ carrying t̃ / √n.
 */
final class PaperMoveGateTest {

    /**
     * A phase-B-like window at (6, 4) (absolute scale, min): basic measured late (4.4 s, U −1.4, the binding
     * class), premium just past its target (2.2 s); at the λ held, eq. 9 predicts a gain from giving basic slots.
     */
    private static Problem phaseB(double premiumWeight, double basicWeight) {
        return new Problem(List.of(new Problem.Server("s1", 10)),
                List.of(new Problem.ClassSpec("premium", 2, UtilityFunction.pacifici(2, 1, 1, 1), 0, 10),
                        new Problem.ClassSpec("basic", 3, UtilityFunction.pacifici(3, 1, 1, 1), 0, 10)),
                List.of(new Problem.Flow("g1", "premium", 0.3375, 2.2, premiumWeight, 0, 0, 0),
                        new Problem.Flow("g1", "basic", 0.5, 4.4, basicWeight, 0, 0, 0)),
                Problem.Parameters.PAPER, Map.of());
    }

    /** One gateway's window of {@code seconds} with both classes' throughputs. */
    private static Map<String, GatewayStats> window(double premiumThroughput, double basicThroughput) {
        return Map.of("g1", StageFixtures.stats("g1", Map.of(
                "premium", StageFixtures.cls(premiumThroughput, premiumThroughput, 2.2, 1, 6),
                "basic", StageFixtures.cls(basicThroughput, basicThroughput, 4.4, 1, 4))));
    }

    @Test
    void theStandardError_isTheBindingClassesSlopeTimesTOverRootN() {
        Problem p = phaseB(6, 4);
        Solution stay = GrmSolver.value(p, Map.of("g1", Map.of("premium", 6.0, "basic", 4.0)));
        // min: basic binds (3 − 4.4 = −1.4 below premium's −0.2); slope 1 above target; n = 4/s × 30 s = 120
        assertThat(PaperMoveGate.standardError(p, stay, window(6, 4))).isCloseTo(4.4 / Math.sqrt(120), within(1e-6));
    }

    @Test
    void aMoveWhoseGainIsWithinTheNoise_isRefused_andTheSameMoveOnAPreciseWindowPasses() {
        Problem p = phaseB(6, 4);
        Solution proposed = GrmSolver.solve(p);
        assertThat(proposed.weights().get("g1").get("basic")).as("eq. 9 on this window wants basic more slots")
                .isGreaterThan(4.0);
        double gain = proposed.objective()
                - GrmSolver.value(p, Map.of("g1", Map.of("premium", 6.0, "basic", 4.0))).objective();
        assertThat(gain).isPositive();
        // basic binds: SE = 4.4 / sqrt(30 s × X_basic). The throughput at which 2 SE equals the gain, and a
        // window with a quarter of it (SE doubled) and four times it (SE halved)
        double even = Math.pow(2 * 4.4 / gain, 2) / 30;
        assertThat(PaperMoveGate.significant(p, proposed, window(6, even / 4))).as("noisy window").isFalse();
        assertThat(PaperMoveGate.significant(p, proposed, window(6, even * 4))).as("precise window").isTrue();
        // premium's completions do not enter: it does not bind
        assertThat(PaperMoveGate.significant(p, proposed, window(6000, even / 4))).isFalse();
    }

    @Test
    void stayingPut_andAProblemTheWeightsInForceDoNotFill_alwaysPass() {
        Problem p = phaseB(6, 4);
        Solution same = GrmSolver.value(p, Map.of("g1", Map.of("premium", 6.0, "basic", 4.0)));
        assertThat(PaperMoveGate.significant(p, same, window(6, 4))).isTrue();
        // a server came: the weights in force (6 + 3) no longer fill N = 10, there is nothing to stay at
        Problem grown = phaseB(6, 3);
        assertThat(PaperMoveGate.significant(grown, GrmSolver.solve(grown), window(6, 4))).isTrue();
    }
}
