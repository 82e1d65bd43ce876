package org.arbiter.common.config;

import com.fasterxml.jackson.annotation.JsonValue;

import static java.util.Objects.requireNonNull;

/**
 * The GRM's control loop.
 *
 * @param periodSeconds       control period Γ
 * @param reportPeriodSeconds how often gateways publish {@code GatewayStats}
 * @param statsWindowSeconds  sliding window the gateways average over
 * @param combine             sum (003 eq. 2a) or min (eq. 2b)
 * @param granularity         q: weights move in units of 1/q
 * @param minWeight           lower bound of every w(g,c)
 * @param responseTimeCap     predictions are clamped to this multiple of τ_c
 * @param prediction          mm1 (003 eq. 9) or queue-length (001)
 * @param gain                k of the queue-length feedback
 * @param maxClockSkewSeconds how far a control record's {@code at} or epoch may lie ahead of the
 *                            reader's clock before it is refused as implausible (0..1h, default 30 s)
 */
public record ControlConfig(double periodSeconds, double reportPeriodSeconds, double statsWindowSeconds,
                            Combine combine, int granularity, double minWeight, double responseTimeCap,
                            Prediction prediction, double gain, double maxClockSkewSeconds) {

    /** The default {@code control.maxClockSkew}. */
    public static final double DEFAULT_MAX_CLOCK_SKEW_SECONDS = 30;

    /** With the default clock skew (30 s). */
    public ControlConfig(double periodSeconds, double reportPeriodSeconds, double statsWindowSeconds,
                         Combine combine, int granularity, double minWeight, double responseTimeCap,
                         Prediction prediction, double gain) {
        this(periodSeconds, reportPeriodSeconds, statsWindowSeconds, combine, granularity, minWeight, responseTimeCap,
                prediction, gain, DEFAULT_MAX_CLOCK_SKEW_SECONDS);
    }

    /** {@link #maxClockSkewSeconds} in whole milliseconds. */
    public long maxClockSkewMillis() {
        return Math.round(maxClockSkewSeconds * 1000);
    }

    public ControlConfig {
        requireNonNull(combine, "combine");
        requireNonNull(prediction, "prediction");
    }

    /** {@code control.combine}: min (003 eq. 2b) or sum (eq. 2a). */
    public enum Combine implements Choice {
        MIN("min"), SUM("sum");

        private final String wireName;

        Combine(String wireName) {
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

    /** {@code control.prediction}: mm1 (003 eq. 9) or queue-length (001, with {@code gain}). */
    public enum Prediction implements Choice {
        MM1("mm1"), QUEUE_LENGTH("queue-length");

        private final String wireName;

        Prediction(String wireName) {
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
