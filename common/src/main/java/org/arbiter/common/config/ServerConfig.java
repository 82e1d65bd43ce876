package org.arbiter.common.config;

import com.fasterxml.jackson.annotation.JsonValue;

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
 * @param health          the gateways' active health check of this server, or {@link HealthCheck#OFF}
 */
public record ServerConfig(String id, URI url, int concurrency, boolean autoConcurrency, PowerModel power,
                           URI adminUrl, SimSpec sim, ConcurrencyControl control, HealthCheck health) {

    public ServerConfig {
        requireNonNull(id, "id");
        requireNonNull(url, "url");
        requireNonNull(power, "power");
        requireNonNull(sim, "sim");
        requireNonNull(control, "control");
        requireNonNull(health, "health");
    }

    /** As above without an active health check. */
    public ServerConfig(String id, URI url, int concurrency, boolean autoConcurrency, PowerModel power,
                        URI adminUrl, SimSpec sim, ConcurrencyControl control) {
        this(id, url, concurrency, autoConcurrency, power, adminUrl, sim, control, HealthCheck.OFF);
    }

    /** As above with the default N_s control. */
    public ServerConfig(String id, URI url, int concurrency, boolean autoConcurrency, PowerModel power,
                        URI adminUrl, SimSpec sim) {
        this(id, url, concurrency, autoConcurrency, power, adminUrl, sim, ConcurrencyControl.DEFAULT, HealthCheck.OFF);
    }

    /**
     * An active health check ({@code servers[].health}): each gateway sends {@code GET path} to the
     * server every {@code intervalSeconds} on a connection of its own; an answer other than 2xx/3xx
     * within {@code timeoutSeconds} counts as a failure toward {@code dispatch.ejection.threshold},
     * and after an ejection's backoff a passing probe (not a client's request) brings the server back.
     *
     * @param path            the request path, starting with {@code /}; empty when off
     * @param intervalSeconds time between probes
     * @param timeoutSeconds  a probe slower than this fails; at most the interval
     */
    public record HealthCheck(String path, double intervalSeconds, double timeoutSeconds) {
        /** No active check: passive ejection only. */
        public static final HealthCheck OFF = new HealthCheck("", 5, 1);

        public HealthCheck {
            requireNonNull(path, "path");
            if (!path.isEmpty() && !path.startsWith("/")) {
                throw new IllegalArgumentException("path: " + path + " (expected: a path starting with /)");
            }
            if (!(intervalSeconds > 0)) {
                throw new IllegalArgumentException("interval: " + intervalSeconds + " (expected: > 0)");
            }
            if (!(timeoutSeconds > 0 && timeoutSeconds <= intervalSeconds)) {
                throw new IllegalArgumentException("timeout: " + timeoutSeconds + " (expected: > 0 and <= interval, "
                        + intervalSeconds + ")");
            }
        }

        /** True when probes are sent. */
        public boolean enabled() {
            return !path.isEmpty();
        }
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
    public record ConcurrencyControl(Method method, int min, int max, double latencyMaxSeconds, double abandonMax,
                                     double gain, int maxStep, int hysteresis) {
        public static final ConcurrencyControl DEFAULT = new ConcurrencyControl(Method.KNEE, 1, 100, 2, 0.1, 0.5, 2, 1);

        public ConcurrencyControl {
            requireNonNull(method, "method");
        }

        /** N_s estimation: knee (004 eq. 7 fit), amc (eq. 10) or pmc (eq. 13). */
        public enum Method implements Choice {
            KNEE("knee"), AMC("amc"), PMC("pmc");

            private final String wireName;

            Method(String wireName) {
                this.wireName = wireName;
            }

            @JsonValue
            @Override
            public String wireName() {
                return wireName;
            }

            @Override
            public String toString() {
                return wireName;
            }
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
