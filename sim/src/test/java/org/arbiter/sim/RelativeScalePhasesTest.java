package org.arbiter.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.sim.experiment.Experiments;
import org.arbiter.sim.experiment.PaperPhase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * 003 §V-B's phases with both utilities on the relative scale (φ_c = 1/τ_c, {@code utility.scale:
 * relative}), the flow model and {@code min}, seeds 1-10 at the experiment's default 600 s per phase:
 * the allocations 003 Fig. 8 shows, B's response-time ratio near τ_B/τ_P and small utility spreads
 * (docs/experiments.md, "The utility scale"). Each property holds for every seed.
 */
final class RelativeScalePhasesTest {

    private static final double SECONDS_PER_PHASE = 600;
    private static final double PERIOD = 5;
    private static final double[] TARGET = {2, 3}; // premium, basic

    /** One seed's phases: premium weight after the first two periods, mean responses, utilities. */
    private record Phase(double premiumWeight, double premiumResponse, double basicResponse) {
        double ratio() {
            return basicResponse / premiumResponse;
        }

        /** |U_premium − U_basic| on the relative scale, U_c = (τ_c − R_c) / τ_c. */
        double spread() {
            return Math.abs((TARGET[0] - premiumResponse) / TARGET[0] - (TARGET[1] - basicResponse) / TARGET[1]);
        }
    }

    private static final List<List<Phase>> SEEDS = new ArrayList<>();

    @BeforeAll
    static void run() {
        ClusterConfig cluster = Experiments.paperCluster(DispatchConfig.Scheduler.WRR, 1, 10, 0,
                ControlConfig.Combine.MIN, ClassConfig.UtilitySpec.Scale.RELATIVE);
        for (long seed = 1; seed <= 10; seed++) {
            SimResult r = Simulator.withGrm(cluster,
                    new SimScenario(1, PaperPhase.simPhases(SECONDS_PER_PHASE), seed)).run();
            List<Phase> phases = new ArrayList<>();
            for (SimResult.PhaseResult p : r.phases()) {
                // the GRM's allocations once the phase's first two periods have passed
                double sum = 0;
                int n = 0;
                for (SimResult.AllocationPoint a : r.allocations()) {
                    if (a.timeSeconds() >= p.startSeconds() + 2 * PERIOD && a.timeSeconds() < p.endSeconds()) {
                        sum += a.weights().get("g1").get("premium");
                        n++;
                    }
                }
                phases.add(new Phase(sum / n, p.classes().get("premium").meanResponseSeconds(),
                        p.classes().get("basic").meanResponseSeconds()));
            }
            SEEDS.add(phases);
        }
    }

    private static Phase phase(List<Phase> seed, String name) {
        return seed.get(PaperPhase.valueOf(name).ordinal());
    }

    @Test
    void phaseB_isSixToFour_andD_isEightToTwo_everySeed() {
        for (int i = 0; i < SEEDS.size(); i++) {
            assertThat(phase(SEEDS.get(i), "B").premiumWeight()).as("seed %d, B premium weight", i + 1)
                    .isBetween(5.7, 6.3);
            assertThat(phase(SEEDS.get(i), "D").premiumWeight()).as("seed %d, D premium weight", i + 1)
                    .isBetween(7.7, 8.3);
        }
    }

    @Test
    void phaseB_basicAbout1_5To1_9TimesPremium_everySeed() {
        for (int i = 0; i < SEEDS.size(); i++) {
            assertThat(phase(SEEDS.get(i), "B").ratio()).as("seed %d, B basic/premium response", i + 1)
                    .isBetween(1.5, 1.9);
        }
    }

    @Test
    void utilitySpreadAtMostAQuarterInAToC_everySeed() {
        for (int i = 0; i < SEEDS.size(); i++) {
            for (String p : List.of("A", "B", "C")) {
                assertThat(phase(SEEDS.get(i), p).spread()).as("seed %d, phase %s utility spread", i + 1, p)
                        .isLessThanOrEqualTo(0.25);
            }
        }
    }
}
