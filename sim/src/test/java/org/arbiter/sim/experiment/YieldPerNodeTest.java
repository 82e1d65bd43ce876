package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.arbiter.common.config.ClassConfig;
import org.junit.jupiter.api.Test;

/**
 * The yield experiment on 002's per-node set-up ({@code --layout per-node}: 16 nodes × 2 threads, random
 * polling d = 3) with Poisson and MMPP arrivals, on short runs (60 s measured, Search, hybrid, 50 / 100 /
 * 150 / 200 %), seeds 1-5 (the MMPP's CV: seeds 1-3). Asserted: what held on every one of seeds 1-10 at the default 300 s
 * (docs/experiments.md, yield, "yield on 002's per-node set-up"): Greedy loses less than YID in overload
 * and EDF the most; the per-node calibration is run on that layout (about twice the pooled one: 32
 * threads against 16); the MMPP's inter-arrival CV is 002 Table
 * 2's ≈ 1.02. Not asserted, because it does not hold: YID at or below Greedy at every demand up to 100 %
 * with a 10 % gain somewhere in 75-100 %.
 */
final class YieldPerNodeTest {

    private static final List<YieldExperiment.Mode> MODES = List.of(
            new YieldExperiment.Mode(YieldExperiment.Layout.PER_NODE, YieldExperiment.ArrivalProcess.POISSON),
            new YieldExperiment.Mode(YieldExperiment.Layout.PER_NODE, YieldExperiment.ArrivalProcess.MMPP));

    @Test
    void perNode_greedyBelowYidInOverload_edfLosesMost_bothArrivalProcesses_seeds1to5() {
        for (YieldExperiment.Mode mode : MODES) {
            Map<Long, YieldResult> results = LongStream.rangeClosed(1, 5).boxed().parallel()
                    .collect(Collectors.toConcurrentMap(seed -> seed, seed -> YieldExperiment.run(seed, 4, 60, mode,
                            List.of(YieldExperiment.Workload.SEARCH), List.of(ClassConfig.YieldSpec.Shape.HYBRID), m -> { })));
            for (long seed = 1; seed <= 5; seed++) {
                YieldResult r = results.get(seed);
                String as = mode.arrivals().wireName() + " seed " + seed;
                assertThat(r.setup().layout()).isEqualTo("per-node");
                assertThat(r.setup().arrivals()).isEqualTo(mode.arrivals().wireName());
                assertThat(r.setup().threadsPerNode()).isEqualTo(2);
                YieldResult.Curve hybrid = r.workloads().get("search").get("hybrid");
                assertThat(hybrid.demand()).containsExactly(0.5, 1.0, 1.5, 2.0);
                Map<String, List<Double>> loss = hybrid.lossPercent();
                for (int i = 2; i <= 3; i++) {
                    double yid = loss.get("yid").get(i);
                    double greedy = loss.get("greedy").get(i);
                    assertThat(greedy).as("%s: greedy at least 10 %% below yid at %s", as, hybrid.demand().get(i))
                            .isLessThan(0.9 * yid);
                    assertThat(loss.get("edf").get(i)).as("%s: edf the most at %s", as, hybrid.demand().get(i))
                            .isGreaterThan(yid);
                }
                // the calibration, on the per-node layout: near 16 nodes × 2 threads / E[s] = 128 / s (300 s runs, seeds
                // 1-10: Poisson 1.01-1.02 of it, MMPP 0.90-1.04 as the window's share of high-rate time varies; with
                // 60 s windows the MMPP's swings more, up to the bisection's bound 1.2 on seed 5)
                double fraction = r.setup().capacityPerSecond().get("search") / 128;
                if (mode.arrivals() == YieldExperiment.ArrivalProcess.POISSON) {
                    assertThat(fraction).as(as).isBetween(0.95, 1.1);
                } else {
                    assertThat(fraction).as(as).isBetween(0.8, 1.2);
                }
            }
        }
    }

    @Test
    void perNodeCalibration_isRunOnThePerNodeLayout_twiceThePooledOne() {
        YieldExperiment.Mode perNode = MODES.get(0);
        for (long seed = 1; seed <= 2; seed++) {
            double pooled = YieldExperiment.capacity(YieldExperiment.Workload.SEARCH, seed, 20, 60);
            double nodes = YieldExperiment.capacity(YieldExperiment.Workload.SEARCH, perNode, seed, 20, 60);
            // 32 threads against 16: about twice (300 s, seeds 1-10: 129.5-130.9 against 65.25 at seed 1), not the same
            assertThat(nodes).as("seed %d: per-node %s against pooled %s", seed, nodes, pooled)
                    .isBetween(1.8 * pooled, 2.2 * pooled);
        }
    }

    @Test
    void mmpp_interArrivalCv_isTable2s_andItsLongRunRateIsTheMean() {
        for (long seed = 1; seed <= 3; seed++) {
            double[] cv = Mmpp.interArrivalCv(seed, new double[] {12, 36, 72}, YieldExperiment.CV_SECONDS);
            for (double x : cv) {
                // 2 / (1 - 0.15²) - 1 = 1.023²; 002 Table 2: 1.019-1.021
                assertThat(x).as("seed %d", seed).isBetween(1.0, 1.05);
            }
            Mmpp m = new Mmpp(seed);
            double high = 0;
            double total = 0;
            for (double[] seg : m.segments(100_000, 0)) {
                total += seg[1] - seg[0];
                high += seg[2] > 1 ? seg[1] - seg[0] : 0;
                assertThat(seg[2]).isIn(1.15, 0.85);
            }
            assertThat(high / total).as("seed %d: time in the high state", seed).isBetween(0.45, 0.55);
        }
    }

    @Test
    void theDefault_isPooledPoisson_andWritesNoLayout() {
        YieldResult r = YieldExperiment.run(1, 2, 20, List.of(YieldExperiment.Workload.SEARCH),
                List.of(ClassConfig.YieldSpec.Shape.HYBRID), m -> { });
        String json = ResultJson.toJson(r);
        assertThat(json).doesNotContain("layout", "arrivals", "interArrivalCv", "threadsPerNode");
        assertThat(ResultJson.toJson(YieldExperiment.run(1, 2, 20, YieldExperiment.Mode.DEFAULT,
                List.of(YieldExperiment.Workload.SEARCH), List.of(ClassConfig.YieldSpec.Shape.HYBRID), m -> { }))).isEqualTo(json);
    }

    @Test
    void badLayoutOrArrivals_areRefusedNamingTheOption() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> YieldExperiment.Layout.parse("cluster"))
                .hasMessage("--layout: cluster (expected: pooled or per-node)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> YieldExperiment.ArrivalProcess.parse("pareto"))
                .hasMessage("--arrivals: pareto (expected: poisson or mmpp)");
    }
}
