package org.arbiter.loadgen.workload;

import java.util.random.RandomGenerator;

/** Random variates used by the workloads. Stateless and thread-safe (the generator is the caller's). */
public final class Distributions {

    private Distributions() {
    }

    /** Exp(mean); 0 when {@code meanSeconds} is 0. */
    public static double exponential(RandomGenerator random, double meanSeconds) {
        return meanSeconds <= 0 ? 0 : -meanSeconds * Math.log(1 - random.nextDouble());
    }

    /**
     * Pareto with the given shape (> 1) and mean: scale x_m = mean · (shape − 1) / shape, so
     * P(X > x) = (x_m / x)^shape for x ≥ x_m.
     */
    public static double pareto(RandomGenerator random, double shape, double meanSeconds) {
        double xm = meanSeconds * (shape - 1) / shape;
        return xm / Math.pow(1 - random.nextDouble(), 1 / shape);
    }
}
