package org.arbiter.sim.experiment;

import java.util.List;

/**
 * The {@code fluid} experiment's result (004 Fig. 3-5): the fluid model (eq. 4-7) against the
 * simulated server.
 *
 * @param fit      004 eq. 7 fitted to {@code latency}
 * @param latency  Fig. 4: measured (N_e, L) without a limit
 * @param abandon  Fig. 3: measured α against the naive and improved ᾱ, and the model's steady state, at MPL = setup.sweepMpl
 * @param dynamics Fig. 5: per 10 s period, measured against modelled N_e, T_o, α
 * @param errors   Fig. 5's errors
 */
public record FluidResult(Fit fit, List<LatencyPoint> latency, List<AbandonPoint> abandon, List<DynamicsRow> dynamics,
                          Errors errors, Setup setup) {

    public FluidResult {
        latency = List.copyOf(latency);
        abandon = List.copyOf(abandon);
        dynamics = List.copyOf(dynamics);
    }

    /** L = a N_e² + b N_e + c (s) and its root-mean-square error over the points (s). */
    public record Fit(double a, double b, double c, double rmsError) {
    }

    /** {@code clients} without a limit: mean N_e and mean latency (s). */
    public record LatencyPoint(int clients, double inFlight, double latency) {
    }

    /**
     * {@code clients} at the sweep's MPL: measured α; ᾱ naive and improved evaluated on the measured
     * N_e, T_o, T_i; measured and modelled (steady state) N_e and T_o (req/s); measured T_i (req/s).
     */
    public record AbandonPoint(int clients, double measured, double naive, double improved, double inFlight,
                               double modelInFlight, double throughput, double modelThroughput, double incoming) {
    }

    /** The period ending at {@code t} (s) with inputs N and MPL: measured and modelled N_e, T_o (req/s), α. */
    public record DynamicsRow(double t, int clients, int mpl, double inFlight, double modelInFlight, double throughput,
                              double modelThroughput, double abandon, double modelAbandon) {
    }

    /** Mean absolute error and relative error (mean absolute error over the mean measured value). */
    public record Error(double meanAbsolute, double relative) {
    }

    /** Fig. 5's errors for N_e, T_o and α. */
    public record Errors(Error inFlight, Error throughput, Error abandon) {
    }

    /** The constants of the run (see {@code FluidExperiment}'s design note). */
    public record Setup(double pointSeconds, double segmentSeconds, double thinkSeconds, int cores, int knee, String mix, double deltaSeconds,
                        double periodSeconds, int sweepMpl) {
    }
}
