package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;

/**
 * 002 Fig. 8 and 10 in the simulator at the experiment's default 300 s per run, demand 50/100/150/200 %,
 * seeds 1-4, the Search workload with the hybrid shape only (the full run's other five curves are not
 * asserted here). At 100 % demand the losses swing with the seed (Greedy 3.8-6.9 % over seeds 1-10), so
 * the shorter 60 s runs are not used. Not asserted, because it does not hold (docs/experiments.md, yield):
 * YID below Greedy at every demand up to 100 % (at 50 % nothing queues and all policies lose the same; at
 * 100 % Greedy loses less on every one of seeds 1-10).
 */
final class YieldExperimentTest {

    @org.junit.jupiter.api.Test
    void search_hybrid_greedyBeatsYidInOverload_adaptiveFollowsTheBetter_andGreedyServesMoreGoldThanEdf_seeds1to4() {
        // each run is a function of its arguments and seed alone, so the seeds run side by side (2 cores: two rounds of two)
        Map<Long, YieldResult> results = java.util.stream.LongStream.rangeClosed(1, 4).boxed().parallel()
                .collect(java.util.stream.Collectors.toConcurrentMap(seed -> seed, seed -> YieldExperiment.run(seed, 4, 300,
                        List.of(YieldExperiment.Workload.SEARCH), List.of(ClassConfig.YieldSpec.Shape.HYBRID), m -> { })));
        for (long seed = 1; seed <= 4; seed++) {
            check(seed, results.get(seed));
        }
    }

    private static void check(long seed, YieldResult r) {
        // Search with the hybrid shape only: what is asserted below (its curve, its capacity and the class
        // breakdown, which is Search's and hybrid's); the same numbers as in the full run (see run's Javadoc).
        YieldResult.Curve hybrid = r.workloads().get("search").get("hybrid");
        assertThat(hybrid.demand()).as("seed %d", seed).containsExactly(0.5, 1.0, 1.5, 2.0);
        Map<String, List<Double>> loss = hybrid.lossPercent();
        // 50 %: nothing queues, every policy releases in arrival order and loses the same (service alone past D')
        assertThat(loss.get("yid").get(0)).as("seed %d at 50 %%", seed).isEqualTo(loss.get("greedy").get(0));
        for (int i = 0; i < hybrid.demand().size(); i++) {
            double yid = loss.get("yid").get(i);
            double greedy = loss.get("greedy").get(i);
            double adaptive = loss.get("adaptive").get(i);
            if (hybrid.demand().get(i) >= 1.5) {
                assertThat(greedy).as("seed " + seed + ": greedy below yid at %s", hybrid.demand().get(i)).isLessThan(yid);
                // EDF, which serves the request closest to its deadline first, loses the most in overload
                assertThat(loss.get("edf").get(i)).as("seed %d edf at %s", seed, hybrid.demand().get(i)).isGreaterThan(Math.max(yid, greedy));
            }
            assertThat(adaptive).as("seed " + seed + ": adaptive within 5 points of the better at %s", hybrid.demand().get(i))
                    .isLessThanOrEqualTo(Math.min(yid, greedy) + 5);
        }
        // at 100 % demand EDF completes 95 % within D: little is lost by anyone
        assertThat(loss.get("edf").get(1)).as("seed %d", seed).isLessThan(30);
        Map<String, Map<String, YieldResult.ClassBreakdown>> b = r.breakdown();
        assertThat(b.get("greedy").get("Gold").throughput()).as("seed %d", seed).isGreaterThan(b.get("edf").get("Gold").throughput());
        assertThat(b.get("adaptive").get("Gold").throughput()).as("seed %d", seed).isGreaterThan(b.get("edf").get("Gold").throughput());
        // the seed fixes the result
        assertThat(r.setup().capacityPerSecond().get("search")).as("seed %d", seed).isGreaterThan(0.9 * 64).isLessThan(1.1 * 64);
    }

    @org.junit.jupiter.api.Test
    void badArguments_areRefusedNamingTheOption() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> YieldExperiment.run(1, 1, 60, m -> { }))
                .hasMessage("--points: 1 (expected: 2 to 100)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> YieldExperiment.run(1, 4, 0, m -> { }))
                .hasMessage("--seconds: 0.0 (expected: > 0)");
    }
}
