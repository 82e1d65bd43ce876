package org.arbiter.sim.experiment;

import java.util.List;

/**
 * The {@code phases} experiment's result (003 Fig. 8-12).
 *
 * @param phases                         one row per phase, A to D
 * @param simulatedRequestsPerWallSecond the simulator's speed (wall clock, so it varies between runs)
 */
public record PhasesResult(List<Phase> phases, long simulatedRequestsPerWallSecond) {

    public PhasesResult {
        phases = List.copyOf(phases);
    }

    /**
     * One phase; every figure rounded by {@link Experiments#round}.
     *
     * @param weights             w(g1, c) averaged over the phase's second half
     * @param meanResponseSeconds per class, s
     * @param throughputPerSecond both classes, req/s
     * @param utility             each class's utility (eq. 7) at its mean response time
     */
    public record Phase(String name, PerClass<Integer> clients, PerClass<Double> weights,
                        PerClass<Double> meanResponseSeconds, double throughputPerSecond, PerClass<Double> utility) {
    }
}
