package org.arbiter.grm.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import org.junit.jupiter.api.Test;

/** 003 eq. 8-9 and the closed-loop form (think time Z). */
final class FlowModelTest {

    @Property
    void closedLoop_returnsTheMeasurementAtTheWeightMeasured(@ForAll @DoubleRange(min = 0.1, max = 20) double lambda,
                                                             @ForAll @DoubleRange(min = 0.05, max = 10) double t,
                                                             @ForAll @DoubleRange(min = 0.5, max = 20) double w,
                                                             @ForAll @DoubleRange(min = 0, max = 10) double z) {
        FlowModel m = FlowModel.mm1(lambda, t, w, 1e9).withThinkTime(z);
        assertThat(m.predict(w)).isCloseTo(t, within(1e-6 * Math.max(1, t)));
    }

    @Property
    void closedLoop_isStableAndFallsWithTheWeight(@ForAll @DoubleRange(min = 0.1, max = 20) double lambda,
                                                  @ForAll @DoubleRange(min = 0.05, max = 10) double t,
                                                  @ForAll @DoubleRange(min = 0.5, max = 20) double w,
                                                  @ForAll @DoubleRange(min = 0, max = 10) double z) {
        FlowModel m = FlowModel.mm1(lambda, t, w, 1e9).withThinkTime(z);
        double smaller = m.predict(w / 2);
        assertThat(smaller).isFinite().isLessThan(1e9).isGreaterThanOrEqualTo(m.predict(w) - 1e-9);
        assertThat(m.predict(2 * w)).isLessThanOrEqualTo(m.predict(w) + 1e-9);
    }

    @Test
    void paperPhaseB_openModelSeesBasicUnstableAtFourSlots_closedModelDoesNot() {
        // phase B as the GRM measured it (seed 1, t = 720 s): basic λ̃ 4.81/s, t̃ 3.18 s on 5 slots
        FlowModel open = FlowModel.mm1(4.81, 3.18, 5, 30);
        FlowModel closed = open.withThinkTime(1);
        assertThat(open.predict(4)).isGreaterThan(10); // eq. 9 with λ held: close to unstable
        // 20 clients on 4 slots of 1 s: about 20/4 - 1 = 4 s
        assertThat(closed.predict(4)).isBetween(3.5, 4.5);
    }

    @Test
    void largeThinkTime_tendsToEquation9() {
        FlowModel open = FlowModel.mm1(3, 1.5, 5, 100);
        assertThat(open.withThinkTime(1e7).predict(4)).isCloseTo(open.predict(4), within(1e-3));
    }
}
