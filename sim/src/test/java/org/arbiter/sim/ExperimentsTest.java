package org.arbiter.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.arbiter.sim.experiment.ConcurrencyResult;
import org.arbiter.sim.experiment.Experiments;
import org.arbiter.sim.experiment.RegionsResult;
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
}
