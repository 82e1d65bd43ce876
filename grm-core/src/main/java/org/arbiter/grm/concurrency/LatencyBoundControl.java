package org.arbiter.grm.concurrency;

/*
 * Design note — AM-C (004 §4, eq. 8-10). To drive the latency L to its bound L_max with
 * first-order dynamics dL/dt = −γ_L (L − L_max), the MPL is set from the admitted concurrency N_e:
 *     MPL = N_e / (1 + γ'_L (L − L_max))                                   (eq. 10)
 * Above the bound the limit falls below N_e; below it, rises above. The denominator is kept
 * positive (≥ 0.1) so a very fast server cannot make the limit explode in one step.
 * Thread-safety: not thread-safe.
 */

/** AM-C: MPL from 004 eq. 10. */
final class LatencyBoundControl implements ConcurrencyController {

    private final double latencyMax;
    private final double gain;
    private int current;

    LatencyBoundControl(int initial, double latencyMax, double gain) {
        if (!(latencyMax > 0)) {
            throw new IllegalArgumentException("latencyMax: " + latencyMax + " (expected: > 0)");
        }
        if (!(gain > 0)) {
            throw new IllegalArgumentException("gain: " + gain + " (expected: > 0)");
        }
        this.latencyMax = latencyMax;
        this.gain = gain;
        this.current = Math.max(1, initial);
    }

    @Override
    public int update(Sample s) {
        if (s.inFlight() <= 0 || s.latencySeconds() <= 0) {
            return current;
        }
        double denominator = Math.max(0.1, 1 + gain * (s.latencySeconds() - latencyMax));
        current = Math.max(1, (int) Math.round(s.inFlight() / denominator));
        return current;
    }

    @Override
    public int current() {
        return current;
    }
}
