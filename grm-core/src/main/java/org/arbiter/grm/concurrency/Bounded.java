package org.arbiter.grm.concurrency;

/**
 * Wraps a controller (compose by wrapping): its proposals are clamped to [min, max], move at most
 * {@code maxStep} per period, and are ignored when they differ from the limit in force by less
 * than {@code hysteresis}. Not thread-safe.
 */
final class Bounded implements ConcurrencyController {

    private final ConcurrencyController inner;
    private final int min;
    private final int max;
    private final int maxStep;
    private final int hysteresis;
    private int current;

    Bounded(ConcurrencyController inner, int min, int max, int maxStep, int hysteresis) {
        if (min < 1 || max < min || maxStep < 1 || hysteresis < 1) {
            throw new IllegalArgumentException("bounds: min " + min + ", max " + max + ", maxStep " + maxStep
                    + ", hysteresis " + hysteresis + " (expected: 1 <= min <= max, maxStep >= 1, hysteresis >= 1)");
        }
        this.inner = inner;
        this.min = min;
        this.max = max;
        this.maxStep = maxStep;
        this.hysteresis = hysteresis;
        this.current = Math.max(min, Math.min(max, inner.current()));
    }

    @Override
    public int update(Sample s) {
        int proposed = Math.max(min, Math.min(max, inner.update(s)));
        int delta = proposed - current;
        if (Math.abs(delta) >= hysteresis) {
            current += Math.max(-maxStep, Math.min(maxStep, delta));
        }
        inner.enforced(current);
        return current;
    }

    @Override
    public void enforced(int limit) {
        current = Math.max(min, Math.min(max, limit));
        inner.enforced(current);
    }

    @Override
    public int current() {
        return current;
    }
}
