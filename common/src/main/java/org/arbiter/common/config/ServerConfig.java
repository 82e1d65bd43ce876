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
 */
public record ServerConfig(String id, URI url, int concurrency, boolean autoConcurrency, PowerModel power,
                           URI adminUrl, SimSpec sim) {

    public ServerConfig {
        requireNonNull(id, "id");
        requireNonNull(url, "url");
        requireNonNull(power, "power");
        requireNonNull(sim, "sim");
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
