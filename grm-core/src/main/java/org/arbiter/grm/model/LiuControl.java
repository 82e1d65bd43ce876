package org.arbiter.grm.model;

/*
 * Design note — 001's Queue Length Model Based Feedback Control, as printed.
 *
 * Model (001 §4). At each control invocation:
 *
 *   Step 1: measure the current queue length l_current and update the request-rate estimate λ̂;
 *   Step 2: l_targeted = λ̂ · D_ref (Little's law at the target delay, M/M/1 or G/G/1);
 *   Step 3: μ_q = (1/D_ref + λ̂) + K · (l_current − l_targeted).
 *
 * The first term of Step 3 is the queueing-model predictor of 001 §3 (the service rate at which an
 * M/M/1 queue with arrival rate λ̂ has mean delay D_ref); the second is the queue-length feedback,
 * two-sided: a queue shorter than its steady level lowers the rate. 001 sets K = 1/D_ref; here K =
 * k / D_ref, so k = 1 is 001's choice and one k fits classes with different targets. Figure 2 adds a
 * feedback controller on the delay error whose output Δμ is summed with μ_q: μ = μ_q + Δμ. 001 does
 * not print its law; here it is a PI controller on the relative delay error ε = (d − D_ref)/D_ref of
 * the requests completed in the interval, made dimensionless like K:
 *
 *     Δμ = (kp · ε + ki · I) / D_ref,   I ← I + ε · Γ / D_ref,
 *
 * with the integral held within ±1/ki (|ki·I| ≤ 1, so the integral term never exceeds 1/D_ref, the
 * size of the predictor's own constant term: anti-windup) and not updated in an interval with no
 * completion (nothing was measured). μ is never negative.
 *
 * How this differs from Arbiter's queue-length mode (FlowModel.queueLength): that mode adds the
 * backlog over Γ to the arrival rate, k·max(0, ℓ − λ̃t̃)/Γ — one-sided, targeted at the measured
 * delay t̃ rather than D_ref, scaled by the control period, and with no delay feedback.
 *
 * With 001's K = 1/D_ref (k = 1) the law simplifies: μ_q = (1 + l_current)/D_ref, so λ̂ cancels and
 * each request finds a rate that serves the queue ahead of it and itself within D_ref.
 *
 * In the GRM (see FlowModel.liu and docs/grm.md) μ is a service rate, and the optimiser places weights.
 * 003 eq. 8-9 model a flow at weight w as w M/M/1 servers of rate μ₁ = 1/t̃ + λ̃/w̃ sharing its arrivals:
 * t(w) = 1/(μ₁ − λ/w). 001's single queue is the case w = 1 with μ₁ = μ. The GRM uses 001's law through
 * its arrival part, λ_q = μ − 1/D_ref = λ̂ + K(l − λ̂D_ref) + Δμ, as the λ of eq. 9: the flow is then
 * predicted at D_ref exactly at w* = λ_q/(μ₁ − 1/D_ref), and at w = 1 that is μ₁ = μ.
 *
 * Thread-safety: the static laws are pure; a Pi instance is not thread-safe (one per flow, on the
 * control loop's thread).
 */

/**
 * 001's Queue Length Model Based Feedback Control (001 §4, Step 1-3 and Fig. 2): the service-rate law
 * and its PI term. See the design note in the source.
 */
public final class LiuControl {

    private LiuControl() {
    }

    /**
     * 001 §4 Step 2-3: μ_q = (1/D_ref + λ̂) + K·(l_current − λ̂·D_ref), with K = k / D_ref.
     *
     * @param arrivalRatePerSecond λ̂, the request-rate estimate (Step 1)
     * @param queueLength          l_current, the requests waiting (001's queue; not those in service, as the
     *                             gateway's ℓ: see the bursty experiment, where counting the one in service
     *                             too put the mean delay 19 % below D_ref)
     * @param targetSeconds        D_ref (> 0)
     * @param k                    K in units of 1/D_ref (001: 1)
     * @return μ_q in requests per second (may be below 1/D_ref, or negative with k > 1 and an empty queue)
     */
    public static double serviceRate(double arrivalRatePerSecond, double queueLength, double targetSeconds, double k) {
        if (!(targetSeconds > 0)) {
            throw new IllegalArgumentException("target: " + targetSeconds + " (expected: > 0)");
        }
        double targeted = arrivalRatePerSecond * targetSeconds;
        return 1 / targetSeconds + arrivalRatePerSecond + k / targetSeconds * (queueLength - targeted);
    }

