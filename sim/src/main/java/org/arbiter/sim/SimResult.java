package org.arbiter.sim;

import java.util.List;
import java.util.Map;

/**
 * What a simulation measured.
 *
 * @param phases                  per phase, per class
 * @param allocations             every control period: time and w(g,c)
 * @param simulatedRequests       requests completed or dropped
 * @param wallSeconds             how long the simulation took
 */
public record SimResult(List<PhaseResult> phases, List<AllocationPoint> allocations, long simulatedRequests,
                        double wallSeconds) {

    /** One class in one phase. */
    public record ClassResult(long sent, long ok, long rejected, double throughputPerSecond, double meanResponseSeconds,
                              double varianceResponseSeconds) {
    }

    /**
     * @param weightsSecondHalf per gateway, per class: w(g,c) averaged over the phase's second half
     */
    public record PhaseResult(String name, double startSeconds, double endSeconds, Map<String, ClassResult> classes,
                              Map<String, Map<String, Double>> weightsSecondHalf) {
    }

    /** The allocation a period produced. */
    public record AllocationPoint(double timeSeconds, long version, Map<String, Map<String, Double>> weights,
                                  Map<String, Map<String, Integer>> caps) {
    }

    public double requestsPerWallSecond() {
        return wallSeconds <= 0 ? 0 : simulatedRequests / wallSeconds;
    }
}
