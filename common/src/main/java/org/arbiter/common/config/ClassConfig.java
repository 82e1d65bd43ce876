package org.arbiter.common.config;

import com.fasterxml.jackson.annotation.JsonValue;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.Optional;

/**
 * One traffic class: its response-time target τ_c, how its utility is valued, its initial share
 * and its queue limits.
 *
 * @param name          unique class name
 * @param targetSeconds response-time target τ_c (003 eq. 7)
 * @param utility       003 eq. 7 parameters, used unless {@code yield} is present
 * @param yield         a yield shape (002 §2.2), or null
 * @param weight        initial / standalone w(g,c) before the GRM speaks
 * @param minShare      guaranteed fraction of N (002 §2.3), in [0, 1]
 * @param match         classification rule; all given conditions must hold
 * @param queue         the class queue's bound and timeout
 * @param isDefault     unmatched requests go to the one default class
 * @param thinkTimeSeconds the clients' mean think time Z between an answer and their next request,
 *                      when the class's traffic is closed-loop: the GRM's flow model then lets the
 *                      arrival rate fall as the response time grows (docs/grm.md, "The flow model");
 *                      {@code +∞} (the default, key absent) is open-loop traffic, 003 eq. 9 as printed
 */
public record ClassConfig(
        String name,
        double targetSeconds,
        UtilitySpec utility,
        YieldSpec yield,
        double weight,
        double minShare,
        MatchRule match,
        QueueConfig queue,
        boolean isDefault,
        double thinkTimeSeconds) {

    /** Open-loop traffic (no think time). */
    public ClassConfig(String name, double targetSeconds, UtilitySpec utility, YieldSpec yield, double weight,
                       double minShare, MatchRule match, QueueConfig queue, boolean isDefault) {
        this(name, targetSeconds, utility, yield, weight, minShare, match, queue, isDefault, Double.POSITIVE_INFINITY);
    }

    /** True when the class's clients are closed-loop with a known think time. */
    public boolean closedLoop() {
        return thinkTimeSeconds < Double.POSITIVE_INFINITY;
    }

    public ClassConfig {
        if (!(thinkTimeSeconds >= 0)) {
            throw new IllegalArgumentException("thinkTime: " + thinkTimeSeconds + " (expected: >= 0)");
        }
        requireNonNull(name, "name");
        requireNonNull(utility, "utility");
        requireNonNull(match, "match");
        requireNonNull(queue, "queue");
    }

    /** The yield shape, when the class is valued by one instead of 003 eq. 7. */
    public Optional<YieldSpec> yieldShape() {
        return Optional.ofNullable(yield);
    }

    /** 003 eq. 7 parameters φ, α, β. */
    public record UtilitySpec(double phi, double alpha, double beta, Scale scale) {
        public static final UtilitySpec DEFAULT = new UtilitySpec(ClassesSection.PHI.defaultValue(),
                ClassesSection.ALPHA.defaultValue(), ClassesSection.BETA.defaultValue(), ClassesSection.SCALE.defaultValue());

        public UtilitySpec {
            requireNonNull(scale, "scale");
        }

        /** φ, α, β on the absolute scale (φ as given). */
        public UtilitySpec(double phi, double alpha, double beta) {
            this(phi, alpha, beta, Scale.ABSOLUTE);
        }

        /** φ as 003 eq. 7 uses it for a class of target τ: φ, or φ/τ on the relative scale. */
        public double phiAt(double targetSeconds) {
            return scale == Scale.RELATIVE ? phi / targetSeconds : phi;
        }

        /**
         * How φ scales a class's utility: {@code absolute} as given (utility in seconds of lateness),
         * {@code relative} divided by the class's target (φ_c = φ/τ_c: lateness as a fraction of the target).
         */
        public enum Scale implements Choice {
            ABSOLUTE("absolute"), RELATIVE("relative");

            private final String wireName;

            Scale(String wireName) {
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

    /**
     * A yield function (002 §2.2).
     *
     * @param shape              throughput, response-time or hybrid
     * @param full               yield of a request served within its pre-deadline
     * @param dropPenalty        penalty of a dropped request
     * @param deadlineSeconds    deadline after which a request yields nothing (or the penalty)
     * @param preDeadlineSeconds hybrid: full yield up to here, then falling linearly to the deadline
     */
    public record YieldSpec(Shape shape, double full, double dropPenalty, double deadlineSeconds,
                            double preDeadlineSeconds) {
        public YieldSpec {
            requireNonNull(shape, "shape");
        }

        /** The yield shapes of 002 §2.2. */
        public enum Shape implements Choice {
            HYBRID("hybrid"), THROUGHPUT("throughput"), RESPONSE_TIME("response-time");

            private final String wireName;

            Shape(String wireName) {
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

    /** Queue bound (requests) and the longest a request may wait before a 503. */
    public record QueueConfig(int limit, double timeoutSeconds) {
        /** The defaults: 1000 requests, 30 s. */
        public static final QueueConfig DEFAULT = new QueueConfig(ClassesSection.QUEUE_LIMIT.defaultValue(),
                ClassesSection.QUEUE_TIMEOUT.defaultValue());
    }

    /** A builder starting from the defaults with the required name, targetSeconds (see {@link Builder}). */
    public static Builder builder(String name, double targetSeconds) {
        return new Builder(name, targetSeconds);
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder(name, targetSeconds).utility(utility).yield(yield).weight(weight).minShare(minShare)
                .match(match).queue(queue).isDefault(isDefault).thinkTimeSeconds(thinkTimeSeconds);
    }

    /**
     * Builds a {@link ClassConfig}; every setter's Javadoc gives the default, the value {@link ConfigLoader}
     * applies when the key is absent. {@link #build()} checks what the record checks. Not thread-safe.
     */
    public static final class Builder {
        private final String name;
        private final double targetSeconds;
        private UtilitySpec utility = UtilitySpec.DEFAULT;
        private YieldSpec yield = null;
        private double weight = ClassesSection.WEIGHT.defaultValue();
        private double minShare = ClassesSection.MIN_SHARE.defaultValue();
        private MatchRule match = MatchRule.NONE;
        private QueueConfig queue = QueueConfig.DEFAULT;
        private boolean isDefault = false;
        private double thinkTimeSeconds = Double.POSITIVE_INFINITY;

        /** {@code thinkTime}: the closed-loop clients' mean think time; default +∞ (open-loop traffic). */
        public Builder thinkTimeSeconds(double thinkTimeSeconds) {
            this.thinkTimeSeconds = thinkTimeSeconds;
            return this;
        }

        private Builder(String name, double targetSeconds) {
            this.name = requireNonNull(name, "name");
            this.targetSeconds = targetSeconds;
        }

        /** {@code utility}, 003 eq. 7's φ, α, β; default 1, 1, 1. */
        public Builder utility(UtilitySpec utility) {
            this.utility = utility;
            return this;
        }

        /** {@code yield}, a Neptune yield shape used instead of {@code utility}; default none. */
        public Builder yield(YieldSpec yield) {
            this.yield = yield;
            return this;
        }

        /** {@code weight}, w(g,c) before the GRM speaks; default 1. */
        public Builder weight(double weight) {
            this.weight = weight;
            return this;
        }

        /** {@code minShare}; default 0. */
        public Builder minShare(double minShare) {
            this.minShare = minShare;
            return this;
        }

        /** {@code match}; default none (reached only as the default class). */
        public Builder match(MatchRule match) {
            this.match = match;
            return this;
        }

        /** {@code queue}; default {@link QueueConfig#DEFAULT} (1000 requests, 30 s). */
        public Builder queue(QueueConfig queue) {
            this.queue = queue;
            return this;
        }

        /** {@code default}; default false. */
        public Builder isDefault(boolean isDefault) {
            this.isDefault = isDefault;
            return this;
        }

        /** {@code match: {header: {name: value}}}: a rule on one header (value exact, or {@code regex:...}). */
        public Builder matchHeader(String header, String value) {
            this.match = new MatchRule(Map.of(header, value), null, null, null);
            return this;
        }

        /** {@code queue}; default {@link QueueConfig#DEFAULT} (1000 requests, 30 s). */
        public Builder queue(int limit, double timeoutSeconds) {
            return queue(new QueueConfig(limit, timeoutSeconds));
        }

        public ClassConfig build() {
            return new ClassConfig(name, targetSeconds, utility, yield, weight, minShare, match, queue, isDefault,
                    thinkTimeSeconds);
        }
    }
}
