package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 002 Fig. 8 and 10 in the simulator, shortened (60 s measured per run, demand 50/100/150/200 %),
 * seeds 1-3, the Search workload with the hybrid shape only (the full run's other five curves are
 * not asserted here): what holds of the targets on the Differentiated Search workload with the
 * hybrid yield. The target "YID below Greedy at every demand up to 100 %" does not hold here and is
 * not asserted (docs/experiments.md has the numbers): at 50 % nothing queues and the four policies
 * lose the same yield, at 100 % Greedy loses less than YID.
 */
final class YieldExperimentTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void search_hybrid_greedyBeatsYidInOverload_adaptiveFollowsTheBetter_andGreedyServesMoreGoldThanEdf(long seed) {
        // Search with the hybrid shape only: what is asserted below (its curve, its capacity and the class
        // breakdown, which is Search's and hybrid's); the same numbers as in the full run (see run's Javadoc).
        YieldResult r = YieldExperiment.run(seed, 4, 60, List.of(YieldExperiment.Workload.SEARCH),
                List.of(ClassConfig.YieldSpec.Shape.HYBRID), m -> { });
        YieldResult.Curve hybrid = r.workloads().get("search").get("hybrid");
        assertThat(hybrid.demand()).containsExactly(0.5, 1.0, 1.5, 2.0);
        Map<String, List<Double>> loss = hybrid.lossPercent();
        for (int i = 0; i < hybrid.demand().size(); i++) {
            double yid = loss.get("yid").get(i);
            double greedy = loss.get("greedy").get(i);
            double adaptive = loss.get("adaptive").get(i);
            if (hybrid.demand().get(i) >= 1.5) {
                assertThat(greedy).as("greedy below yid at %s", hybrid.demand().get(i)).isLessThan(yid);
            }
            assertThat(adaptive).as("adaptive within 5 points of the better at %s", hybrid.demand().get(i))
                    .isLessThanOrEqualTo(Math.min(yid, greedy) + 5);
            // EDF, which serves the request closest to its deadline first, loses the most in overload
            if (hybrid.demand().get(i) >= 1.5) {
                assertThat(loss.get("edf").get(i)).isGreaterThan(Math.max(yid, greedy));
            }
        }
        // at 100 % demand EDF completes 95 % within D: little is lost by anyone
        assertThat(loss.get("edf").get(1)).isLessThan(30);
        Map<String, Map<String, YieldResult.ClassBreakdown>> b = r.breakdown();
        assertThat(b.get("greedy").get("Gold").throughput()).isGreaterThan(b.get("edf").get("Gold").throughput());
        assertThat(b.get("adaptive").get("Gold").throughput()).isGreaterThan(b.get("edf").get("Gold").throughput());
        // the seed fixes the result
        assertThat(r.setup().capacityPerSecond().get("search")).isGreaterThan(0.9 * 64).isLessThan(1.1 * 64);
    }

    @org.junit.jupiter.api.Test
    void badArguments_areRefusedNamingTheOption() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> YieldExperiment.run(1, 1, 60, m -> { }))
                .hasMessage("--points: 1 (expected: 2 to 100)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> YieldExperiment.run(1, 4, 0, m -> { }))
                .hasMessage("--seconds: 0.0 (expected: > 0)");
    }
}
