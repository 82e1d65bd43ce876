package org.arbiter.grm.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** 001 §4 Step 1-3 and Fig. 2's PI term, and how FlowModel.liu carries them into 003 eq. 9. */
final class LiuControlTest {

    @Test
    void stepThree_isTheModelTermPlusKTimesTheQueueError() {
        // λ̂ = 4/s, D_ref = 0.5 s: l_targeted = 2; l = 5, K = 2/D_ref = 4/s → μ = (2 + 4) + 4·3 = 18
        assertThat(LiuControl.serviceRate(4, 5, 0.5, 2)).isCloseTo(18, within(1e-12));
        // two-sided: a queue below its target lowers μ under the model's 1/D_ref + λ̂
        assertThat(LiuControl.serviceRate(4, 0, 0.5, 2)).isCloseTo(6 - 8, within(1e-12));
        assertThat(LiuControl.modelServiceRate(4, 0.5)).isCloseTo(6, within(1e-12));
    }

    @Test
    void withKOfOneOverDref_theRateIsTheQueuePlusOneOverDref_whateverTheArrivalRate() {
        for (double lambda : new double[] {0, 0.3, 7, 1000}) {
            assertThat(LiuControl.serviceRate(lambda, 9, 2, 1)).isCloseTo(10 / 2.0, within(1e-9));
        }
    }

    @Test
    void pi_pushesUpWhenSlow_holdsWhenNothingIsMeasured_andItsIntegralIsBounded() {
        LiuControl.Pi pi = new LiuControl.Pi(0.5, 0.5);
        // ε = (3 − 2)/2 = 0.5, I = 0.5·1/2 = 0.25 → Δμ = (0.5·0.5 + 0.5·0.25)/2
        assertThat(pi.update(3, 2, 1)).isCloseTo(0.1875, within(1e-12));
        assertThat(pi.update(Double.NaN, 2, 1)).as("nothing measured: the integral part only")
                .isCloseTo(0.5 * 0.25 / 2, within(1e-12));
        LiuControl.Pi fast = new LiuControl.Pi(0, 1);
        double d = 0;
        for (int i = 0; i < 1000; i++) {
            d = fast.update(0, 2, 1);
        }
        assertThat(d).as("anti-windup: |ki·I| <= 1, so Δμ >= -1/D_ref").isCloseTo(-0.5, within(1e-12));
        assertThat(fast.update(4, 2, 1)).as("recovers at once when the error turns").isGreaterThan(-0.5);
    }

    @Test
    void freeAbovePi_integratesPastTheUpperBound_asFig1sLoopNeedsUnderBurstyLoad() {
        LiuControl.Pi free = LiuControl.Pi.freeAbove(0, 1);
        double d = 0;
        for (int i = 0; i < 1000; i++) {
            d = free.update(4, 2, 1);
        }
        // ε = 1 per update, I = 1000 · 1/2 = 500 → Δμ = 500/2; the bounded one stops at 1/D_ref
        assertThat(d).isCloseTo(250, within(1e-9));
        assertThat(free.update(Double.NaN, 2, 1)).as("nothing measured: the integral part only").isCloseTo(250, within(1e-9));
        assertThatThrownBy(() -> LiuControl.Pi.freeAbove(-1, 0)).hasMessage("kp: -1.0 (expected: >= 0)");
    }

    @Test
    void freeAbovePi_neverWindsBelowThePredictorsHeadroom() {
        LiuControl.Pi free = LiuControl.Pi.freeAbove(0, 1);
        double d = 0;
        for (int i = 0; i < 10_000; i++) {
            d = free.update(0.5, 2, 1); // delays a quarter of D_ref for hours: ε = −0.75 each time
        }
        // ki·I stops at −1: Δμ = −1/D_ref, so μ = 1/D_ref + λ̂ + Δμ stays at λ̂, never under the arrivals
        assertThat(d).isCloseTo(-0.5, within(1e-12));
        // and a burst (delay 10 × D_ref) turns it positive within a few updates, not thousands
        double up = 0;
        for (int i = 0; i < 3; i++) {
            up = free.update(20, 2, 1);
        }
        assertThat(up).isGreaterThan(0);
    }

    @Test
    void flowModelLiu_predictsTheTargetWhereItsWeightBuys001sRate() {
        // μ₁ = 1/t̃ + λ̃/w̃ = 1/0.5 + 4/1 = 6 per unit of weight; 001 asks for μ = 1/D + λ̂ + K(l − λ̂D)
        double target = 0.5;
        FlowModel m = FlowModel.liu(4, 0.5, 1, 100, 5, target, 1, 0);
        double mu = LiuControl.serviceRate(4, 5, target, 1);
        assertThat(m.serviceRateFor(target)).isCloseTo(mu, within(1e-12));
        double wStar = m.predictionArrivalRate() / (m.mu() - 1 / target);
        assertThat(m.predict(wStar)).isCloseTo(target, within(1e-9));
        // the PI term adds to the rate
        assertThat(FlowModel.liu(4, 0.5, 1, 100, 5, target, 1, 0.7).serviceRateFor(target))
                .isCloseTo(mu + 0.7, within(1e-12));
        // never below the idle rate: λ is clamped at 0
        assertThat(FlowModel.liu(4, 0.5, 1, 100, 0, target, 3, 0).predictionArrivalRate()).isZero();
        // the queue-length mode is one-sided: a short queue changes nothing
        assertThat(FlowModel.queueLength(4, 0.5, 1, 100, 0, 5, 1).predictionArrivalRate()).isEqualTo(4);
    }

    @Test
    void badArguments_areNamed() {
        assertThatThrownBy(() -> LiuControl.serviceRate(1, 1, 0, 1)).hasMessage("target: 0.0 (expected: > 0)");
        assertThatThrownBy(() -> new LiuControl.Pi(-1, 0)).hasMessage("kp: -1.0 (expected: >= 0)");
        assertThatThrownBy(() -> new LiuControl.Pi(0, Double.NaN)).hasMessage("ki: NaN (expected: >= 0)");
    }
}
