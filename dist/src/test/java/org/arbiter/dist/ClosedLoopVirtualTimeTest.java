package org.arbiter.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.sim.SimResult;
import org.arbiter.sim.SimScenario;
import org.arbiter.sim.Simulator;
import org.junit.jupiter.api.Test;

/**
 * {@link ClosedLoopEndToEndTest}'s cluster and load in virtual time (paper seconds, scale 1): the
 * same GatewayCore and GRM core, driven by the simulator instead of sockets. With the GRM, premium's
 * weight in phase B rises above its configured equal share and its mean response time is lower
 * than under that equal allocation — for each of five seeds, so the ordering is the model's, not
 * one run's luck; the live test asserts the weight and prints the times.
 */
final class ClosedLoopVirtualTimeTest {

    @Test
    void phaseB_theGrmRaisesPremiumsWeight_andLowersItsResponseTime_againstEqualShares_everySeed() {
        ClusterConfig cluster = ClosedLoopEndToEndTest.cluster(1.0, "127.0.0.1:9", 9, 9);
        for (long seed = 1; seed <= 5; seed++) {
            Scenario load = ClosedLoopEndToEndTest.scenario(1.0);
            SimScenario scenario = SimScenario.from(load, cluster, "closed-loop");
            scenario = new SimScenario(scenario.thinkSeconds(), scenario.phases(), seed, scenario.failures());
            SimResult grm = Simulator.withGrm(cluster, scenario).run();
            SimResult equal = Simulator.withConfiguredAllocation(cluster, scenario).run();
            SimResult.PhaseResult b = grm.phases().get(1);
            double weight = 0;
            for (Map<String, Double> w : b.weightsSecondHalf().values()) {
                weight += w.getOrDefault("premium", 0.0);
            }
            double withGrm = b.classes().get("premium").meanResponseSeconds();
            double withEqual = equal.phases().get(1).classes().get("premium").meanResponseSeconds();
            System.out.printf("seed %d: premium weight in B %.2f (equal share 5); premium response: GRM %.3f s, "
                    + "equal shares %.3f s%n", seed, weight, withGrm, withEqual);
            assertThat(weight).as("seed " + seed + ": premium's weight in B vs its equal share").isGreaterThan(5.0);
            assertThat(withGrm).as("seed " + seed + ": premium's mean response in B, GRM vs equal shares")
                    .isLessThan(withEqual);
        }
    }
}
