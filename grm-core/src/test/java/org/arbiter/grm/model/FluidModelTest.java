package org.arbiter.grm.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

final class FluidModelTest {

    private static final FluidModel.Latency L = new FluidModel.Latency(0.001, 0.1, 0.2);
    private static final FluidModel MODEL = new FluidModel(4, L, 10, FluidModel.Abandon.IMPROVED);

    @Test
    void integration_reachesTheSteadyState_belowTheLimit() {
        FluidModel.State s = MODEL.advance(FluidModel.State.IDLE, 50, 100, 2000);
        FluidModel.State steady = MODEL.steadyState(50, 100);
        assertThat(s.inFlight()).isCloseTo(steady.inFlight(), within(0.05));
        assertThat(s.throughput()).isCloseTo(steady.throughput(), within(0.01));
        assertThat(s.abandon()).isCloseTo(0, within(0.01));
        // Little's law and the closed loop balance at rest
        assertThat(steady.throughput()).isCloseTo(steady.inFlight() / L.at(steady.inFlight()), within(1e-9));
        assertThat(MODEL.incoming(50, steady.inFlight())).isCloseTo(steady.throughput(), within(1e-6));
    }

    @Test
    void atTheLimit_theExcessIsRejected() {
        FluidModel.State s = MODEL.advance(FluidModel.State.IDLE, 120, 30, 3000);
        assertThat(s.inFlight()).isCloseTo(30, within(1e-6));
        double ti = MODEL.incoming(120, 30);
        assertThat(s.abandon()).isCloseTo(1 - (30 / L.at(30)) / ti, within(0.01));
        assertThat(MODEL.steadyState(120, 30).abandon()).isCloseTo(s.abandon(), within(0.01));
    }

    @Test
    void naiveAndImproved_differBelowTheLimit() {
        assertThat(FluidModel.Abandon.NAIVE.steady(20, 40, 5, 10)).isZero();
        assertThat(FluidModel.Abandon.IMPROVED.steady(20, 40, 5, 10)).isCloseTo(0.25, within(1e-12));
        assertThat(FluidModel.Abandon.NAIVE.steady(40, 40, 5, 10)).isCloseTo(0.5, within(1e-12));
        assertThat(FluidModel.Abandon.IMPROVED.steady(40, 40, 5, 10)).isCloseTo(0.5, within(1e-12));
        assertThat(FluidModel.Abandon.IMPROVED.steady(20, 40, 12, 10)).isZero(); // T_o > T_i: nothing rejected
        assertThat(FluidModel.Abandon.IMPROVED.steady(20, 40, 5, 0)).isZero(); // no arrivals
    }

    @Test
    void latencyFit_recoversAQuadratic() {
        double[] n = {1, 5, 10, 20, 40, 80};
        double[] l = new double[n.length];
        for (int i = 0; i < n.length; i++) {
            l[i] = L.at(n[i]);
        }
        FluidModel.Latency fit = FluidModel.Latency.fit(n, l);
        assertThat(fit.a()).isCloseTo(0.001, within(1e-9));
        assertThat(fit.b()).isCloseTo(0.1, within(1e-7));
        assertThat(fit.c()).isCloseTo(0.2, within(1e-6));
    }

    @Test
    void latencyFit_weighsEveryPointByItsRelativeError() {
        // A knee no quadratic follows: flat 0.4 s up to 4, then 0.1 s per request. An absolute fit
        // lets the 10 s point set the curve; the relative one cuts the summed squared relative error by 40 %.
        double[] n = {1, 2, 4, 8, 16, 32, 64, 100};
        double[] l = {0.4, 0.4, 0.4, 0.8, 1.6, 3.2, 6.4, 10};
        FluidModel.Latency fit = FluidModel.Latency.fit(n, l);
        double[] abs = QuadraticLeastSquares.solve(7, n, l, n.length);
        double relFit = 0;
        double relAbs = 0;
        for (int i = 0; i < n.length; i++) {
            relFit += Math.pow((fit.at(n[i]) - l[i]) / l[i], 2);
            double a = abs[0] * n[i] * n[i] + abs[1] * n[i] + abs[2];
            relAbs += Math.pow((a - l[i]) / l[i], 2);
        }
        assertThat(relFit).isLessThan(0.7 * relAbs); // 0.177 against 0.293
    }

    @Test
    void badInputs_areNamed() {
        assertThatIllegalArgumentException().isThrownBy(() -> FluidModel.Latency.fit(new double[] {1, 2, 3}, new double[] {1, 0, 2}))
                .withMessage("point 1: N_e 2.0, L 0.0 (expected: finite, L > 0)");
        assertThatIllegalArgumentException().isThrownBy(() -> new FluidModel(0, L, 10, FluidModel.Abandon.NAIVE))
                .withMessage("thinkSeconds: 0.0 (expected: > 0)");
        assertThatIllegalArgumentException().isThrownBy(() -> new FluidModel.Latency(-1, 0, 1))
                .withMessageContaining("expected: a >= 0");
        assertThatIllegalArgumentException().isThrownBy(() -> FluidModel.Latency.fit(new double[] {1, 2}, new double[] {1, 2}))
                .withMessageContaining("at least 3");
        assertThatIllegalArgumentException().isThrownBy(() -> MODEL.advance(FluidModel.State.IDLE, 10, 0, 1))
                .withMessageContaining("mpl > 0");
    }
}
