package org.arbiter.grm.concurrency;

/**
 * Chooses a server's concurrency limit N_s (its MPL) from what the gateways measured of it.
 * Decides only; the GRM applies the result as N_s. Core classes: not thread-safe.
 */
public interface ConcurrencyController {

    /**
     * One control period's observation of one server.
     *
     * @param inFlight       N_e, mean requests admitted at the server
     * @param latencySeconds L, mean service time
     * @param throughput     T_o, completions/s
     * @param abandonRate    α, share of requests rejected or abandoned in the period
     * @param arrivalRate    T_i, requests arrived per second (admitted or not); it weighs α when samples are averaged
     */
    record Sample(double inFlight, double latencySeconds, double throughput, double abandonRate, double arrivalRate) {

        /** A sample whose arrival rate is inferred as T_o / (1 − α) (T_o when α ≥ 1). */
        public Sample(double inFlight, double latencySeconds, double throughput, double abandonRate) {
            this(inFlight, latencySeconds, throughput, abandonRate,
                    abandonRate < 1 ? throughput / (1 - Math.max(0, abandonRate)) : throughput);
        }
    }

    /** Takes a sample; returns the limit to use from now on (≥ 1). */
    int update(Sample sample);

    /** The limit in force. */
    int current();

    /**
     * Told by a wrapper (e.g. {@link #bounded}) which limit is actually in force after it clamped
     * this controller's proposal; a law that moves from the limit in force (PM-C) takes it as its
     * base. The default ignores it.
     */
    default void enforced(int limit) {
    }

    /** 004 eq. 7 fitted by least squares; the knee of 003 Fig. 7 (throughput ≥ 95 % of its maximum). */
    static ConcurrencyController ofKnee(int initial, int min, int max) {
        return new KneeFit(initial, min, max, 0.95);
    }

    /** As above; when probing, each point is held for {@code hold} samples (statistics window ÷ period). */
    static ConcurrencyController ofKnee(int initial, int min, int max, int hold) {
        return new KneeFit(initial, min, max, 0.95, hold);
    }

    /** AM-C, 004 eq. 10: keep mean latency at {@code latencyMaxSeconds}. */
    static ConcurrencyController ofLatencyBound(int initial, double latencyMaxSeconds, double gain) {
        return new LatencyBoundControl(initial, latencyMaxSeconds, gain);
    }

    /** PM-C, 004 eq. 13 with the limit in force in place of N_e: keep the abandon rate at {@code abandonMax}. */
    static ConcurrencyController ofAbandonBound(int initial, double abandonMax, double gain) {
        return new AbandonBoundControl(initial, abandonMax, gain);
    }

    /**
     * Wraps a controller: it sees every sample field smoothed exponentially with {@code weight} on
     * the past (0: no smoothing), α as the ratio of the smoothed rejected and arrival rates.
     */
    static ConcurrencyController smoothed(ConcurrencyController inner, double weight) {
        return new Smoothed(inner, weight);
    }

    /** Wraps a controller: result within [min, max], moving at most {@code maxStep} per period, and only by ≥ {@code hysteresis}. */
    static ConcurrencyController bounded(ConcurrencyController inner, int min, int max, int maxStep, int hysteresis) {
        return new Bounded(inner, min, max, maxStep, hysteresis);
    }
}
