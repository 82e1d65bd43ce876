package org.arbiter.grm.capacity;

/**
 * 000's utilisation-based estimate: the service rate divided by the busy fraction, i.e. the
 * throughput the server would reach at 100 % utilisation, smoothed exponentially. It assumes
 * throughput scales with CPU; for I/O-bound work the CPU is not the bottleneck and the estimate
 * overshoots (000 Fig. 10). Not thread-safe.
 */
final class UtilizationEstimator implements CapacityEstimator {

    private final double smoothing;
    private double estimate;

    UtilizationEstimator(double smoothing) {
        if (!(smoothing >= 0 && smoothing < 1)) {
            throw new IllegalArgumentException("smoothing: " + smoothing + " (expected: 0 <= x < 1)");
        }
        this.smoothing = smoothing;
    }

    @Override
    public double update(Sample s) {
        if (s.busyFraction() > 0.05 && s.accepted() > 0) {
            double raw = s.serviceRate() / Math.min(1, s.busyFraction());
            estimate = estimate == 0 ? raw : smoothing * estimate + (1 - smoothing) * raw;
        }
        return estimate;
    }

    @Override
    public double estimate() {
        return estimate;
    }
}
