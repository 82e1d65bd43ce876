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
 * @param prediction          mm1 (003 eq. 9), queue-length (Arbiter's backlog term) or liu (001 Step 1-3)
 * @param gain                k of the queue-length feedback
 * @param maxClockSkewSeconds how far a control record's {@code at} or epoch may lie ahead of the
 *                            reader's clock before it is refused as implausible (0..1h, default 30 s)
 * @param liu                 {@code control.liu}: the gains of 001's controller (prediction liu)
 */
public record ControlConfig(double periodSeconds, double reportPeriodSeconds, double statsWindowSeconds,
                            Combine combine, int granularity, double minWeight, double responseTimeCap,
                            Prediction prediction, double gain, double maxClockSkewSeconds, Liu liu) {

    /**
     * {@code control.liu}: the gains of 001's Queue Length Model Based Feedback Control (001 §4), made
     * dimensionless by the class target D_ref = τ_c so one setting fits every class.
     *
     * @param k  001 Step 3's K in units of 1/D_ref: K = k / τ_c (default 1, 001's "K = 1/D_ref")
     * @param kp proportional gain of the PI term Δμ (0 = off)
     * @param ki integral gain of the PI term Δμ, per D_ref of time (0 = off)
     */
    public record Liu(double k, double kp, double ki) {
        /** k = 1, no PI term. */
        public static final Liu DEFAULT = new Liu(ControlSection.LIU_K.defaultValue(), ControlSection.LIU_KP.defaultValue(),
                ControlSection.LIU_KI.defaultValue());

        public Liu {
            if (!(k >= 0) || Double.isInfinite(k)) {
                throw new IllegalArgumentException("k: " + k + " (expected: >= 0)");
            }
            if (!(kp >= 0) || Double.isInfinite(kp)) {
                throw new IllegalArgumentException("pi.kp: " + kp + " (expected: >= 0)");
            }
            if (!(ki >= 0) || Double.isInfinite(ki)) {
                throw new IllegalArgumentException("pi.ki: " + ki + " (expected: >= 0)");
            }
        }

        /** True when the PI term is on. */
        public boolean hasPi() {
            return kp > 0 || ki > 0;
        }
    }

    /** With 001's default gains ({@link Liu#DEFAULT}). */
    public ControlConfig(double periodSeconds, double reportPeriodSeconds, double statsWindowSeconds,
                         Combine combine, int granularity, double minWeight, double responseTimeCap,
                         Prediction prediction, double gain, double maxClockSkewSeconds) {
        this(periodSeconds, reportPeriodSeconds, statsWindowSeconds, combine, granularity, minWeight, responseTimeCap,
                prediction, gain, maxClockSkewSeconds, Liu.DEFAULT);
    }

    /** The default {@code control.maxClockSkew}. */
    public static final double DEFAULT_MAX_CLOCK_SKEW_SECONDS = ControlSection.MAX_CLOCK_SKEW.defaultValue();

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
        requireNonNull(liu, "liu");
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

    /**
     * {@code control.prediction}: mm1 (003 eq. 9), queue-length (Arbiter's one-sided backlog term, with
     * {@code gain}) or liu (001 Step 1-3 with the optional PI term, with {@code control.liu}).
     */
    public enum Prediction implements Choice {
        MM1("mm1"), QUEUE_LENGTH("queue-length"), LIU("liu");

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

    /**
     * Every default, as {@link ConfigLoader} applies them: Γ = 5 s, reports every 5 s over 30 s, combine min, q
     * = 1, minWeight 1, cap 10 τ, mm1, gain 1.
     */
    public static final ControlConfig DEFAULT = builder().build();

    /** A builder starting from the defaults (see {@link Builder}). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder().periodSeconds(periodSeconds).reportPeriodSeconds(reportPeriodSeconds)
                .statsWindowSeconds(statsWindowSeconds).combine(combine).granularity(granularity).minWeight(minWeight)
                .responseTimeCap(responseTimeCap).prediction(prediction).gain(gain)
                .maxClockSkewSeconds(maxClockSkewSeconds).liu(liu);
    }

    /**
     * Builds a {@link ControlConfig}; every setter's Javadoc gives the default, the value {@link ConfigLoader}
     * applies when the key is absent. {@link #build()} checks what the record checks. Not thread-safe.
     */
    public static final class Builder {
        private double periodSeconds = ControlSection.PERIOD.defaultValue();
        private double reportPeriodSeconds = ControlSection.REPORT_PERIOD.defaultValue();
        private double statsWindowSeconds = ControlSection.STATS_WINDOW.defaultValue();
        private Combine combine = ControlSection.COMBINE.defaultValue();
        private int granularity = ControlSection.GRANULARITY.defaultValue();
        private double minWeight = ControlSection.MIN_WEIGHT.defaultValue();
        private double responseTimeCap = ControlSection.RESPONSE_TIME_CAP.defaultValue();
        private Prediction prediction = ControlSection.PREDICTION.defaultValue();
        private double gain = ControlSection.GAIN.defaultValue();
        private double maxClockSkewSeconds = DEFAULT_MAX_CLOCK_SKEW_SECONDS;
        private Liu liu = Liu.DEFAULT;

        private Builder() {
        }

        /** {@code period}, Γ; default 5 s. */
        public Builder periodSeconds(double periodSeconds) {
            this.periodSeconds = periodSeconds;
            return this;
        }

        /** {@code reportPeriod}; default 5 s. */
        public Builder reportPeriodSeconds(double reportPeriodSeconds) {
            this.reportPeriodSeconds = reportPeriodSeconds;
            return this;
        }

        /** {@code statsWindow}; default 30 s (at least the report period). */
        public Builder statsWindowSeconds(double statsWindowSeconds) {
            this.statsWindowSeconds = statsWindowSeconds;
            return this;
        }

        /** {@code combine}; default min. */
        public Builder combine(Combine combine) {
            this.combine = combine;
            return this;
        }

        /** {@code granularity}, q; default 1. */
        public Builder granularity(int granularity) {
            this.granularity = granularity;
            return this;
        }

        /** {@code minWeight}; default 1. */
        public Builder minWeight(double minWeight) {
            this.minWeight = minWeight;
            return this;
        }

        /** {@code responseTimeCap}; default 10 (× τ_c). */
        public Builder responseTimeCap(double responseTimeCap) {
            this.responseTimeCap = responseTimeCap;
            return this;
        }

        /** {@code prediction}; default mm1. */
        public Builder prediction(Prediction prediction) {
            this.prediction = prediction;
            return this;
        }

        /** {@code gain}, k of queue-length; default 1. */
        public Builder gain(double gain) {
            this.gain = gain;
            return this;
        }

        /** {@code maxClockSkew}; default 30 s. */
        public Builder maxClockSkewSeconds(double maxClockSkewSeconds) {
            this.maxClockSkewSeconds = maxClockSkewSeconds;
            return this;
        }

        /** {@code liu}; default k = 1, no PI term. */
        public Builder liu(Liu liu) {
            this.liu = liu;
            return this;
        }

        public ControlConfig build() {
            return new ControlConfig(periodSeconds, reportPeriodSeconds, statsWindowSeconds, combine, granularity,
                    minWeight, responseTimeCap, prediction, gain, maxClockSkewSeconds, liu);
        }
    }
}
