package org.arbiter.common.config;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Cluster sizing (000 §7.5).
 *
 * @param policy               what decides how many servers are ON: {@link Off}, {@link ByCapacity},
 *                             {@link Schedule} or {@link Utility}
 * @param minServers           never fewer servers ON
 * @param maxServers           never more servers ON (0 = all)
 * @param startupDelaySeconds  OFF → ON takes this long
 * @param shutdownDelaySeconds DRAINING → OFF takes this long
 * @param dropRatio            ε_th, the drop-ratio bound that defines capacity
 * @param staticCapacity       requests/s per server for the static estimator (0 = unknown)
 * @param estimator            capacity estimator: queue (000 eq. 1-5), static or utilization; {@link ByCapacity}
 *                             sizes by it, and every policy's power-off is guarded by it
 * @param warmUpSeconds        after a power-on, no other change for this long
 * @param forecast             λ̂ for by-capacity and utility: trend (extrapolated startupDelay ahead when the
 *                             trend stands out of the noise) or current (the measured rate, as 000's
 *                             controllers compare it)
 */
public record SizingConfig(Policy policy, int minServers, int maxServers, double startupDelaySeconds,
                           double shutdownDelaySeconds, double dropRatio, double staticCapacity, Estimator estimator,
                           double warmUpSeconds, Forecast forecast) {
    public SizingConfig {
        requireNonNull(policy, "policy");
        requireNonNull(estimator, "estimator");
        requireNonNull(forecast, "forecast");
    }

    /** Sizing off: every server always on. */
    public static SizingConfig off() {
        return DEFAULT;
    }

    /**
     * {@code sizing.policy} (000 §7.5), what decides how many servers are ON. In {@code cluster.yaml} it is
     * one word, {@code off}, {@code queue} (by capacity), {@code utility} or {@code schedule}, with its
     * parameters beside it ({@code utilityFloor}, {@code schedule.slot}, {@code schedule.servers});
     * {@code static} is read as {@code queue} with the static estimator. {@code toString()} is the word.
     */
    public sealed interface Policy permits Off, ByCapacity, Schedule, Utility {
        /** Every server always on, no power orders. */
        Policy OFF = new Off();
        /** The fewest servers whose estimated capacity carries the forecast. */
        Policy BY_CAPACITY = new ByCapacity();

        /** The word in {@code cluster.yaml}. */
        String wireName();
    }

    /** Sizing off: every server always on, no power orders. */
    public record Off() implements Policy {
        @Override
        public String wireName() {
            return "off";
        }

        @Override
        public String toString() {
            return wireName();
        }
    }

    /**
     * The fewest servers whose capacity carries the forecast arrival rate λ̂: {@code ceil(λ̂ / capacity)},
     * the capacity per server from {@link SizingConfig#estimator()} (000 eq. 1-5, the static capacity, or
     * utilisation). {@code policy: queue}; {@code policy: static} is this with the static estimator.
     */
    public record ByCapacity() implements Policy {
        @Override
        public String wireName() {
            return "queue";
        }

        @Override
        public String toString() {
            return wireName();
        }
    }

    /**
     * A timetable: {@code servers.get(i)} servers ON in slot i, slots of {@code slotSeconds} cycling from
     * the epoch.
     *
     * @param slotSeconds the slot length, > 0
     * @param servers     servers per slot, each >= 0; not empty
     */
    public record Schedule(double slotSeconds, List<Integer> servers) implements Policy {
        public Schedule {
            servers = List.copyOf(requireNonNull(servers, "servers"));
        }

        @Override
        public String wireName() {
            return "schedule";
        }

        @Override
        public String toString() {
            return wireName();
        }
    }

    /**
     * The fewest servers with which the optimal Ω reaches {@code floor}.
     *
     * @param floor Ω to keep above
     */
    public record Utility(double floor) implements Policy {
        @Override
        public String wireName() {
            return "utility";
        }

        @Override
        public String toString() {
            return wireName();
        }
    }

    /** {@code sizing.estimator}: queue (000 eq. 1-5), static or utilization. */
    public enum Estimator implements Choice {
        QUEUE("queue"), STATIC("static"), UTILIZATION("utilization");

        private final String wireName;

        Estimator(String wireName) {
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

    /** {@code sizing.forecast}: trend or current. */
    public enum Forecast implements Choice {
        TREND("trend"), CURRENT("current");

        private final String wireName;

        Forecast(String wireName) {
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

    /**
     * Every default, as {@link ConfigLoader} applies them: sizing off, 1..all servers, 60 s start-up and
     * shutdown, ε_th = 0.01, queue estimator, 10 s warm-up, trend.
     */
    public static final SizingConfig DEFAULT = builder().build();

    /** A builder starting from the defaults (see {@link Builder}). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder().policy(policy).minServers(minServers).maxServers(maxServers)
                .startupDelaySeconds(startupDelaySeconds).shutdownDelaySeconds(shutdownDelaySeconds)
                .dropRatio(dropRatio).staticCapacity(staticCapacity).estimator(estimator)
                .warmUpSeconds(warmUpSeconds).forecast(forecast);
    }

    /**
     * Builds a {@link SizingConfig}; every setter's Javadoc gives the default, the value {@link ConfigLoader}
     * applies when the key is absent. {@link #build()} checks what the record checks. Not thread-safe.
     */
    public static final class Builder {
        private Policy policy = SizingSection.DEFAULT_POLICY;
        private int minServers = SizingSection.MIN_SERVERS.defaultValue();
        private int maxServers = SizingSection.MAX_SERVERS.defaultValue();
        private double startupDelaySeconds = SizingSection.STARTUP_DELAY.defaultValue();
        private double shutdownDelaySeconds = SizingSection.SHUTDOWN_DELAY.defaultValue();
        private double dropRatio = SizingSection.DROP_RATIO.defaultValue();
        private double staticCapacity = SizingSection.STATIC_CAPACITY.defaultValue();
        private Estimator estimator = SizingSection.ESTIMATOR.defaultValue();
        private double warmUpSeconds = SizingSection.WARM_UP.defaultValue();
        private Forecast forecast = SizingSection.FORECAST.defaultValue();

        private Builder() {
        }

        /** {@code policy}; default off (every server always on). */
        public Builder policy(Policy policy) {
            this.policy = policy;
            return this;
        }

        /** {@code minServers}; default 1. */
        public Builder minServers(int minServers) {
            this.minServers = minServers;
            return this;
        }

        /** {@code maxServers}; default 0 (all servers). */
        public Builder maxServers(int maxServers) {
            this.maxServers = maxServers;
            return this;
        }

        /** {@code startupDelay}; default 60 s. */
        public Builder startupDelaySeconds(double startupDelaySeconds) {
            this.startupDelaySeconds = startupDelaySeconds;
            return this;
        }

        /** {@code shutdownDelay}; default 60 s. */
        public Builder shutdownDelaySeconds(double shutdownDelaySeconds) {
            this.shutdownDelaySeconds = shutdownDelaySeconds;
            return this;
        }

        /** {@code dropRatio}, ε_th; default 0.01. */
        public Builder dropRatio(double dropRatio) {
            this.dropRatio = dropRatio;
            return this;
        }

        /** {@code staticCapacity}, requests/s per server; default 0 (unknown; the static estimator needs it). */
        public Builder staticCapacity(double staticCapacity) {
            this.staticCapacity = staticCapacity;
            return this;
        }

        /** {@code estimator}; default queue. */
        public Builder estimator(Estimator estimator) {
            this.estimator = estimator;
            return this;
        }

        /** {@code warmUp}; default 10 s. */
        public Builder warmUpSeconds(double warmUpSeconds) {
            this.warmUpSeconds = warmUpSeconds;
            return this;
        }

        /** {@code forecast}; default trend. */
        public Builder forecast(Forecast forecast) {
            this.forecast = forecast;
            return this;
        }

        public SizingConfig build() {
            return new SizingConfig(policy, minServers, maxServers, startupDelaySeconds, shutdownDelaySeconds,
                    dropRatio, staticCapacity, estimator, warmUpSeconds, forecast);
        }
    }
}
