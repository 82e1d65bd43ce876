package org.arbiter.grm.concurrency;

/*
 * Design note — PM-C (004 §4, eq. 11-13). The target dynamics are dα/dt = −γ_α (α − α_max)
 * (eq. 11); the model's abandon dynamics with a steady workload are
 * dα/dt = −(1/Δ) α (1 − N_e/MPL) (eq. 12). Equating the two and solving for MPL gives
 *     MPL = α N_e / (α − γ' (α − α_max)),   γ' = γ_α Δ.
 * The text of 004 we have prints eq. 13 with "+" in the denominator; with "+", α above its bound
 * would lower the MPL below N_e and, by eq. 12, raise α further — so we use the sign that the
 * derivation from eq. 11-12 gives, under which α above the bound admits more and α below it
 * admits fewer.
 *
 * The limit in force in place of N_e. Eq. 12 assumes N_e = MPL at rest, but with random arrivals
 * the average N_e stays below the limit (ρ = N_e/MPL < 1) while some arrivals still find the
 * server full. Eq. 13 as derived then rests where MPL = α N_e/(α − γ'(α − α_max)) = N_e/ρ, i.e. at
 *     α = α_max γ' / (γ' − (1 − ρ)) > α_max
 * — above its bound, by 1.6-2.3 points in the admission experiment (docs/experiments.md). So the
 * law moves from the limit in force, MPL_{k+1} = MPL_k α / (α − γ'(α − α_max)), whose only rest
 * point is α = α_max whatever ρ is (an integrating law: a multiplicative step towards the bound).
 * The limit in force is this controller's last output, or what a wrapper reports through
 * enforced() after clamping it (so a step-limited limit does not wind up). A non-positive
 * denominator (γ' > 1, α far above the bound) doubles the limit; α = 0 proposes the smallest limit
 * (a wrapper limits the step). The new limit is rounded away from the one in force (up when α is
 * above the bound, down below it), so that a small limit still moves.
 * Thread-safety: not thread-safe.
 */

/** PM-C: MPL from 004 eq. 13, moved from the limit in force. See the design note. */
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
        double a = Math.max(0, s.abandonRate());
        double denominator = a - gain * (a - abandonMax);
        double next = denominator <= 0 ? 2.0 * current : a * current / denominator;
        // round away from the limit in force, so a small limit still moves (1.3 × 1 is 2, not 1)
        double rounded = a > abandonMax ? Math.ceil(next - 1e-9) : a < abandonMax ? Math.floor(next + 1e-9) : current;
        current = (int) Math.max(1, Math.min(Integer.MAX_VALUE / 2, rounded));
        return current;
    }

    @Override
    public void enforced(int limit) {
        current = Math.max(1, limit);
    }

    @Override
    public int current() {
        return current;
    }
}
