package org.arbiter.common.config;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Cluster sizing (000 §7.5).
 *
 * @param policy               off, static, queue, utility or schedule
 * @param minServers           never fewer servers ON
 * @param maxServers           never more servers ON (0 = all)
 * @param startupDelaySeconds  OFF → ON takes this long
 * @param shutdownDelaySeconds DRAINING → OFF takes this long
 * @param dropRatio            ε_th, the drop-ratio bound that defines capacity
 * @param utilityFloor         the utility policy keeps Ω above this
 * @param staticCapacity       requests/s per server for the static estimator (0 = unknown)
 * @param estimator            capacity estimator: queue (000 eq. 1-5), static or utilization
 * @param warmUpSeconds        after a power-on, no other change for this long
 * @param scheduleSlotSeconds  the schedule policy's slot length
 * @param schedule             the schedule policy's servers per slot, cycling (empty unless schedule)
 * @param forecast             λ̂ for static/queue/utility: trend (extrapolated startupDelay ahead when the
 *                             trend stands out of the noise) or current (the measured rate, as 000's
 *                             controllers compare it)
 */
public record SizingConfig(Policy policy, int minServers, int maxServers, double startupDelaySeconds,
                           double shutdownDelaySeconds, double dropRatio, double utilityFloor,
                           double staticCapacity, Estimator estimator, double warmUpSeconds,
                           double scheduleSlotSeconds, List<Integer> schedule, Forecast forecast) {
    public SizingConfig {
        requireNonNull(policy, "policy");
        requireNonNull(estimator, "estimator");
        schedule = List.copyOf(requireNonNull(schedule, "schedule"));
        requireNonNull(forecast, "forecast");
    }

    /** Sizing off: every server always on. */
    public static SizingConfig off() {
        return new SizingConfig(Policy.OFF, 1, 0, 60, 60, 0.01, 0, 0, Estimator.QUEUE, 10, 1800, List.of(), Forecast.TREND);
    }

    /** {@code sizing.policy} (000 §7.5). */
    public enum Policy implements Choice {
        OFF("off"), STATIC("static"), QUEUE("queue"), UTILITY("utility"), SCHEDULE("schedule");

        private final String wireName;

        Policy(String wireName) {
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
}
