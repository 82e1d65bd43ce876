package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** 002 Fig. 11-12 in the simulator, seeds 1-3: the targets that hold (docs/experiments.md has the numbers). */
final class NeptuneExperimentsTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void spike(long seed) {
        SpikeResult r = NeptuneExperiments.spike(seed, System.out::println);
        SpikeResult.Summary n = r.runs().get("neptune").summary();
        SpikeResult.Summary p = r.runs().get("partitioning").summary();
        System.out.println("seed " + seed + " neptune " + n + " dips " + n.goldSpikeDip() + " " + n.goldFailureDip());
        System.out.println("seed " + seed + " partitioning " + p + " dips " + p.goldSpikeDip() + " " + p.goldFailureDip());
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1})
    void distribution(long seed) {
        DistributionResult r = NeptuneExperiments.distribution(seed, 120, System.out::println);
        assertThat(r.workloads()).containsKeys("search", "micro");
    }
}
