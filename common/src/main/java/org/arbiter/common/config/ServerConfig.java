package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.Map;

/**
 * One back-end server.
 *
 * @param id              unique id
 * @param url             base URL, {@code http://host:port}
 * @param concurrency     N_s; for {@code auto} servers the starting value the estimator moves from
 * @param autoConcurrency true when {@code concurrency: auto}
 * @param power           power model in watts (000 §7.5)
 * @param adminUrl        simserver-style admin API for the {@code http} power actuator, or null
 * @param sim             emulation parameters for the simulator and simserver
 * @param control         how the GRM moves N_s when {@code autoConcurrency}
 */
public record ServerConfig(String id, URI url, int concurrency, boolean autoConcurrency, PowerModel power,
                           URI adminUrl, SimSpec sim, ConcurrencyControl control) {

    public ServerConfig {
        requireNonNull(id, "id");
        requireNonNull(url, "url");
        requireNonNull(power, "power");
        requireNonNull(sim, "sim");
        requireNonNull(control, "control");
    }

    /** As above with the default N_s control. */
    public ServerConfig(String id, URI url, int concurrency, boolean autoConcurrency, PowerModel power,
                        URI adminUrl, SimSpec sim) {
        this(id, url, concurrency, autoConcurrency, power, adminUrl, sim, ConcurrencyControl.DEFAULT);
    }

    /**
     * N_s estimation for {@code concurrency: auto} servers (004).
     *
     * @param method            knee (004 eq. 7 fit, 95 % of the peak throughput), amc (eq. 10) or pmc (eq. 13)
     * @param min               never below
     * @param max               never above
     * @param latencyMaxSeconds AM-C's latency bound L_max
     * @param abandonMax        PM-C's abandon-rate bound α_max
     * @param gain              AM-C / PM-C gain γ
     * @param maxStep           most N_s moves in one control period
     * @param hysteresis        least change worth making
     */
    public record ConcurrencyControl(String method, int min, int max, double latencyMaxSeconds, double abandonMax,
                                     double gain, int maxStep, int hysteresis) {
        public static final ConcurrencyControl DEFAULT = new ConcurrencyControl("knee", 1, 100, 2, 0.1, 0.5, 2, 1);

        public ConcurrencyControl {
            requireNonNull(method, "method");
        }
    }

    /** Watts drawn by state: off, booting, idle, fully busy (linear in between). */
    public record PowerModel(double offWatts, double bootWatts, double idleWatts, double busyWatts) {
        public static final PowerModel DEFAULT = new PowerModel(0, 60, 60, 65);
    }

    /**
     * Emulation parameters: a processor-sharing server with {@code cores} virtual CPUs.
     *
     * @param cores             virtual CPUs
     * @param meanDemandSeconds mean service demand of a request
     * @param demandSeconds     per-class mean demand overriding {@code meanDemandSeconds}
     * @param ioFraction        share of the demand that waits without holding CPU
     * @param overhead          efficiency loss per request above the knee
     * @param knee              concurrency above which overhead applies
     */
    public record SimSpec(int cores, double meanDemandSeconds, Map<String, Double> demandSeconds,
                          double ioFraction, double overhead, int knee) {
        public static final SimSpec DEFAULT = new SimSpec(10, 1.0, Map.of(), 0, 0, 10);

        public SimSpec {
            demandSeconds = Map.copyOf(requireNonNull(demandSeconds, "demandSeconds"));
        }
    }
}
