package org.arbiter.grm.model;

/*
 * Design note — the flow model.
 *
 * Model (003 §IV-C, eq. 8-9). Each flow (g, c) is an M/M/1-like queue whose service rate grows
 * with the share w of the cluster's concurrent slots it holds. From one control period's
 * measurements — arrival rate λ̃ (req/s), mean response time t̃ (s), weight in force w̃ — the
 * per-unit-of-weight service rate is inferred by eq. 8:
 *
 *     μ = 1/t̃ + λ̃/w̃,
 *
 * so that t̃ = 1/(μ − λ̃/w̃), and the response time under another weight w is eq. 9:
 *
 *     t(w) = 1 / (1/t̃ + λ̃ (1/w̃ − 1/w)) = 1 / (μ − λ/w).
 *
 * Clamping. A denominator ≤ 0 means the flow would be unstable at w: its prediction is the cap
 * (responseTimeCap · τ_c); any prediction above the cap is clamped to it, so a starved flow is
 * bad but finite and the optimiser can still compare allocations. A flow with λ̃ = 0 has a
 * constant prediction (t̃ if measured, else 0); so does a flow with no response time measured.
 *
 * Queue-length feedback (001 Steps 1-3). 003 eq. 9 sees only the average arrival rate;
 * under bursty load a backlog ℓ builds up that the average hides. In steady state Little's law
 * gives the queue length the flow should carry, λ̃·t̃; the excess ℓ − λ̃·t̃ is backlog that must
 * be served on top of the new arrivals. Requiring it to drain within the next control period Γ
 * (with gain k) adds k·max(0, ℓ − λ̃·t̃)/Γ to the arrival rate used for the prediction:
 *
 *     λ = λ̃ + k · max(0, ℓ − λ̃ t̃) / Γ,     t(w) = 1 / (μ − λ/w),
 *
 * with μ still inferred from the measured λ̃ by 003 eq. 8 (the backlog does not change the service
 * rate, only the load it must carry). With ℓ at its steady level the prediction is 003 eq. 9's.
 *
 * 001's controller as printed (Step 1-3, see LiuControl). Its service rate μ = 1/D_ref + λ_q with
 * λ_q = λ̃ + K(ℓ − λ̃·D_ref) + Δμ, K = k/D_ref, is used through its arrival part: eq. 9 predicts with
 * λ = max(0, λ_q), so a flow alone is predicted at D_ref = τ_c exactly where its weight buys 001's μ
 * (at w = 1, μ₁ = μ). Unlike the queue-length mode this is two-sided (a short queue lowers λ), aims at
 * D_ref rather than the measured t̃, does not depend on Γ, and carries the PI term Δμ.
 *
 * The weight in force (w̃). 003 §IV-C assumes λ̃ "was evenly divided among the server threads
 * that have been concurrently executing" the flow's requests. Under a work-conserving WRR that is
 * not the weight: a flow with little demand holds fewer slots than its weight, and a backlogged one
 * more (it takes the others' unused share). The GRM therefore passes w̃ = the slots the flow held
 * on average, X̃·S̃ (throughput times mean service time, Little's law at the servers), when the
 * gateway measured them (GrmStep, "slots in use"); the configured weight only when it did not.
 *
 * Closed-loop traffic (think time Z). Eq. 9 holds λ fixed whatever w is. With closed-loop clients
 * (003 §V: each waits for its answer, then thinks Exp(Z)) the arrival rate falls as the response
 * time grows: λ(t) = n/(Z + t), with the population n = λ̃·(Z + t̃) inferred from the same
 * measurement. Putting λ(t) into t = 1/(μ − λ/w) gives
 *
 *     μ w t² + (μ w Z − n − w) t − w Z = 0,
 *
 * whose positive root is the prediction. At w = w̃ it returns t̃ (μ is still eq. 8); as Z → ∞ it
 * tends to eq. 9; with Z finite it is always stable (a starved closed flow waits, it does not
 * diverge). Without this, near saturation eq. 9 sees any weight below λ̃/μ as unstable and the
 * optimiser never moves a slot between two saturated classes (docs/experiments.md, phases).
 *
 * Thread-safety: immutable.
 */

/**
 * Predicts a flow's mean response time as a function of its weight (003 eq. 8-9), optionally
 * with queue-length feedback (001). Immutable and thread-safe.
 *
 * @param arrivalRatePerSecond    λ̃, measured
 * @param responseTimeSeconds     t̃, measured (0 = not measured)
 * @param weightInForce           w̃ > 0, the weight the measurement was taken under
 * @param capSeconds              the largest prediction (responseTimeCap · τ_c)
 * @param predictionArrivalRate   λ used in 003 eq. 9 (λ̃, or λ̃ plus the backlog term)
 * @param thinkTimeSeconds        Z of closed-loop clients; +∞ for open-loop traffic (eq. 9 as printed)
 */
