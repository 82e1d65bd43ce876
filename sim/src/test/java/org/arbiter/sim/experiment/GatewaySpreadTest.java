package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.arbiter.common.config.ControlConfig;
import org.junit.jupiter.api.Test;

/** Two gateways carrying the same load get the same split within one slot (issue 19). */
final class GatewaySpreadTest {

    @Test
    void twoGatewaysWithTheSameLoad_weightsWithinOneSlot_afterTheFirstTwoPeriodsOfEveryPhase() {
        for (long seed = 1; seed <= 5; seed++) {
            List<GatewaySpread.Phase> phases = GatewaySpread.run(seed, 600, ControlConfig.Combine.MIN);
            for (GatewaySpread.Phase p : phases) {
                assertThat(p.periods()).as("seed %d phase %s", seed, p.name()).isGreaterThan(100);
                assertThat(p.maxSpread()).as("seed %d phase %s", seed, p.name()).isLessThanOrEqualTo(1.0);
                // reported, not bounded: with two gateways borrowed slots are not modelled (docs/experiments.md)
                assertThat(p.predictionError().samples()).as("seed %d phase %s", seed, p.name()).isGreaterThan(50);
                assertThat(p.predictionError().meanAbs()).as("seed %d phase %s", seed, p.name()).isBetween(0.0, 0.5);
            }
        }
    }
}
