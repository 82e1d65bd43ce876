package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 002 Fig. 11-12 in the simulator, seeds 1-10 (docs/experiments.md has the numbers). Bronze's 10 s minimum
 * through the whole Silver spike holds at ≥ 18 % because step 2a also reads a short memory of consumption
 * (YieldScheduler); with 002's β = 0.95 alone it fell to 6.5-11.5 % in the spike's first ~20 s. The short
 * memory's granularity (one 250 ms request is 7 points of it on a one-slot node) leaves Bronze a few points
 * above its 20 % over the spike: its mean is asserted in [20, 27) %, the guarantee and not Greedy's leftovers
 * (which are nothing: Gold and Silver's demand alone is 100 %).
 */
final class NeptuneExperimentsTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void spike_neptuneHoldsBronzeAtItsGuaranteeThroughTheSpike_goldIsIsolated_andAFailureCostsGoldLessThanUnderPartitioning(
            long seed) {
        SpikeResult r = NeptuneExperiments.spike(seed, m -> { });
        SpikeResult.Summary n = r.runs().get("neptune").summary();
        SpikeResult.Summary p = r.runs().get("partitioning").summary();
        // the spike happened: Silver's demand tripled, and Neptune gave Silver most of the cluster
        assertThat(NeptuneExperiments.mean(r.runs().get("neptune").time(), r.runs().get("neptune").demand().get("Silver"), 60,
                150)).isGreaterThan(80);
        assertThat(n.bronzeMeanSpike()).as("Bronze's mean over the spike").isGreaterThanOrEqualTo(20).isLessThan(27);
        assertThat(n.bronzeMinSpike()).as("Bronze's 10 s minimum through the whole spike").isGreaterThanOrEqualTo(18);
        assertThat(n.goldSpikeDip()).as("Gold's dip during the spike under Neptune").isLessThanOrEqualTo(5);
        assertThat(n.goldFailureDip()).as("Gold's dip after the failure, Neptune vs partitioning")
                .isLessThan(p.goldFailureDip());
        assertThat(n.lostToFailure()).isPositive();
        assertThat(p.lostToFailure()).isPositive();
    }

    @org.junit.jupiter.api.Test
    void distribution_neptuneYieldsAtLeastPartitioningAt200PercentOn16Servers_seeds1to10() {
        // the experiment's default 300 s per run: at 120 s seed 4's Search comes to 0.991 of partitioning by chance
        for (long seed = 1; seed <= 10; seed++) {
            for (boolean micro : new boolean[] {false, true}) {
                double neptune = NeptuneExperiments.poissonRun(micro, 16, 2.0, org.arbiter.common.config.DispatchConfig.Scheduler.ADAPTIVE,
                        org.arbiter.sim.neptune.ClusterSim.Distribution.NEPTUNE, seed, 30, 300).realisedTotal();
                double partitioning = NeptuneExperiments.poissonRun(micro, 16, 2.0,
                        org.arbiter.common.config.DispatchConfig.Scheduler.ADAPTIVE,
                        org.arbiter.sim.neptune.ClusterSim.Distribution.PARTITIONING, seed, 30, 300).realisedTotal();
                assertThat(neptune).as("seed %d %s", seed, micro ? "micro" : "search").isGreaterThanOrEqualTo(partitioning);
            }
        }
    }

    @org.junit.jupiter.api.Test
    void distribution_result_isNormalisedToNeptuneAt200PercentOn16Servers() {
        DistributionResult r = NeptuneExperiments.distribution(1, 30, m -> { });
        for (var points : r.workloads().values()) {
            assertThat(points).hasSize(2 * 4 * 3);
            assertThat(points).filteredOn(x -> x.policy().equals("neptune") && x.servers() == 16 && x.demand() == 2.0)
                    .singleElement().extracting(DistributionResult.Point::normalised).isEqualTo(1.0);
        }
        assertThat(r.schedulerCheck().lossPercent()).containsKeys("yid", "greedy");
    }
}
