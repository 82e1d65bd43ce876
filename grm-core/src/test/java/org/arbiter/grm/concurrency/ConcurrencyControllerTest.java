package org.arbiter.grm.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

final class ConcurrencyControllerTest {

    /** 003 Fig. 7-like server: 10 cores, 1 s demand, 5 % efficiency loss per request above 10. */
    static double latency(double n) {
        double eff = 1 / (1 + 0.05 * Math.max(0, n - 10));
        return n <= 10 ? 1.0 : n / (10 * eff);
    }

    @Test
    void kneeFit_findsTheKneeOfTheThroughputCurve() {
        ConcurrencyController k = ConcurrencyController.ofKnee(4, 1, 30);
        Random rnd = new Random(3);
        for (int i = 0; i < 60; i++) {
            double n = 1 + rnd.nextInt(30);
            k.update(new ConcurrencyController.Sample(n, latency(n) * (0.97 + 0.06 * rnd.nextDouble()), n / latency(n), 0));
        }
        assertThat(k.current()).isBetween(7, 11);
    }

    @Test
    void knee_ofAnExactQuadratic() {
        // L = 0.01N² + 0 N + 1: X = N/(0.01N² + 1) peaks at N = 10 with X = 5.
        assertThat(KneeFit.knee(0.01, 0, 1, 1, 30, 0.95)).isEqualTo(8); // 8/1.64 = 4.88 ≥ 4.75 > 7/1.49
        assertThat(KneeFit.knee(0.01, 0, 1, 1, 30, 1.0)).isEqualTo(10);
    }

    @Test
    void amc_holdsLatencyAtItsBound() {
        ConcurrencyController c = ConcurrencyController.ofLatencyBound(30, 2.0, 0.5);
        double mpl = 30;
        double l = 0;
        for (int i = 0; i < 50; i++) {
            l = 0.1 * mpl; // latency grows with admitted concurrency
            mpl = c.update(new ConcurrencyController.Sample(mpl, l, mpl / l, 0));
        }
        assertThat(0.1 * mpl).isCloseTo(2.0, within(0.2));
    }

    @Test
    void pmc_holdsAbandonRateNearItsBound() {
        ConcurrencyController c = ConcurrencyController.bounded(ConcurrencyController.ofAbandonBound(5, 0.1, 0.3), 1, 100, 2, 1);
        double offered = 40; // clients that want in; those beyond the limit abandon
        double mpl = 5;
        double sum = 0;
        for (int i = 0; i < 300; i++) {
            double abandon = Math.max(0, 1 - mpl / offered);
            if (i >= 200) {
                sum += abandon;
            }
            mpl = c.update(new ConcurrencyController.Sample(Math.min(mpl, offered), 1, mpl, abandon));
        }
        assertThat(sum / 100).isCloseTo(0.1, within(0.03));
    }

    /** The bias of eq. 13 as derived: with N_e below the limit (ρ = 0.8) it rests above α_max; moved from the limit, it does not. */
    @Test
    void pmc_restsAtItsBound_whenNeStaysBelowTheLimit() {
        ConcurrencyController c = ConcurrencyController.bounded(ConcurrencyController.ofAbandonBound(20, 0.1, 0.3), 1, 500, 5, 1);
        double offered = 100; // arrivals find the server full with probability 1 − limit/offered
        double sum = 0;
        for (int i = 0; i < 400; i++) {
            double abandon = Math.max(0, 1 - c.current() / offered);
            if (i >= 300) {
                sum += abandon;
            }
            c.update(new ConcurrencyController.Sample(0.8 * c.current(), 1, c.current(), abandon));
        }
        assertThat(sum / 100).isCloseTo(0.1, within(0.011));
    }

    @Test
    void pmc_smallLimit_stillRises() {
        ConcurrencyController c = ConcurrencyController.ofAbandonBound(1, 0.1, 0.3);
        assertThat(c.update(new ConcurrencyController.Sample(1, 0.3, 2, 0.6))).isEqualTo(2); // 1 × 0.6/0.45 rounds up
    }

    @Test
    void smoothed_weighsAbandonByArrivals() {
        ConcurrencyController.Sample[] seen = new ConcurrencyController.Sample[1];
        ConcurrencyController inner = new ConcurrencyController() {
            @Override
            public int update(Sample s) {
                seen[0] = s;
                return 1;
            }

            @Override
            public int current() {
                return 1;
            }
        };
        ConcurrencyController c = ConcurrencyController.smoothed(inner, 0.5);
        c.update(new ConcurrencyController.Sample(1, 1, 1, 0.0, 10));
        c.update(new ConcurrencyController.Sample(1, 1, 1, 0.5, 30)); // 15 rejected of 40 arrivals over the two
        assertThat(seen[0].abandonRate()).isCloseTo(15.0 / 40, within(1e-12));
    }

    @Test
    void bounded_clampsStepsAndIgnoresSmallMoves() {
        ConcurrencyController inner = ConcurrencyController.ofLatencyBound(10, 1.0, 1.0);
        ConcurrencyController b = ConcurrencyController.bounded(inner, 2, 20, 3, 2);
        assertThat(b.update(new ConcurrencyController.Sample(10, 0.2, 50, 0))).isEqualTo(13); // wants 50 → +3
        assertThat(b.update(new ConcurrencyController.Sample(13, 1.0, 13, 0))).isEqualTo(13); // wants 13: no move
        assertThat(b.update(new ConcurrencyController.Sample(14, 1.0, 13, 0))).isEqualTo(13); // wants 14: < hysteresis
        assertThat(b.update(new ConcurrencyController.Sample(1, 100, 0.01, 0))).isEqualTo(10); // wants 1 → −3
    }

    @Test
    void smoothed_feedsTheInnerAnExponentialAverage() {
        ConcurrencyController.Sample[] seen = new ConcurrencyController.Sample[1];
        ConcurrencyController inner = new ConcurrencyController() {
            @Override
            public int update(Sample s) {
                seen[0] = s;
                return 7;
            }

            @Override
            public int current() {
                return 7;
            }
        };
        ConcurrencyController c = ConcurrencyController.smoothed(inner, 0.75);
        assertThat(c.update(new ConcurrencyController.Sample(10, 2, 5, 0.4))).isEqualTo(7);
        assertThat(seen[0]).isEqualTo(new ConcurrencyController.Sample(10, 2, 5, 0.4)); // the first passes unchanged
        c.update(new ConcurrencyController.Sample(20, 6, 9, 0));
        assertThat(seen[0].inFlight()).isCloseTo(12.5, within(1e-12));
        assertThat(seen[0].latencySeconds()).isCloseTo(3, within(1e-12));
        assertThat(seen[0].throughput()).isCloseTo(6, within(1e-12));
        // α weighs each period by its arrivals (T_o/(1 − α): 25/3 then 9): 0.75·(0.4·25/3) / (0.75·25/3 + 0.25·9)
        assertThat(seen[0].abandonRate()).isCloseTo(2.5 / 8.5, within(1e-12));
        assertThat(c.current()).isEqualTo(7);
    }

    @Test
    void smoothed_rejectsAWeightOutside0To1() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> ConcurrencyController.smoothed(ConcurrencyController.ofKnee(1, 1, 2), 1))
                .withMessage("weight: 1.0 (expected: 0 <= x < 1)");
    }
}
