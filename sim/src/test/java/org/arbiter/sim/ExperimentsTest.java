package org.arbiter.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.arbiter.sim.experiment.Experiments;
import org.junit.jupiter.api.Test;

/** Shortened runs of 003's experiments: the claims the full runs in docs/experiments.md make. */
final class ExperimentsTest {

    @Test
    void concurrency_kneeAtTenPlusMinusOne() {
        Map<String, Object> r = Experiments.concurrency(1, 300, s -> { });
        assertThat((int) r.get("knee")).isBetween(9, 11);
    }

    @Test
    @SuppressWarnings("unchecked")
    void regions_grmBeatsFcfsAndPriority_andFractionalAtLeastMatches() {
        Map<String, Object> r = Experiments.regions(1, 400, s -> { });
        Map<String, Map<String, Object>> p = (Map<String, Map<String, Object>>) r.get("policies");
        double fcfs = (double) p.get("fcfs").get("meanUtility");
        double prio = (double) p.get("priority").get("meanUtility");
        double grm = (double) p.get("grm").get("meanUtility");
        double frac = (double) p.get("grm-fractional").get("meanUtility");
        assertThat(grm).isGreaterThan(fcfs).isGreaterThan(prio);
        assertThat((int) p.get("grm").get("nonNegative"))
                .isGreaterThanOrEqualTo((int) p.get("fcfs").get("nonNegative"))
                .isGreaterThanOrEqualTo((int) p.get("priority").get("nonNegative"));
        assertThat(frac).isGreaterThanOrEqualTo(grm - 0.05);
        assertThat((List<?>) p.get("grm").get("points")).hasSize(16);
    }
}
