package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** A shortened 000 §7.4 run (two sinusoid periods of 300 s): the claims docs/experiments.md makes for the full one. */
final class CapacityExperimentTest {

    @SuppressWarnings("unchecked")
    private static Map<String, Object> workload(Map<String, Object> result, String name) {
        return (Map<String, Object>) ((Map<String, Object>) result.get("workloads")).get(name);
    }

    private static double estimate(Map<String, Object> workload, String estimator) {
        @SuppressWarnings("unchecked")
        Map<String, Object> e = (Map<String, Object>) workload.get("estimates");
        return ((Number) e.get(estimator)).doubleValue();
    }

    @Test
    void queueMonitoring_isWithin5PercentOfTheReference_andUtilisationOvershootsIoBoundWork() {
        Map<String, Object> r = CapacityExperiment.run(1, 300, s -> { });
        for (String name : new String[] {"cpu", "io"}) {
            Map<String, Object> w = workload(r, name);
            double reference = ((Number) w.get("reference")).doubleValue();
            assertThat(reference).as(name + " reference").isPositive();
            assertThat(estimate(w, "queue")).as(name + " queue estimate").isCloseTo(reference, within(0.05 * reference));
            assertThat(estimate(w, "static")).as(name + " static estimate").isEqualTo(reference);
        }
        Map<String, Object> io = workload(r, "io");
        double ioReference = ((Number) io.get("reference")).doubleValue();
        assertThat(estimate(io, "utilization")).isGreaterThan(1.2 * ioReference);
        // the CPU-bound reference is the CPU limit (4 cores / 6.67 ms = 600 req/s); the I/O-bound one the process limit
        assertThat(((Number) workload(r, "cpu").get("reference")).doubleValue()).isCloseTo(600, within(15.0));
        assertThat(ioReference).isLessThan(0.6 * 800); // well under what the CPUs could do
    }

    @Test
    void sameSeed_sameResult_otherSeed_otherResult() {
        assertThat(CapacityExperiment.run(7, 100, s -> { })).isEqualTo(CapacityExperiment.run(7, 100, s -> { }));
        assertThat(workload(CapacityExperiment.run(8, 100, s -> { }), "cpu").get("estimates"))
                .isNotEqualTo(workload(CapacityExperiment.run(7, 100, s -> { }), "cpu").get("estimates"));
    }
}