    /** 001 §3's queueing-model predictor alone: μ = 1/D_ref + λ̂ (Step 3 without the queue term). */
    public static double modelServiceRate(double arrivalRatePerSecond, double targetSeconds) {
        return serviceRate(arrivalRatePerSecond, 0, targetSeconds, 0);
    }

    /**
     * The PI feedback of 001 Fig. 2 on the delay error, Δμ. One per flow; not thread-safe.
     */
    public static final class Pi {
        private final double kp;
        private final double ki;
        private final boolean bounded;
        private double integral;
        private double last;

        /**
         * @param kp proportional gain (dimensionless, ≥ 0)
         * @param ki integral gain per D_ref of time (dimensionless, ≥ 0)
         */
        public Pi(double kp, double ki) {
            this(kp, ki, true);
        }

        /**
         * A PI term whose integral is free above ({@code bounded} false), as the feedback loop of 001
         * §3's Queueing Model Based Feedback Control ([18] in 001) is described (the long-term mean
         * delay close to D_ref, 001 §3): an integrator that drives the long-run delay error to zero
         * whatever extra rate that needs. Below it keeps the bound, ki·I ≥ −1: the loop may slow the
         * server by at most the predictor's 1/D_ref headroom, to λ̂, never under the arrivals. (Free
         * both ways, light load — delays under D_ref for hours — wound it down until μ was near 0,
         * and the next burst queued for 20 minutes: the bursty experiment's seed 26, mean 15.6 s.)
         */
        public static Pi freeAbove(double kp, double ki) {
            return new Pi(kp, ki, false);
        }

        private Pi(double kp, double ki, boolean bounded) {
            this.bounded = bounded;
            if (!(kp >= 0) || Double.isInfinite(kp)) {
                throw new IllegalArgumentException("kp: " + kp + " (expected: >= 0)");
            }
            if (!(ki >= 0) || Double.isInfinite(ki)) {
                throw new IllegalArgumentException("ki: " + ki + " (expected: >= 0)");
            }
            this.kp = kp;
            this.ki = ki;
        }

        /**
         * One control invocation.
         *
         * @param measuredDelaySeconds d, the mean delay of the requests completed in the interval; NaN
         *                             when none completed (Δμ then holds its integral part)
         * @param targetSeconds        D_ref
         * @param periodSeconds        Γ, the time since the last invocation
         * @return Δμ in requests per second
         */
        public double update(double measuredDelaySeconds, double targetSeconds, double periodSeconds) {
            if (!(targetSeconds > 0)) {
                throw new IllegalArgumentException("target: " + targetSeconds + " (expected: > 0)");
            }
            if (Double.isNaN(measuredDelaySeconds)) {
                last = ki * integral / targetSeconds;
                return last;
            }
            double error = (measuredDelaySeconds - targetSeconds) / targetSeconds;
            integral += error * Math.max(0, periodSeconds) / targetSeconds;
            if (ki > 0) {
                // below: never slower than the predictor's rate minus its 1/D_ref headroom, λ̂ (a
                // rate under the arrivals lets the queue grow without bound); above: bounded, or free
                integral = Math.max(-1 / ki, bounded ? Math.min(1 / ki, integral) : integral);
            } else {
                integral = 0;
            }
            last = (kp * error + ki * integral) / targetSeconds;
            return last;
        }

        /** The last Δμ returned (0 before the first update). */
        public double last() {
            return last;
        }
    }
}
