package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** A shortened 000 §7.4 run (two sinusoid periods of 300 s): the claims docs/experiments.md makes for the full one. */
final class CapacityExperimentTest {

    @Test
    void queueMonitoring_isWithin5PercentOfTheReference_andUtilisationOvershootsIoBoundWork() {
        CapacityResult r = CapacityExperiment.run(1, 300, s -> { });
        for (String name : new String[] {"cpu", "io"}) {
            CapacityResult.Workload w = r.workloads().get(name);
            double reference = w.reference();
            assertThat(reference).as(name + " reference").isPositive();
            assertThat(w.estimates().queue()).as(name + " queue estimate").isCloseTo(reference, within(0.05 * reference));
            assertThat(w.estimates().fixed()).as(name + " static estimate").isEqualTo(reference);
        }
        CapacityResult.Workload io = r.workloads().get("io");
        double ioReference = io.reference();
        assertThat(io.estimates().utilization()).isGreaterThan(1.2 * ioReference);
        // the CPU-bound reference is the CPU limit (4 cores / 6.67 ms = 600 req/s); the I/O-bound one the process limit
        assertThat(r.workloads().get("cpu").reference()).isCloseTo(600, within(15.0));
        assertThat(ioReference).isLessThan(0.6 * 800); // well under what the CPUs could do
    }

    @Test
    void sameSeed_sameResult_otherSeed_otherResult() {
        assertThat(CapacityExperiment.run(7, 100, s -> { })).isEqualTo(CapacityExperiment.run(7, 100, s -> { }));
        assertThat(CapacityExperiment.run(8, 100, s -> { }).workloads().get("cpu").estimates())
                .isNotEqualTo(CapacityExperiment.run(7, 100, s -> { }).workloads().get("cpu").estimates());
    }
}
