package org.arbiter.grm.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The slot model: c = w slots of the measured service time S̃ (FlowModel, "Slots"). */
final class SlotModelTest {

    @Test
    void lightClosedFlow_withMoreSlotsThanClients_isPredictedAtTheServiceTime_neverBelow() {
        // 003 §V phase A, premium as the GRM measured it: 5 clients (λ̃ 2.5/s, t̃ 1 s, think 1 s) on 8
        // slots, 2.5 in use. Eq. 8-9 infer μ = 1/1 + 2.5/2.5 = 2 per slot and predict 0.62 s at 8
        // slots, below the 1 s a request holds its slot; the slot model predicts S̃.
        FlowModel eq9 = FlowModel.mm1(2.5, 1.0, 2.5, 20).withThinkTime(1);
        FlowModel slots = eq9.withServiceTime(1.0);
        assertThat(eq9.predict(8)).isLessThan(0.7);
        assertThat(slots.predict(8)).isEqualTo(1.0);
        assertThat(slots.predict(5)).isEqualTo(1.0);
        assertThat(slots.predict(4)).isGreaterThan(1.0);
    }

    @Test
    void finiteSource_matchesTheProductForm_byHand() {
        // n = 5 clients, c = 4 slots, Z = S = 1: p_k ∝ 1, 5, 10, 10, 5, 1.25 (k = 0..5), busy slots
        // Σ p_k min(k, 4) = 80 over Σ p_k = 32.25, so X = 2.4806/s and R = 5/X − 1 = 1.015625 s
        assertThat(FlowModel.finiteSource(5, 4, 1, 1)).isCloseTo(5 / (80 / 32.25) - 1, within(1e-12));
        // no think time: all n always in the system, R = n S / c
        assertThat(FlowModel.finiteSource(20, 4, 1, 0)).isCloseTo(5, within(1e-12));
        // saturated: 20 clients on 4 slots of 1 s wait about 20/4 − 1 = 4 s (a little more)
        assertThat(FlowModel.finiteSource(20, 4, 1, 1)).isBetween(4.0, 4.01);
        // many clients (terms beyond 1e308 before rescaling) stay finite
        assertThat(FlowModel.finiteSource(5000, 10, 1, 1)).isCloseTo(5000 / 10.0 - 1, within(1e-6));
    }

    @Test
    void openLoop_isEq9_flooredAtTheServiceTime() {
        // λ̃ 2.5/s, t̃ 1 s on 2.5 slots in use: eq. 9 gives 0.62 s at 8 slots, the floor S̃ = 1 s
        FlowModel m = FlowModel.mm1(2.5, 1.0, 2.5, 20).withServiceTime(1);
        assertThat(m.predict(8)).isEqualTo(1.0);
        // near saturation eq. 9 as printed (above S̃): at w̃ it returns t̃
        FlowModel busy = FlowModel.mm1(4.8, 3.2, 5, 30).withServiceTime(1);
        assertThat(busy.predict(5)).isCloseTo(3.2, within(1e-9));
        assertThat(busy.predict(4.5)).isGreaterThan(3.2);
    }

    @Property
    void closedLoop_neverBelowTheServiceTime_andNeverRisesWithTheWeight(
            @ForAll @DoubleRange(min = 0.1, max = 20) double lambda,
            @ForAll @DoubleRange(min = 0.05, max = 10) double t,
            @ForAll @DoubleRange(min = 0.05, max = 5) double s,
            @ForAll @DoubleRange(min = 0.1, max = 20) double w,
            @ForAll @DoubleRange(min = 0, max = 10) double z) {
        FlowModel m = FlowModel.mm1(lambda, t, w, 1e9).withThinkTime(z).withServiceTime(s);
        assertThat(m.predict(w)).isGreaterThanOrEqualTo(s);
        assertThat(m.predict(w + 1)).isLessThanOrEqualTo(m.predict(w) + 1e-9);
    }

    @Property
    void openLoop_neverBelowTheServiceTime_andNeverRisesWithTheWeight(
            @ForAll @DoubleRange(min = 0.1, max = 20) double lambda,
            @ForAll @DoubleRange(min = 0.05, max = 5) double s,
            @ForAll @IntRange(min = 1, max = 40) int c) {
        FlowModel m = FlowModel.mm1(lambda, 1, c, 1e9).withServiceTime(s);
        assertThat(m.predict(c)).isGreaterThanOrEqualTo(s);
        assertThat(m.predict(c + 1)).isLessThanOrEqualTo(m.predict(c) + 1e-9);
    }

    @Test
    void serviceTime_mustBeFiniteAndNotNegative() {
        FlowModel m = FlowModel.mm1(1, 1, 1, 10);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> m.withServiceTime(-1))
                .hasMessage("serviceTime: -1.0 (expected: >= 0)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> m.withServiceTime(Double.NaN))
                .hasMessage("serviceTime: NaN (expected: >= 0)");
    }
}
