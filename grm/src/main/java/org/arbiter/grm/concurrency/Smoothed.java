package org.arbiter.grm.concurrency;

import java.util.Objects;

/**
 * Wraps a controller (compose by wrapping): each field of the samples is smoothed exponentially,
 * x̂ ← w·x̂ + (1 − w)·x, before the inner controller sees it — a simple stand-in for the Kalman
 * filtering 004 §5.1 applies to its measurements, so a noisy period (few arrivals, an abandon
 * rate of 0 by chance) does not swing the limit. The first sample passes unchanged.
 * Not thread-safe.
 */
final class Smoothed implements ConcurrencyController {

    private final ConcurrencyController inner;
    private final double weight;
    private Sample smoothed;

    Smoothed(ConcurrencyController inner, double weight) {
        if (!(weight >= 0 && weight < 1)) {
            throw new IllegalArgumentException("weight: " + weight + " (expected: 0 <= x < 1)");
        }
        this.inner = Objects.requireNonNull(inner, "inner");
        this.weight = weight;
    }

    @Override
    public int update(Sample s) {
        smoothed = smoothed == null ? s : new Sample(mix(smoothed.inFlight(), s.inFlight()),
                mix(smoothed.latencySeconds(), s.latencySeconds()), mix(smoothed.throughput(), s.throughput()),
                mix(smoothed.abandonRate(), s.abandonRate()));
        return inner.update(smoothed);
    }

    private double mix(double previous, double x) {
        return weight * previous + (1 - weight) * x;
    }

    @Override
    public int current() {
        return inner.current();
    }
}
