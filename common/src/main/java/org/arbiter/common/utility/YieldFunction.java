package org.arbiter.common.utility;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import org.arbiter.common.config.ClassConfig;

/*
 * Model — the yield of one request (002 §2.2, Fig. 2), as a function of its response time r:
 *
 *   throughput     Y(r) = C                       for r ≤ D, 0 after       (Fig. 2A)
 *   response-time  Y(r) = C·(1 − r/D)             for r ≤ D, 0 after       (Fig. 2B)
 *   hybrid         Y(r) = C                       for r ≤ D'
 *                  Y(r) = C − (C − C')(r − D')/(D − D')   for D' < r ≤ D
 *                  Y(r) = 0                       for r > D                (Fig. 2C)
 *
 * C is yield.full, D yield.deadline, D' yield.preDeadline and C' yield.dropPenalty. 002 calls C'
 * the drop penalty: what a request loses when it misses D (it would have yielded C' at D, it
 * yields nothing after). 002 states throughput = hybrid with D' = D, and response-time = hybrid
 * with D' = 0 and C' = 0; the shapes here are exactly those special cases, so throughput and
 * response-time ignore preDeadline and dropPenalty. A dropped request realises 0 (it is never
 * completed), and every arrival offers C (002 §5.2's OfferedYield).
 *
 * This is the per-request yield the gateway records and its yield schedulers (edf, yid, greedy,
 * adaptive) use. The GRM's UtilityFunction values the same YieldSpec at a flow's mean response
 * time with its own, older convention past the deadline (−dropPenalty); see its Javadoc.
 *
 * A class without a yield is valued as throughput with C = 1 and D = its target: a request
 * answered within the target yields 1, and LossPercent is the share of requests that were not.
 *
 * Immutable and thread-safe.
 */

/** 002's per-request yield function of one class; see the design note in the source. */
public record YieldFunction(ClassConfig.YieldSpec.Shape shape, double full, double atDeadline, double deadlineSeconds,
                            double preDeadlineSeconds) {

    public YieldFunction {
        requireNonNull(shape, "shape");
        check("full", full, full >= 0, ">= 0");
        check("deadlineSeconds", deadlineSeconds, deadlineSeconds > 0, "> 0");
        check("dropPenalty", atDeadline, atDeadline >= 0 && atDeadline <= full, "0 <= x <= full, " + full);
        check("preDeadlineSeconds", preDeadlineSeconds, preDeadlineSeconds >= 0 && preDeadlineSeconds <= deadlineSeconds,
                "0 <= x <= deadline, " + deadlineSeconds);
    }

    /** Throughput, full yield 1, deadline 1 h: what a view that knows no yields reports. */
    public static final YieldFunction UNIT = new YieldFunction(ClassConfig.YieldSpec.Shape.THROUGHPUT, 1, 1, 3600, 3600);

    /** The yield function of {@code spec} (002 §2.2). */
    public static YieldFunction of(ClassConfig.YieldSpec spec) {
        requireNonNull(spec, "spec");
        return switch (spec.shape()) {
            case THROUGHPUT -> new YieldFunction(spec.shape(), spec.full(), spec.full(), spec.deadlineSeconds(),
                    spec.deadlineSeconds());
            case RESPONSE_TIME -> new YieldFunction(spec.shape(), spec.full(), 0, spec.deadlineSeconds(), 0);
            case HYBRID -> new YieldFunction(spec.shape(), spec.full(), spec.dropPenalty(), spec.deadlineSeconds(),
                    spec.preDeadlineSeconds());
        };
    }

    /** The class's yield, or throughput with full yield 1 and its target as deadline when it has none. */
    public static YieldFunction of(ClassConfig c) {
        requireNonNull(c, "c");
        return c.yield() != null ? of(c.yield())
                : new YieldFunction(ClassConfig.YieldSpec.Shape.THROUGHPUT, 1, 1, c.targetSeconds(), c.targetSeconds());
    }

    /** Y(r): the yield of a request completed {@code responseSeconds} after it arrived. */
    public double yield(double responseSeconds) {
        double r = Math.max(0, responseSeconds);
        if (r > deadlineSeconds) {
            return 0;
        }
        if (r <= preDeadlineSeconds) {
            return full;
        }
        return full - (full - atDeadline) * (r - preDeadlineSeconds) / (deadlineSeconds - preDeadlineSeconds);
    }

    /** The deadline D in nanoseconds. */
    public long deadlineNanos() {
        return Math.round(deadlineSeconds * 1e9);
    }

    private static void check(String name, double value, boolean ok, String rule) {
        if (!ok || Double.isNaN(value)) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: " + rule + ")");
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "Y(r; %s, C=%s, C'=%s, D=%ss, D'=%ss)", shape, full, atDeadline, deadlineSeconds,
                preDeadlineSeconds);
    }
}
