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
 * @param loadUrl         where random-poll asks the server for its load ({@code GET} → {@code {"active": n, "queued": m}}), or null
 * @param adaptiveLimit   {@code concurrency: gradient2 | vegas}: each gateway adapts its own cap on the server with
 *                        Netflix's concurrency-limits instead of following N(g,s); null for a fixed or {@code auto} N_s
 */
public record ServerConfig(String id, URI url, int concurrency, boolean autoConcurrency, PowerDraw power,
                           URI adminUrl, SimSpec sim, ConcurrencyControl control, HealthCheck health, URI loadUrl,
                           AdaptiveLimit adaptiveLimit) {

    /** The default {@code concurrency}, N_s (also where an {@code auto} server starts). */
    public static final int DEFAULT_CONCURRENCY = 10;

    public ServerConfig {
        requireNonNull(id, "id");
        requireNonNull(url, "url");
        requireNonNull(power, "power");
        requireNonNull(sim, "sim");
        requireNonNull(control, "control");
        requireNonNull(health, "health");
        if (adaptiveLimit != null && autoConcurrency) {
            throw new IllegalArgumentException("concurrency: auto and an adaptive limit (expected: one of them)");
        }
    }

    /** As above with a fixed or {@code auto} N_s (no adaptive limit). */
    public ServerConfig(String id, URI url, int concurrency, boolean autoConcurrency, PowerDraw power,
                        URI adminUrl, SimSpec sim, ConcurrencyControl control, HealthCheck health, URI loadUrl) {
        this(id, url, concurrency, autoConcurrency, power, adminUrl, sim, control, health, loadUrl, null);
    }

    /**
     * An adaptive per-gateway cap ({@code concurrency: gradient2 | vegas}, {@code adaptiveLimit}): the library's
     * limit, fed by each gateway's own completions, starting at {@code initial} and kept within
     * [{@code min}, {@code max}].
     */
    public record AdaptiveLimit(Algorithm algorithm, int initial, int min, int max) {
        public static final int DEFAULT_INITIAL = 20;
        public static final int DEFAULT_MIN = 1;
        public static final int DEFAULT_MAX = 200;

        public AdaptiveLimit {
            requireNonNull(algorithm, "algorithm");
            if (min < 1 || max < min || initial < min || initial > max) {
                throw new IllegalArgumentException("adaptiveLimit: initial " + initial + ", min " + min + ", max " + max
                        + " (expected: 1 <= min <= initial <= max)");
            }
        }

        /** The library's defaults (initial 20, min 1, max 200). */
        public static AdaptiveLimit of(Algorithm algorithm) {
            return new AdaptiveLimit(algorithm, DEFAULT_INITIAL, DEFAULT_MIN, DEFAULT_MAX);
        }

        /** Gradient2 (latency gradient, long- against short-term RTT) or Vegas (estimated queue size). */
        public enum Algorithm implements Choice {
            GRADIENT2("gradient2"), VEGAS("vegas");

            private final String wireName;

            Algorithm(String wireName) {
                this.wireName = wireName;
            }

            @Override
            @JsonValue
            public String wireName() {
                return wireName;
            }
        }
    }

    /** As above without a load URL. */
    public ServerConfig(String id, URI url, int concurrency, boolean autoConcurrency, PowerDraw power,
                        URI adminUrl, SimSpec sim, ConcurrencyControl control, HealthCheck health) {
        this(id, url, concurrency, autoConcurrency, power, adminUrl, sim, control, health, null);
    }

    /** As above without an active health check. */
    public ServerConfig(String id, URI url, int concurrency, boolean autoConcurrency, PowerDraw power,
                        URI adminUrl, SimSpec sim, ConcurrencyControl control) {
        this(id, url, concurrency, autoConcurrency, power, adminUrl, sim, control, HealthCheck.OFF);
    }

    /** As above with the default N_s control. */
    public ServerConfig(String id, URI url, int concurrency, boolean autoConcurrency, PowerDraw power,
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

        public ConcurrencyControl {
            requireNonNull(method, "method");
        }

        /**
         * Every default, as {@link ConfigLoader} applies them: knee, 1..100, L_max 2 s, α_max 0.1, γ 0.5, steps
         * of at most 2, hysteresis 1.
         */
        public static final ConcurrencyControl DEFAULT = builder().build();

        /** A builder starting from the defaults (see {@link Builder}). */
        public static Builder builder() {
            return new Builder();
        }

        /** A builder starting from this configuration. */
        public Builder toBuilder() {
            return new Builder().method(method).min(min).max(max).latencyMaxSeconds(latencyMaxSeconds)
                    .abandonMax(abandonMax).gain(gain).maxStep(maxStep).hysteresis(hysteresis);
        }

        /**
         * Builds a {@link ConcurrencyControl}; every setter's Javadoc gives the default, the value {@link ConfigLoader}
         * applies when the key is absent. {@link #build()} checks what the record checks. Not thread-safe.
         */
        public static final class Builder {
            private Method method = ServersSection.CC_METHOD.defaultValue();
            private int min = ServersSection.CC_MIN.defaultValue();
            private int max = ServersSection.CC_MAX.defaultValue();
            private double latencyMaxSeconds = ServersSection.CC_LATENCY_MAX.defaultValue();
            private double abandonMax = ServersSection.CC_ABANDON_MAX.defaultValue();
            private double gain = ServersSection.CC_GAIN.defaultValue();
            private int maxStep = ServersSection.CC_MAX_STEP.defaultValue();
            private int hysteresis = ServersSection.CC_HYSTERESIS.defaultValue();

            private Builder() {
            }

            /** {@code method}; default knee. */
            public Builder method(Method method) {
                this.method = method;
                return this;
            }

            /** {@code min}; default 1. */
            public Builder min(int min) {
                this.min = min;
                return this;
            }

            /** {@code max}; default 100. */
            public Builder max(int max) {
                this.max = max;
                return this;
            }

            /** {@code latencyMax}, AM-C's L_max; default 2 s. */
            public Builder latencyMaxSeconds(double latencyMaxSeconds) {
                this.latencyMaxSeconds = latencyMaxSeconds;
                return this;
            }

            /** {@code abandonMax}, PM-C's α_max; default 0.1. */
            public Builder abandonMax(double abandonMax) {
                this.abandonMax = abandonMax;
                return this;
            }

            /** {@code gain}, γ; default 0.5. */
            public Builder gain(double gain) {
                this.gain = gain;
                return this;
            }

            /** {@code maxStep}; default 2. */
            public Builder maxStep(int maxStep) {
                this.maxStep = maxStep;
                return this;
            }

            /** {@code hysteresis}; default 1. */
            public Builder hysteresis(int hysteresis) {
                this.hysteresis = hysteresis;
                return this;
            }

            public ConcurrencyControl build() {
                return new ConcurrencyControl(method, min, max, latencyMaxSeconds, abandonMax, gain, maxStep,
                        hysteresis);
            }
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
    public record PowerDraw(double offWatts, double bootWatts, double idleWatts, double busyWatts) {
        public static final PowerDraw DEFAULT = new PowerDraw(ServersSection.POWER_OFF.defaultValue(),
                ServersSection.POWER_BOOT.defaultValue(), ServersSection.POWER_IDLE.defaultValue(),
                ServersSection.POWER_BUSY.defaultValue());
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

        public SimSpec {
            demandSeconds = Map.copyOf(requireNonNull(demandSeconds, "demandSeconds"));
        }

        /**
         * Every default, as {@link ConfigLoader} applies them: a processor-sharing server of 10 cores, demand 1
         * s, no I/O, no overhead, knee 10.
         */
        public static final SimSpec DEFAULT = builder().build();

        /** A builder starting from the defaults (see {@link Builder}). */
        public static Builder builder() {
            return new Builder();
        }

        /** A builder starting from this configuration. */
        public Builder toBuilder() {
            return new Builder().cores(cores).meanDemandSeconds(meanDemandSeconds).demandSeconds(demandSeconds)
                    .ioFraction(ioFraction).overhead(overhead).knee(knee);
        }

        /**
         * Builds a {@link SimSpec}; every setter's Javadoc gives the default, the value {@link ConfigLoader}
         * applies when the key is absent. {@link #build()} checks what the record checks. Not thread-safe.
         */
        public static final class Builder {
            private int cores = ServersSection.SIM_CORES.defaultValue();
            private double meanDemandSeconds = ServersSection.SIM_MEAN_DEMAND.defaultValue();
            private Map<String, Double> demandSeconds = Map.of();
            private double ioFraction = ServersSection.SIM_IO_FRACTION.defaultValue();
            private double overhead = ServersSection.SIM_OVERHEAD.defaultValue();
            private int knee = ServersSection.SIM_KNEE.defaultValue();

            private Builder() {
            }

            /** {@code cores}; default 10. */
            public Builder cores(int cores) {
                this.cores = cores;
                return this;
            }

            /** {@code meanDemand}; default 1 s. */
            public Builder meanDemandSeconds(double meanDemandSeconds) {
                this.meanDemandSeconds = meanDemandSeconds;
                return this;
            }

            /** {@code demand}, per class; default none. */
            public Builder demandSeconds(Map<String, Double> demandSeconds) {
                this.demandSeconds = demandSeconds;
                return this;
            }

            /** {@code ioFraction}; default 0. */
            public Builder ioFraction(double ioFraction) {
                this.ioFraction = ioFraction;
                return this;
            }

            /** {@code overhead}; default 0. */
            public Builder overhead(double overhead) {
                this.overhead = overhead;
                return this;
            }

            /** {@code knee}; default 10. */
            public Builder knee(int knee) {
                this.knee = knee;
                return this;
            }

            public SimSpec build() {
                return new SimSpec(cores, meanDemandSeconds, demandSeconds, ioFraction, overhead, knee);
            }
        }
    }

    /** A builder starting from the defaults with the required id, url (see {@link Builder}). */
    public static Builder builder(String id, URI url) {
        return new Builder(id, url);
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder(id, url).concurrency(concurrency).autoConcurrency(autoConcurrency).power(power)
                .adminUrl(adminUrl).sim(sim).control(control).health(health).loadUrl(loadUrl)
                .adaptiveLimit(adaptiveLimit);
    }

    /**
     * Builds a {@link ServerConfig}; every setter's Javadoc gives the default, the value {@link ConfigLoader}
     * applies when the key is absent. {@link #build()} checks what the record checks. Not thread-safe.
     */
    public static final class Builder {
        private final String id;
        private final URI url;
        private int concurrency = DEFAULT_CONCURRENCY;
        private boolean autoConcurrency = false;
        private PowerDraw power = PowerDraw.DEFAULT;
        private URI adminUrl = null;
        private SimSpec sim = SimSpec.DEFAULT;
        private ConcurrencyControl control = ConcurrencyControl.DEFAULT;
        private HealthCheck health = HealthCheck.OFF;
        private URI loadUrl = null;
        private AdaptiveLimit adaptiveLimit = null;

        private Builder(String id, URI url) {
            this.id = requireNonNull(id, "id");
            this.url = requireNonNull(url, "url");
        }

        /** {@code concurrency}, N_s; default 10 (also the starting value of an auto server). */
        public Builder concurrency(int concurrency) {
            this.concurrency = concurrency;
            return this;
        }

        /** {@code concurrency: auto}; default false. */
        public Builder autoConcurrency(boolean autoConcurrency) {
            this.autoConcurrency = autoConcurrency;
            return this;
        }

        /** {@code power}; default {@link PowerDraw#DEFAULT} (0, 60, 60, 65 W). */
        public Builder power(PowerDraw power) {
            this.power = power;
            return this;
        }

        /** {@code adminUrl}; default none. */
        public Builder adminUrl(URI adminUrl) {
            this.adminUrl = adminUrl;
            return this;
        }

        /** {@code sim}; default {@link SimSpec#DEFAULT} (10 cores, demand 1 s). */
        public Builder sim(SimSpec sim) {
            this.sim = sim;
            return this;
        }

        /** {@code concurrencyControl}; default {@link ConcurrencyControl#DEFAULT}. */
        public Builder control(ConcurrencyControl control) {
            this.control = control;
            return this;
        }

        /** {@code loadUrl}; default none (random-poll uses the gateway's own counters for this server). */
        public Builder loadUrl(URI loadUrl) {
            this.loadUrl = loadUrl;
            return this;
        }

        /** {@code health}; default {@link HealthCheck#OFF}. */
        public Builder health(HealthCheck health) {
            this.health = health;
            return this;
        }

        /** {@code concurrency: gradient2 | vegas} with {@code adaptiveLimit}; default none. */
        public Builder adaptiveLimit(AdaptiveLimit adaptiveLimit) {
            this.adaptiveLimit = adaptiveLimit;
            return this;
        }

        public ServerConfig build() {
            return new ServerConfig(id, url, concurrency, autoConcurrency, power, adminUrl, sim, control, health, loadUrl,
                    adaptiveLimit);
        }
    }
}