public record FlowModel(double arrivalRatePerSecond, double responseTimeSeconds, double weightInForce,
                        double capSeconds, double predictionArrivalRate, double thinkTimeSeconds,
                        double serviceTimeSeconds) {

    /** Open-loop traffic. */
    public FlowModel(double arrivalRatePerSecond, double responseTimeSeconds, double weightInForce,
                     double capSeconds, double predictionArrivalRate) {
        this(arrivalRatePerSecond, responseTimeSeconds, weightInForce, capSeconds, predictionArrivalRate,
                Double.POSITIVE_INFINITY);
    }

    /** Without a service time: 003 eq. 8-9 (with the think time, if finite). */
    public FlowModel(double arrivalRatePerSecond, double responseTimeSeconds, double weightInForce,
                     double capSeconds, double predictionArrivalRate, double thinkTimeSeconds) {
        this(arrivalRatePerSecond, responseTimeSeconds, weightInForce, capSeconds, predictionArrivalRate,
                thinkTimeSeconds, 0);
    }

    /** The same model for closed-loop clients with think time {@code z} (+∞: open loop). */
    public FlowModel withThinkTime(double z) {
        return new FlowModel(arrivalRatePerSecond, responseTimeSeconds, weightInForce, capSeconds,
                predictionArrivalRate, z, serviceTimeSeconds);
    }

    /**
     * The same model with the measured mean service time S̃ (s, > 0): the slot model (see "Slots" in
     * the design note) instead of eq. 8-9; 0 goes back to eq. 8-9.
     */
    public FlowModel withServiceTime(double s) {
        return new FlowModel(arrivalRatePerSecond, responseTimeSeconds, weightInForce, capSeconds,
                predictionArrivalRate, thinkTimeSeconds, s);
    }

    public FlowModel {
        if (!(serviceTimeSeconds >= 0) || Double.isInfinite(serviceTimeSeconds)) {
            throw new IllegalArgumentException("serviceTime: " + serviceTimeSeconds + " (expected: >= 0)");
        }
        if (!(thinkTimeSeconds >= 0)) {
            throw new IllegalArgumentException("thinkTime: " + thinkTimeSeconds + " (expected: >= 0)");
        }
        if (!(arrivalRatePerSecond >= 0) || Double.isInfinite(arrivalRatePerSecond)) {
            throw new IllegalArgumentException("arrivalRate: " + arrivalRatePerSecond + " (expected: >= 0)");
        }
        if (!(responseTimeSeconds >= 0) || Double.isInfinite(responseTimeSeconds)) {
            throw new IllegalArgumentException("responseTime: " + responseTimeSeconds + " (expected: >= 0)");
        }
        if (!(weightInForce > 0) || Double.isInfinite(weightInForce)) {
            throw new IllegalArgumentException("weight: " + weightInForce + " (expected: > 0)");
        }
        if (!(capSeconds > 0)) {
            throw new IllegalArgumentException("cap: " + capSeconds + " (expected: > 0)");
        }
    }

    /** 003's model (eq. 8-9). */
    public static FlowModel mm1(double arrivalRate, double responseTime, double weightInForce, double capSeconds) {
        return new FlowModel(arrivalRate, responseTime, weightInForce, capSeconds, arrivalRate);
    }

    /** With 001's queue-length feedback: λ = λ̃ + gain·max(0, ℓ − λ̃t̃)/Γ. */
    public static FlowModel queueLength(double arrivalRate, double responseTime, double weightInForce, double capSeconds,
                                        double queueLength, double periodSeconds, double gain) {
        if (!(periodSeconds > 0)) {
            throw new IllegalArgumentException("controlPeriod: " + periodSeconds + " (expected: > 0)");
        }
        double backlog = Math.max(0, queueLength - arrivalRate * responseTime);
        return new FlowModel(arrivalRate, responseTime, weightInForce, capSeconds,
                arrivalRate + gain * backlog / periodSeconds);
    }

    /**
     * With 001's controller (Step 1-3, {@link LiuControl}): λ = max(0, μ_q + Δμ − 1/D_ref).
     *
     * @param targetSeconds D_ref, the class target τ_c
     * @param k             K in units of 1/D_ref (001: 1)
     * @param deltaMu       Δμ of the PI term, req/s (0 without it)
     */
    public static FlowModel liu(double arrivalRate, double responseTime, double weightInForce, double capSeconds,
                                double queueLength, double targetSeconds, double k, double deltaMu) {
        double mu = LiuControl.serviceRate(arrivalRate, queueLength, targetSeconds, k) + deltaMu;
        return new FlowModel(arrivalRate, responseTime, weightInForce, capSeconds,
                Math.max(0, mu - 1 / targetSeconds));
    }

    /**
     * The service rate a single queue needs for this model to predict {@code targetSeconds}: 1/τ + λ,
     * with λ this model's prediction arrival rate (001's μ when built by {@link #liu}).
     */
    public double serviceRateFor(double targetSeconds) {
        return 1 / targetSeconds + predictionArrivalRate;
    }

    /** μ, 003 eq. 8: service rate per unit of weight, inferred from the measurement. */
    public double mu() {
        return 1 / responseTimeSeconds + arrivalRatePerSecond / weightInForce;
    }

    /** True when the prediction does not depend on the weight. */
    public boolean isConstant() {
        return arrivalRatePerSecond == 0 || responseTimeSeconds == 0;
    }

    /**
     * True when {@link #predict} is non-increasing in w and convex wherever it is below the cap: open
     * loop, where every variant is t = 1/(μ − λ/w) (1/x of a concave, increasing denominator), floored at
     * S̃ in the slot model (a max of convex functions). The closed-loop forms (the quadratic's root,
     * the finite-source queue) are not claimed.
     */
    public boolean convexInWeight() {
        return thinkTimeSeconds == Double.POSITIVE_INFINITY;
    }

    /** t(w), 003 eq. 9, clamped to the cap; an unstable prediction is the cap. */
    public double predict(double weight) {
        if (isConstant()) {
            return Math.min(responseTimeSeconds, capSeconds);
        }
        if (!(weight > 0)) {
            return capSeconds;
        }
        if (serviceTimeSeconds > 0) {
            return Math.min(slots(weight), capSeconds);
        }
        if (thinkTimeSeconds < Double.POSITIVE_INFINITY) {
            double z = thinkTimeSeconds;
            double m = mu();
            double n = predictionArrivalRate * (z + responseTimeSeconds);
            double a = m * weight;
            double b = m * weight * z - n - weight;
            double c = -weight * z;
            double disc = b * b - 4 * a * c;
            double t = (-b + Math.sqrt(disc)) / (2 * a);
            return t > 0 && Double.isFinite(t) ? Math.min(t, capSeconds) : capSeconds;
        }
        double denominator = mu() - predictionArrivalRate / weight;
        if (denominator <= 0) {
            return capSeconds;
        }
        return Math.min(1 / denominator, capSeconds);
    }

    /**
     * The slot model: c = w slots, each serving one request at a time for S̃ on average. Closed loop:
     * the finite-source queue M/M/c//n with n = λ·(Z + t̃) clients. Open loop: eq. 9 with S̃ as its
     * floor (M/M/c, Erlang C, would call a saturated measurement — closed-loop clients not declared
     * as such — unstable at its own weight; eq. 9 is calibrated on it).
     * n = λ·(Z + t̃) is rounded to whole clients; a non-integer c
     * is interpolated linearly between its neighbours; c below 1 is one slot
     * running at speed c. +∞ when unstable (open loop, λS̃ ≥ c).
     */
    private double slots(double c) {
        double s = serviceTimeSeconds;
        if (thinkTimeSeconds < Double.POSITIVE_INFINITY) {
            // clients are whole: λ̃(Z + t̃) estimates their number with the window's noise
            int n = (int) Math.round(Math.min(predictionArrivalRate * (thinkTimeSeconds + responseTimeSeconds), MAX_CLIENTS));
            return interpolateSlots(c, s, n, thinkTimeSeconds);
        }
        // open loop: eq. 9 (calibrated on the measurement, so the state measured is stable), never below S̃
        double denominator = mu() - predictionArrivalRate / c;
        return denominator <= 0 ? Double.POSITIVE_INFINITY : Math.max(s, 1 / denominator);
    }

    /** The most clients the closed-loop slot model counts (its cost is linear in them). */
    static final double MAX_CLIENTS = 100_000;

    /**
     * {@link #finiteSource} at a real c ≥ 0, linear between ⌊c⌋ and ⌈c⌉; below one slot, one slot of
     * speed c.
     */
    private static double interpolateSlots(double c, double s, int n, double z) {
        if (c < 1) {
            return finiteSource(n, 1, s / c, z);
        }
        int lo = (int) Math.floor(c);
        double f = c - lo;
        double tLo = finiteSource(n, lo, s, z);
        // both ends are ≥ s; the max only undoes rounding in the blend
        return f == 0 ? tLo : Math.max(s, (1 - f) * tLo + f * finiteSource(n, lo + 1, s, z));
    }

    /**
     * Mean response time of n closed-loop clients (think Z, exponential) on c slots of mean service
     * time s, the finite-source queue M/M/c//n: p_k ∝ p_{k−1}·(n − k + 1)(s/Z)/min(k, c), throughput
     * X = Σ p_k min(k, c)/s, response n/X − Z (the interactive response time law). s when n = 0.
     */
    public static double finiteSource(int n, int c, double s, double z) {
        if (n <= 0) {
            return s;
        }
        if (z == 0) {
            return n * s / Math.min(n, c);
        }
        double r = s / z;
        double p = 1;
        double sum = 1;
        double busy = 0;
        for (int k = 1; k <= n; k++) {
            p *= (n - k + 1) * r / Math.min(k, c);
            sum += p;
            busy += p * Math.min(k, c);
            if (sum > 1e250) { // rescale: only the ratio busy/sum matters
                p *= 1e-250;
                sum *= 1e-250;
                busy *= 1e-250;
            }
        }
        double x = busy / sum / s;
        return Math.max(s, n / x - z);
    }
}
