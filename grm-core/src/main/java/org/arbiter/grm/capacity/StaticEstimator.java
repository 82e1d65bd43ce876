package org.arbiter.grm.capacity;

/** A configured benchmark figure (000 §5.1, "static"). Immutable. */
final class StaticEstimator implements CapacityEstimator {

    private final double capacity;

    StaticEstimator(double capacity) {
        if (!(capacity >= 0)) {
            throw new IllegalArgumentException("staticCapacity: " + capacity + " (expected: >= 0)");
        }
        this.capacity = capacity;
    }

    @Override
    public double update(Sample sample) {
        return capacity;
    }

    @Override
    public double estimate() {
        return capacity;
    }
}
