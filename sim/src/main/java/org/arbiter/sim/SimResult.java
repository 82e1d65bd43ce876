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
 * @param energyJoules            per server (configuration order): the energy its power model metered
 * @param power                   every report period: servers by power state, watts, load
 */
public record SimResult(List<PhaseResult> phases, List<AllocationPoint> allocations, long simulatedRequests,
                        double wallSeconds, Map<String, Double> energyJoules, List<PowerPoint> power) {

    /**
     * One class in one phase.
     *
     * @param rejected refused by the gateway: queue full, shed by local admission, or queue timeout (503)
     * @param lost     sent to a server that was not on, cut off by a power-off, or held by a server when it failed
     * @param lostToFailure of those, held by a server when it failed (SimScenario.failures)
     */
    public record ClassResult(long sent, long ok, long rejected, double throughputPerSecond, double meanResponseSeconds,
                              double varianceResponseSeconds, long lost, long lostToFailure) {

        /** Rejected, timed out and lost. */
        public long dropped() {
            return rejected + lost;
        }
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

    /**
     * The servers' power at one report instant.
     *
     * @param serversOn            physically ON (serving)
     * @param watts                total draw now
     * @param arrivalRatePerSecond arrivals since the previous point, per second
     * @param capacityPerServer    the GRM's capacity estimate c (0 without a GRM or an estimate)
     * @param forecastRate         the GRM's λ̂ (0 without a GRM)
     * @param dropped              requests rejected, timed out or lost since the previous point
     * @param boots                power-ons so far
     */
    public record PowerPoint(double timeSeconds, int serversOn, int serversBooting, int serversShuttingDown,
                             double watts, double arrivalRatePerSecond, double capacityPerServer, double forecastRate,
                             long dropped, long boots) {
    }

    public double requestsPerWallSecond() {
        return wallSeconds <= 0 ? 0 : simulatedRequests / wallSeconds;
    }

    /** Energy of all servers, joules. */
    public double totalEnergyJoules() {
        return energyJoules.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** Requests sent, over every phase and class. */
    public long sent() {
        return phases.stream().flatMap(p -> p.classes().values().stream()).mapToLong(ClassResult::sent).sum();
    }

    /** Requests rejected, timed out or lost, over every phase and class. */
    public long dropped() {
        return phases.stream().flatMap(p -> p.classes().values().stream()).mapToLong(ClassResult::dropped).sum();
    }

    /** Requests held by a server when it failed, over every phase and class. */
    public long lostToFailure() {
        return phases.stream().flatMap(p -> p.classes().values().stream()).mapToLong(ClassResult::lostToFailure).sum();
    }

    /** Requests lost (sent to a server that was not on, or held by one that failed), over every phase and class. */
    public long lost() {
        return phases.stream().flatMap(p -> p.classes().values().stream()).mapToLong(ClassResult::lost).sum();
    }
}
