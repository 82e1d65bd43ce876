package org.arbiter.common.config;

import com.fasterxml.jackson.annotation.JsonValue;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * One traffic class: its response-time target τ_c, how its utility is valued, its initial share
 * and its queue limits.
 *
 * @param name          unique class name
 * @param targetSeconds response-time target τ_c (003 eq. 7)
 * @param utility       003 eq. 7 parameters, used unless {@code yield} is present
 * @param yield         a Neptune yield shape (002 §2.2), or null
 * @param weight        initial / standalone w(g,c) before the GRM speaks
 * @param minShare      guaranteed fraction of N (002 §2.3), in [0, 1]
 * @param match         classification rule; all given conditions must hold
 * @param queue         the class queue's bound and timeout
 * @param isDefault     unmatched requests go to the one default class
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
        boolean isDefault) {

    public ClassConfig {
        requireNonNull(name, "name");
        requireNonNull(utility, "utility");
        requireNonNull(match, "match");
        requireNonNull(queue, "queue");
    }

    /** The yield shape, when the class is valued by one instead of eq. 7. */
    public Optional<YieldSpec> yieldShape() {
        return Optional.ofNullable(yield);
    }

    /** 003 eq. 7 parameters φ, α, β. */
    public record UtilitySpec(double phi, double alpha, double beta) {
        public static final UtilitySpec DEFAULT = new UtilitySpec(1, 1, 1);
    }

    /**
     * A Neptune yield function (002 §2.2).
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
    }
}
