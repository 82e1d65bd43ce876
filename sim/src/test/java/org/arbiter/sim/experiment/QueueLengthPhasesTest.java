package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.GrmConfig;
import org.junit.jupiter.api.Test;

/**
 * 003 Fig. 10 on the phases (flow model, relative scale, min, 600 s per phase), seeds 1-10: the class queues
 * 003 §V-B describes — none in A; in B the clients neither thinking nor served, (8, 12) at (6, 4); in C
 * premium's negligible and basic's most of it; in D premium's the larger (003: "about twice"; here 3-4.5×).
 */
final class QueueLengthPhasesTest {

    @Test
    void theQueuesOf003Fig10_everySeed() {
        for (long seed = 1; seed <= 10; seed++) {
            QueueLengths q = Experiments.phases(seed, 600, ControlConfig.Combine.MIN,
                    ClassConfig.UtilitySpec.Scale.RELATIVE, GrmConfig.Model.FLOW, s -> { }).queues();
            String at = "seed " + seed + ", ";
            assertThat(q.classTotal("A", "premium")).as(at + "A premium").isLessThanOrEqualTo(0.05);
            assertThat(q.classTotal("A", "basic")).as(at + "A basic").isLessThanOrEqualTo(0.05);
            assertThat(q.classTotal("B", "premium")).as(at + "B premium").isBetween(7.0, 9.0);
            assertThat(q.classTotal("B", "basic")).as(at + "B basic").isBetween(11.0, 13.0);
            assertThat(q.classTotal("C", "premium")).as(at + "C premium").isLessThanOrEqualTo(0.5);
            assertThat(q.classTotal("C", "basic")).as(at + "C basic").isGreaterThanOrEqualTo(4.0);
            assertThat(q.classTotal("D", "premium")).as(at + "D premium against basic")
                    .isGreaterThan(2 * q.classTotal("D", "basic"));
        }
    }
}
