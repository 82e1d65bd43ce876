package org.arbiter.grm.concurrency;

import java.util.Objects;

/**
 * Wraps a controller (compose by wrapping): each field of the samples is smoothed exponentially,
 * x̂ ← w·x̂ + (1 − w)·x, before the inner controller sees it — a simple stand-in for the Kalman
 * filtering 004 §5.1 applies to its measurements, so a noisy period (few arrivals, an abandon
 * rate of 0 by chance) does not swing the limit. The abandon rate is the ratio of the smoothed
 * rejection rate α·T_i to the smoothed arrival rate T_i, so that it weighs each period by its
 * arrivals as the request-weighted α a bound is judged by does (a plain average of per-period
 * ratios let PM-C rest 0.5-1 point above α_max: periods with more arrivals reject more).
 * The first sample passes unchanged.
 * Not thread-safe.
 */
final class Smoothed implements ConcurrencyController {

    private final ConcurrencyController inner;
    private final double weight;
    private Sample smoothed;
    private double rejected;

    Smoothed(ConcurrencyController inner, double weight) {
        if (!(weight >= 0 && weight < 1)) {
            throw new IllegalArgumentException("weight: " + weight + " (expected: 0 <= x < 1)");
        }
        this.inner = Objects.requireNonNull(inner, "inner");
        this.weight = weight;
    }

    @Override
    public int update(Sample s) {
        if (smoothed == null) {
            smoothed = s;
            rejected = s.abandonRate() * s.arrivalRate();
        } else {
            rejected = mix(rejected, s.abandonRate() * s.arrivalRate());
            double arrivals = mix(smoothed.arrivalRate(), s.arrivalRate());
            smoothed = new Sample(mix(smoothed.inFlight(), s.inFlight()), mix(smoothed.latencySeconds(), s.latencySeconds()),
                    mix(smoothed.throughput(), s.throughput()),
                    arrivals > 0 ? rejected / arrivals : mix(smoothed.abandonRate(), s.abandonRate()), arrivals);
        }
        return inner.update(smoothed);
    }

    private double mix(double previous, double x) {
        return weight * previous + (1 - weight) * x;
    }

    @Override
    public void enforced(int limit) {
        inner.enforced(limit);
    }

    @Override
    public int current() {
        return inner.current();
    }
}
