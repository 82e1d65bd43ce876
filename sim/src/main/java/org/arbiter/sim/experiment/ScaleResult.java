package org.arbiter.sim.experiment;

import java.util.List;

/**
 * The scale run's result. {@code wallSeconds}, {@code grmWallSeconds},
 * {@code grmMeanSecondsPerPeriod} and {@code simulatedRequestsPerWallSecond} are wall-clock
 * measurements; everything else is fixed by the seed.
 *
 * @param flows          gateways × classes
 * @param slots          servers × N_s
 * @param controlPeriods the GRM steps run
 */
public record ScaleResult(int gateways, int servers, int classes, int flows, int slots, double simulatedSeconds,
                          long simulatedRequests, double wallSeconds, int controlPeriods, double grmWallSeconds,
                          double grmMeanSecondsPerPeriod, long simulatedRequestsPerWallSecond, List<Phase> phases) {

    public ScaleResult {
        phases = List.copyOf(phases);
    }

    /**
     * One load phase, all classes together.
     *
     * @param worstClassMeanResponseSeconds the highest of the classes' mean response times
     * @param predictionError               the GRM's flow-model error over the phase, every flow (predictions
     *                                      made once the phase's first statistics window has passed)
     */
    public record Phase(String name, long sent, long ok, long rejected, double throughputPerSecond,
                        double worstClassMeanResponseSeconds, PredictionError predictionError) {
    }
}
