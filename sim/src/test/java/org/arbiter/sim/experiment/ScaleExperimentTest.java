package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The scale run, small: the generated cluster is valid, the GRM runs every period, the load is carried. */
final class ScaleExperimentTest {

    @Test
    void smallScaleRun_carriesItsLoad_withTheGrmInTheLoop() {
        List<String> progress = new ArrayList<>();
        ScaleResult r = ScaleExperiment.run(4, 20, 5, 600, 1, progress::add);
        assertThat(r.flows()).isEqualTo(20);
        assertThat(r.controlPeriods()).isEqualTo(119); // every 5 s of 600 s but the last instant
        List<ScaleResult.Phase> phases = r.phases();
        // 20 servers × 10 req/s: 60 % then 85 % of 200 req/s, all served (nothing rejected)
        assertThat(phases.get(0).throughputPerSecond()).isBetween(110.0, 130.0);
        assertThat(phases.get(1).throughputPerSecond()).isBetween(155.0, 185.0);
        assertThat(phases).allSatisfy(p -> assertThat(p.rejected()).isZero());
        // the flow model's error is reported per phase, over the predictions of every flow checked in it
        assertThat(phases).allSatisfy(p -> {
            assertThat(p.predictionError().samples()).isGreaterThan(100);
            assertThat(p.predictionError().meanAbs()).isFinite().isGreaterThanOrEqualTo(Math.abs(p.predictionError().meanSigned()));
        });
        assertThat(progress).anyMatch(l -> l.startsWith("scale second: prediction error mean |e| "));
        assertThat(progress).anyMatch(l -> l.startsWith("sim: 60 of 600 simulated s"));
    }

    @Test
    void pools_splitServersEvenly_andDealClassesSoEachPoolCarriesAnEqualShareOfBothPhases() {
        var c = ScaleExperiment.cluster(4, 20, 20, 10);
        assertThat(c.pools()).hasSize(10);
        for (int p = 0; p < 10; p++) {
            var pool = c.pools().get(p);
            assertThat(pool.servers()).hasSize(2);
            // snake order: pool p gets classes p+1 and 20-p: loads c and 21-c sum to 21 in both phases
            assertThat(pool.classes()).containsExactly(String.format("c%02d", p + 1), String.format("c%02d", 20 - p));
        }
        assertThat(ScaleExperiment.owners(12, 3)).containsExactly(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2);
        assertThat(ScaleExperiment.owners(5, 2)).containsExactly(0, 0, 0, 1, 1);
        assertThat(ScaleExperiment.cluster(4, 20, 5, 0).pools()).isEmpty();
    }

    @Test
    void pooledRun_carriesItsLoad_andReportsEachPoolsStepAndItsOwner() {
        ScaleResult r = ScaleExperiment.run(4, 20, 6, 3, 2, 300, 1, l -> { });
        assertThat(r.poolSplit()).isNotNull();
        assertThat(r.poolSplit().pools()).isEqualTo(3);
        assertThat(r.poolSplit().perPool()).extracting(ScaleResult.PoolStep::owner).containsExactly(1, 1, 2);
        assertThat(r.poolSplit().perPool()).extracting(ScaleResult.PoolStep::classes).containsExactly(2, 2, 2);
        assertThat(r.poolSplit().secondsPerStepSlowestOwner()).isLessThanOrEqualTo(r.poolSplit().secondsPerStepInAll());
        assertThat(r.phases()).allSatisfy(p -> assertThat(p.rejected()).isZero());
        assertThat(r.phases().get(0).throughputPerSecond()).isBetween(110.0, 130.0);
        assertThat(ScaleExperiment.run(4, 20, 5, 600, 1, l -> { }).poolSplit()).as("without pools: none").isNull();
    }
}
