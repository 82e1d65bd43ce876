package org.arbiter.common.utility;

import java.util.Locale;
import org.arbiter.common.config.Choice;
import org.arbiter.common.config.ClassConfig;

/**
 * A class utility: the business value of a class's mean response time.
 *
 * <p><b>003 eq. 7</b>, target τ, scale φ, exponents α and β:
 * <pre>
 *   U(t) =  φ (τ − t)^α   if t ≤ τ
 *   U(t) = −φ (t − τ)^β   if t > τ
 * </pre>
 * Monotone decreasing in t, zero at the target, positive below it, negative above it.
 *
 * <p><b>002 §2.2 yield shapes</b>, the yield of a request served with response time t,
 * valued here at the mean response time:
 * <ul>
 *   <li>throughput: {@code full} for t ≤ deadline;</li>
 *   <li>response-time: {@code full · (1 − t/deadline)} for t ≤ deadline;</li>
 *   <li>hybrid: {@code full} up to the pre-deadline, then falling linearly to 0 at the deadline;</li>
 * </ul>
 * and {@code −dropPenalty} past the deadline (a request that misses its deadline is as good as
 * dropped). Non-increasing in t.
 *
 * <p><b>Yield and throughput.</b> 002 (eq. 1) sums yield over requests, so a flow's yield per second
 * would be λ·y(t). The GRM's optimiser does not scale by throughput: 003 eq. 9 keeps each flow's
 * arrival rate fixed (every arrival is served, only later or sooner), so λ·y(t) would only weight
 * flows by their traffic, and a busy flow of a cheap class would outbid an idle flow of a costly
 * one. A yield is therefore valued like 003 eq. 7, per flow at its predicted mean response time, and
 * a class that should count per request says so in its {@code full} and {@code dropPenalty}.
 * That keeps one signature, {@code utility(responseTimeSeconds)}, for every utility.
 *
 * <p>Implementations are immutable and thread-safe.
 */
@FunctionalInterface
public interface UtilityFunction {

    /** The utility at mean response time {@code responseTimeSeconds} (≥ 0). */
    double utility(double responseTimeSeconds);

    /**
     * True when U is concave and non-increasing in t, so that U of a convex, decreasing prediction is
     * concave in the weight (the GRM's fast exact paths rely on it). 003 eq. 7 with α = β = 1 (linear
     * in t); false for other exponents (convex or kinked the wrong way at τ) and for the yield shapes.
     */
    default boolean concaveNonIncreasing() {
        return false;
    }

    /** 003 eq. 7. */
    static UtilityFunction pacifici(double targetSeconds, double phi, double alpha, double beta) {
        check("targetSeconds", targetSeconds, targetSeconds > 0, "> 0");
        check("phi", phi, phi >= 0, ">= 0");
        check("alpha", alpha, alpha > 0, "> 0");
        check("beta", beta, beta > 0, "> 0");
        return new Pacifici(targetSeconds, phi, alpha, beta);
    }

    /** 002 §2.2; {@code shape} is throughput, response-time or hybrid. */
    static UtilityFunction yield(String shape, double full, double dropPenalty, double deadlineSeconds,
                                 double preDeadlineSeconds) {
        ClassConfig.YieldSpec.Shape s = Choice.find(ClassConfig.YieldSpec.Shape.class, shape)
                .orElseThrow(() -> new IllegalArgumentException("shape: " + shape
                        + " (expected: one of throughput, response-time, hybrid)"));
        return UtilityFunction.yield(s, full, dropPenalty, deadlineSeconds, preDeadlineSeconds);
    }

    /** 002 §2.2. */
    static UtilityFunction yield(ClassConfig.YieldSpec.Shape shape, double full, double dropPenalty,
                                 double deadlineSeconds, double preDeadlineSeconds) {
        check("deadlineSeconds", deadlineSeconds, deadlineSeconds > 0, "> 0");
        check("full", full, full >= 0, ">= 0");
        check("dropPenalty", dropPenalty, dropPenalty >= 0, ">= 0");
        check("preDeadlineSeconds", preDeadlineSeconds, preDeadlineSeconds >= 0 && preDeadlineSeconds <= deadlineSeconds,
                "0 <= x <= deadline");
        return switch (shape) {
            case THROUGHPUT -> t -> t <= deadlineSeconds ? full : -dropPenalty;
            case RESPONSE_TIME -> t -> t <= deadlineSeconds ? full * (1 - t / deadlineSeconds) : -dropPenalty;
            case HYBRID -> t -> {
                if (t <= preDeadlineSeconds) {
                    return full;
                }
                if (t <= deadlineSeconds) {
                    return deadlineSeconds == preDeadlineSeconds ? full
                            : full * (deadlineSeconds - t) / (deadlineSeconds - preDeadlineSeconds);
                }
                return -dropPenalty;
            };
        };
    }

    /** The utility a class of the configuration is valued by (its yield shape if it has one). */
    static UtilityFunction of(ClassConfig c) {
        if (c.yield() != null) {
            ClassConfig.YieldSpec y = c.yield();
            return UtilityFunction.yield(y.shape(), y.full(), y.dropPenalty(), y.deadlineSeconds(), y.preDeadlineSeconds());
        }
        return pacifici(c.targetSeconds(), c.utility().phiAt(c.targetSeconds()), c.utility().alpha(), c.utility().beta());
    }

    private static void check(String name, double value, boolean ok, String rule) {
        if (!ok || Double.isNaN(value)) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: " + rule + ")");
        }
    }

    /** 003 eq. 7 as a value. */
    record Pacifici(double targetSeconds, double phi, double alpha, double beta) implements UtilityFunction {
        @Override
        public double utility(double t) {
            if (t <= targetSeconds) {
                double d = targetSeconds - t;
                return alpha == 1 ? phi * d : phi * Math.pow(d, alpha);
            }
            double d = t - targetSeconds;
            return beta == 1 ? -phi * d : -phi * Math.pow(d, beta);
        }

        @Override
        public boolean concaveNonIncreasing() {
            return alpha == 1 && beta == 1;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "U(t; tau=%s, phi=%s, alpha=%s, beta=%s)", targetSeconds, phi, alpha, beta);
        }
    }
}
