package org.arbiter.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.arbiter.sim.experiment.ConcurrencyResult;
import org.arbiter.sim.experiment.PhasesResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 003 Fig. 7 live, shortened: a real broker, gateway and simserver on loopback, 3 s of wall time per
 * point. The knee's position and the throughput at each N_s are figures: the simulator's
 * ExperimentsTest pins them and docs/experiments.md documents a live run. A loaded machine adds
 * latency to every request's trip through the gateway and so lowers every point (a loaded CI
 * measured 0.83 req/s at N_s = 2, where the model says 2), so this test asserts what holds under
 * any load: no point exceeds what N_s slots can serve (a simserver in virtual time cannot run
 * faster than its model, load only slows it), and five times the slots serve more.
 */
final class LiveExperimentsTest {

    /** The simserver's mean demand, in paper seconds, and its knee (10 virtual cores). */
    private static final double DEMAND_SECONDS = 1;
    private static final int KNEE = 10;
    /**
     * Sampling noise of a 150 paper-second point: at N_s = 2 about 300 completions of Exp(1 s)
     * demands, whose mean varies by about 6 % (one standard deviation); 30 % is five of them.
     */
    private static final double NOISE = 1.3;

    @TempDir
    Path work;

    @Test
    void liveConcurrency_neverExceedsWhatTheSlotsServe_andMoreSlotsServeMore() throws Exception {
        int[] ns = {2, 10, 30};
        ConcurrencyResult r = LiveExperiments.concurrency(1, 150, 0.02, work, System.out::println, ns);
        List<ConcurrencyResult.Point> points = r.points();
        assertThat(points).hasSize(ns.length);
        double[] x = new double[ns.length];
        for (int i = 0; i < ns.length; i++) {
            x[i] = points.get(i).throughput();
            double bound = Math.min(ns[i], KNEE) / DEMAND_SECONDS;
            assertThat(x[i]).as("N_s = %d: req/s (paper units), at most %s by the model", ns[i], bound)
                    .isPositive().isLessThanOrEqualTo(NOISE * bound);
        }
        // The model: 5 times the throughput at N_s = 10 as at 2; a loaded machine's extra latency
        // per request scales both alike.
        assertThat(x[1]).as("N_s = 10 against N_s = 2").isGreaterThan(2 * x[0]);
        assertThat(r.knee()).isIn(10, 30);
    }

    /**
     * Issue 19: every experiment's result reports the flow model's prediction error per phase, live
     * too. Four phases of 300 paper seconds at scale 0.02 (6 s of wall time each): each phase leaves
     * predictions made after its first 30 s statistics window that are checked one window later
     * within the phase, while the weight stays as chosen. In B the weights move between 5 and 6 slots
     * (the optimum lies between them), so few predictions stand a whole window: 12-20 here, and with
     * 150 s phases 0-10 (it failed once in three). Asserted: every phase has checked predictions and a
     * finite mean error; how large it is is a figure (docs/experiments.md), not a property of a 6 s
     * phase on a loaded machine.
     */
    @Test
    void livePhases_reportThePredictionErrorOfEveryPhase() throws Exception {
        List<PhasesResult.Phase> phases = LiveExperiments.phases(1, 300, 0.02, work, System.out::println);
        assertThat(phases).extracting(PhasesResult.Phase::name).containsExactly("A", "B", "C", "D");
        for (PhasesResult.Phase p : phases) {
            assertThat(p.predictionError()).as("phase %s", p.name()).isNotNull();
            assertThat(p.predictionError().samples()).as("phase %s: predictions checked", p.name()).isPositive();
            assertThat(p.predictionError().meanAbs()).as("phase %s", p.name()).isNotNull()
                    .isGreaterThanOrEqualTo(0).isLessThan(Double.POSITIVE_INFINITY);
            assertThat(Math.abs(p.predictionError().meanSigned())).as("phase %s: |mean signed| <= mean |e|", p.name())
                    .isLessThanOrEqualTo(p.predictionError().meanAbs() + 1e-9);
        }
    }
}
