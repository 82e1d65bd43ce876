package org.arbiter.sim.experiment;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;

/** The {@code admission} experiment's result (004 §5, Fig. 6-8): AM-C and PM-C on the same workload. */
public record AdmissionResult(Amc amc, Pmc pmc, Setup setup) {

    /** AM-C (004 eq. 10): its latency bound L_max (s), gain γ'_L and run. */
    public record Amc(double latencyMax, double gain, @JsonUnwrapped Run run) {
    }

    /** PM-C (004 eq. 13): its abandon bound α_max, gain γ' and run. */
    public record Pmc(double abandonMax, double gain, @JsonUnwrapped Run run) {
    }

    /**
     * One control law's run.
     *
     * @param meanLatencyAfterConvergence over the completions in every phase's second half, s
     * @param abandonAfterConvergence     rejected / arrived in every phase's second half
     * @param series                      one row per control period
     */
    public record Run(double meanLatencyAfterConvergence, double abandonAfterConvergence, List<Phase> phases,
                      List<Row> series) {

        public Run {
            phases = List.copyOf(phases);
            series = List.copyOf(series);
        }
    }

    /** One phase's second half: mean latency (s), abandon rate, mean limit, throughput (req/s). */
    public record Phase(String name, int clients, double writeShare, double meanLatency, double abandon,
                        double meanLimit, double throughputPerSecond) {
    }

    /** One control period ending at {@code t} (s): the new limit, N_e, mean latency (s), abandon rate. */
    public record Row(double t, int limit, double inFlight, double latency, double abandon) {
    }

    /** The constants of the run (see {@code AdmissionExperiment}'s design note). */
    public record Setup(double secondsPerPhase, double controlSeconds, double smoothing, double thinkSeconds, int cores,
                        double overhead, int knee, double readSeconds, double writeSeconds, Limit limit) {
    }

    /** The limit's bounds and largest step per period. The key order is the documented run's. */
    @JsonPropertyOrder({"maxStep", "min", "initial", "max"})
    public record Limit(int initial, int min, int max, int maxStep) {
    }
}
