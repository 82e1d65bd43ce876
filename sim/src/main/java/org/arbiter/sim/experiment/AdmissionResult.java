package org.arbiter.sim.experiment;

import java.util.List;

/**
 * The {@code admission} experiment's result (004 §5, Fig. 6-8): per scenario, the server without a
 * concurrency limit, under AM-C and under PM-C, on the same workload.
 */
@com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
public record AdmissionResult(Amc amc, Pmc pmc, List<Scenario> scenarios, Setup setup) {

    public AdmissionResult {
        scenarios = List.copyOf(scenarios);
    }

    /** AM-C (004 eq. 10): its latency bound L_max (s), gain γ'_L (1/s), and the gain of {@code amcFast}. */
    public record Amc(double latencyMax, double gain, double fastGain) {
    }

    /** PM-C (004 eq. 13, moved from the limit in force): its abandon bound α_max and gain γ'. */
    public record Pmc(double abandonMax, double gain) {
    }

    /**
     * One scenario ("mix": M1 → M2 → M1 at N = 80; "amount": M1 with N stepping up; "clients": M1 at N = 10 …
     * 100, 004 Fig. 7's "below 5 % up to 75 clients") and its runs: AM-C at 004's gain, and at the project's
     * former 0.3 beside it ({@code amcFast}).
     */
    public record Scenario(String name, Run uncontrolled, Run amc, Run pmc, Run amcFast) {

        /** Without the second AM-C run. */
        public Scenario(String name, Run uncontrolled, Run amc, Run pmc) {
            this(name, uncontrolled, amc, pmc, null);
        }
    }

    /**
     * One run.
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

    /** One phase's second half: mean latency (s), abandon rate, mean limit (at most N), throughput (req/s). */
    public record Phase(String name, int clients, String mix, double meanLatency, double abandon, double meanLimit,
                        double throughputPerSecond) {
    }

    /** One control period ending at {@code t} (s): N, the limit in force (at most N), N_e, mean latency (s), abandon rate. */
    public record Row(double t, int clients, int limit, double inFlight, double latency, double abandon) {
    }

    /** A mix: demand Exp(lightSeconds) with probability lightShare, else Exp(heavySeconds); contention per request above the knee. */
    public record Mix(String name, String kind, double lightShare, double lightSeconds, double heavySeconds,
                      double contention) {
    }

    /** The constants of the run (see {@code AdmissionExperiment}'s design note). */
    public record Setup(double secondsPerPhase, double controlSeconds, double smoothing, double thinkSeconds, int cores,
                        int knee, List<Mix> mixes, Limit limit) {

        public Setup {
            mixes = List.copyOf(mixes);
        }
    }

    /** The limit's start, bounds and largest step per period. */
    public record Limit(int initial, int min, int max, int maxStep) {
    }
}
