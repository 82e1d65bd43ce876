package org.arbiter.loadgen.workload;

import java.util.random.RandomGenerator;

/**
 * A closed-loop client's think time: after each answer it waits Exp(mean) before its next
 * request (003's clients; Z in X = N/(Z + R)). Immutable and thread-safe.
 *
 * @param meanSeconds mean think time (0: the client sends again at once)
 */
public record ThinkTime(double meanSeconds) {

    public ThinkTime {
        if (!(meanSeconds >= 0)) {
            throw new IllegalArgumentException("meanSeconds: " + meanSeconds + " (expected: >= 0)");
        }
    }

    /** When the client sends next, having been answered at {@code answeredSeconds}. */
    public double nextRequest(double answeredSeconds, RandomGenerator random) {
        return answeredSeconds + Distributions.exponential(random, meanSeconds);
    }

    /** Closed-loop throughput law (interactive response time law): X = N / (Z + R). */
    public double throughputPerSecond(int clients, double responseSeconds) {
        return clients / (meanSeconds + responseSeconds);
    }
}
