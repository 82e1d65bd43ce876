package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** 004 Fig. 3-5 at the documented lengths (9 000 s per point, 600 s per segment), seeds 1-3: the targets of docs/experiments.md. */
final class FluidExperimentTest {

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void model_matchesTheSimulatedServer(long seed) {
        FluidResult r = FluidExperiment.run(seed, FluidExperiment.POINT_SECONDS, FluidExperiment.SEGMENT_SECONDS, s -> { });
        int differ = 0;
        for (FluidResult.AbandonPoint p : r.abandon()) {
            // steady-state throughput and N_e within 10 % at every N
            assertThat(p.modelThroughput()).as("T_o at N = " + p.clients())
                    .isBetween(0.9 * p.throughput(), 1.1 * p.throughput());
            assertThat(p.modelInFlight()).as("N_e at N = " + p.clients())
                    .isBetween(0.9 * p.inFlight(), 1.1 * p.inFlight());
            // the improved ᾱ is closer to the measured abandon rate wherever the two estimates differ
            if (p.naive() != p.improved()) {
                differ++;
                assertThat(Math.abs(p.improved() - p.measured())).as("ᾱ at N = " + p.clients())
                        .isLessThan(Math.abs(p.naive() - p.measured()));
            }
        }
        assertThat(differ).as("points where naive and improved differ").isGreaterThanOrEqualTo(5);
        // the model follows the open-loop dynamics (Fig. 5)
        assertThat(r.errors().inFlight().relative()).isLessThan(0.15);
        assertThat(r.errors().throughput().relative()).isLessThan(0.15);
        assertThat(r.fit().a()).isPositive();
    }

    @Test
    void tooShortALength_isRefusedNamingIt() {
        assertThatThrownBy(() -> FluidExperiment.run(1, 20, 600, m -> { }))
                .hasMessage("pointSeconds: 20.0 (expected: finite, >= 30.0)");
        assertThatThrownBy(() -> FluidExperiment.run(1, 9000, Double.NaN, m -> { }))
                .hasMessage("segmentSeconds: NaN (expected: finite, >= 30.0)");
    }
}
