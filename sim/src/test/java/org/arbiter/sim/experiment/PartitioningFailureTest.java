package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.sim.neptune.ClusterSim;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Server partitioning (002 §3) keeps a failed node in its class's set until the next 10 s interval: a
 * request sent to that set finds no answering node and is lost, rather than slipping into the shared
 * pool (ClusterSim's design note). Gold (10 % of 16 servers at 100 %: one dedicated node and a pool
 * fraction) loses its dedicated node 9 s before the next interval, or 0.5 s before it.
 */
final class PartitioningFailureTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void aFailedDedicatedNode_losesItsClassesRequestsUntilTheNextInterval(long seed) {
        long early = goldLost(21, seed);
        long late = goldLost(29.5, seed);
        // both lose what the node held; the early failure also loses the dedicated set's share (~60 %) of the 6.4
        // Gold requests/s for the 8.5 s more until the interval: ~33 (seeds 1-3: 24-40). Were a request to poll the
        // pool after its set failed to answer, only the 0.6³ that pick the dead set three times would be lost (8-19).
        assertThat(early - late).as("Gold lost to 8.5 s more of a dead dedicated node (early %d, late %d)", early, late)
                .isGreaterThanOrEqualTo(20);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void underNeptune_aFailedNodeCostsOnlyWhatItHeld(long seed) {
        List<ClusterSim.ClassSpec> classes = NeptuneExperiments.classes(false, 0.2);
        ClusterSim.Result r = run(classes, ClusterSim.Distribution.NEPTUNE, 0, 21, seed);
        long lost = java.util.Arrays.stream(r.lost()).sum();
        assertThat(lost).isEqualTo(r.lostToFailure());
    }

    private static long goldLost(double failAt, long seed) {
        List<ClusterSim.ClassSpec> classes = NeptuneExperiments.classes(false, 0.2);
        return run(classes, ClusterSim.Distribution.PARTITIONING, -1, failAt, seed).lost()[0];
    }

    private static ClusterSim.Result run(List<ClusterSim.ClassSpec> classes, ClusterSim.Distribution d, int node,
                                         double failAt, long seed) {
        double rate = 16 / NeptuneExperiments.meanService(classes);
        return new ClusterSim(NeptuneExperiments.settings(16, classes, DispatchConfig.Scheduler.ADAPTIVE, d, 0, 40,
                List.of(new ClusterSim.Failure(node, failAt, 60)), seed), NeptuneExperiments.poisson(classes, rate)).run();
    }
}
