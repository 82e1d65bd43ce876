package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 002 Fig. 11-12 in the simulator, seeds 1-10: the targets that hold (docs/experiments.md has the numbers).
 * Not asserted, because it does not hold: Bronze ≥ 18 % throughout the Silver spike under Neptune. The
 * guarantee reads 002's decayed consumption (β = 0.95/s), whose memory of Bronze's 55 % before the spike
 * lets Greedy starve Bronze to 6.5-11.5 % (10 s means, seeds 1-5) for the spike's first ~20 s; from 30 s into the
 * spike on it holds. Only β = 0.8 (not 002's) closes the gap; docs/experiments.md, spike, has what was tried.
 */
final class NeptuneExperimentsTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void spike_neptuneHoldsBronzeAtItsGuaranteeOnceSettled_goldIsIsolated_andAFailureCostsGoldLessThanUnderPartitioning(
            long seed) {
        SpikeResult r = NeptuneExperiments.spike(seed, m -> { });
        SpikeResult.Summary n = r.runs().get("neptune").summary();
        SpikeResult.Summary p = r.runs().get("partitioning").summary();
        // the spike happened: Silver's demand tripled, and Neptune gave Silver most of the cluster
        assertThat(NeptuneExperiments.mean(r.runs().get("neptune").time(), r.runs().get("neptune").demand().get("Silver"), 60,
                150)).isGreaterThan(80);
        assertThat(n.bronzeMeanSpike()).isGreaterThanOrEqualTo(18).isLessThan(25);
        assertThat(n.bronzeMinSettled()).isGreaterThanOrEqualTo(15);
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
