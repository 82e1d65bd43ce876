package org.arbiter.grm.concurrency;

/*
 * Design note — PM-C (004 §4, eq. 11-13). The target dynamics are dα/dt = −γ_α (α − α_max)
 * (eq. 11); the model's abandon dynamics with a steady workload are
 * dα/dt = −(1/Δ) α (1 − N_e/MPL) (eq. 12). Equating the two and solving for MPL gives
 *     MPL = α N_e / (α − γ' (α − α_max)),   γ' = γ_α Δ.
 * The text of 004 we have prints eq. 13 with "+" in the denominator; with "+", α above its bound
 * would lower the MPL below N_e and, by eq. 12, raise α further — so we use the sign that the
 * derivation from eq. 11-12 gives, under which α above the bound admits more (MPL > N_e) and α
 * below it admits fewer. A non-positive denominator means "raise the limit" (by one step);
 * α = 0 proposes the smallest limit (the Bounded wrapper limits the step).
 * Thread-safety: not thread-safe.
 */

/** PM-C: MPL from 004 eq. 13. */
final class AbandonBoundControl implements ConcurrencyController {

    private final double abandonMax;
    private final double gain;
    private int current;

    AbandonBoundControl(int initial, double abandonMax, double gain) {
        if (!(abandonMax > 0 && abandonMax < 1)) {
            throw new IllegalArgumentException("abandonMax: " + abandonMax + " (expected: between 0 and 1)");
        }
        if (!(gain > 0)) {
            throw new IllegalArgumentException("gain: " + gain + " (expected: > 0)");
        }
        this.abandonMax = abandonMax;
        this.gain = gain;
        this.current = Math.max(1, initial);
    }

    @Override
    public int update(Sample s) {
        double a = s.abandonRate();
        double denominator = a - gain * (a - abandonMax);
        if (denominator <= 0) {
            current = current + 1;
        } else {
            current = Math.max(1, (int) Math.round(a * Math.max(s.inFlight(), 1) / denominator));
        }
        return current;
    }

    @Override
    public int current() {
        return current;
    }
}
