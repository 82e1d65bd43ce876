package org.arbiter.grm.capacity;

/*
 * Design note — queue-monitoring capacity estimation (000 §5, Tsai et al.).
 *
 * Per sampling period T: arrivals n_arr, accepted n_acc, dropped n_d, mean queue length seen by
 * arrivals ℓ̄, peak arrival rate λ_max, queue limit K. λ = n_arr/T, μ = n_acc/T, ε = n_d/n_arr.
 *
 *   eq. 1  t_f = K / (λ_max − c)                     time to fill the queue (if λ_max > c)
 *   eq. 2  ℓ_th = (K/2)·λ_max·t_f / (c(T − t_f) + λ_max t_f)   if t_f ≤ T
 *               = ([K − (λ_max − c)T] + K) / 2                  if t_f > T
 *          the least mean queue length that can overflow within one period; with t_f
 *          undefined (λ_max ≤ c) the queue cannot overflow and ℓ_th = K.
 *   eq. 3  ℓ̂ = ℓ̄ + ℓ'·T_c                           queue forecast T_c ahead (the start-up delay),
 *          ℓ' the growth of ℓ̄ per second over the last period.
 *   eq. 4  I = 1 when min(ℓ̄, ℓ̂) ≥ ℓ_th and c > μ (too optimistic)
 *               or max(ℓ̄, ℓ̂) < ℓ_th and c < μ (too pessimistic)
 *   eq. 5  c' = μ                  if ε ≥ ε_th        (constraint violated: clamp to what is served)
 *             = α c + (1 − α) μ    if ε < ε_th and I = 1
 *             = c                  otherwise
 *
 * Mode bit and fast start: until the first downward adaptation the mode bit is OFF and, when no
 * downward condition holds, c follows the peak arrival rate upward (c = max(c, λ_max)): the
 * estimate is then a lower bound. The first downward adaptation sets the bit ON for good.
 * α is not given in the paper; the default here is 0.9.
 *
 * Thread-safety: not thread-safe; one control thread (or the simulator) feeds it.
 */

/** 000 eq. 1-5 with the mode bit and fast start. See the design note. */
final class QueueMonitoringEstimator implements CapacityEstimator {

    private final double dropRatioBound;
    private final double forecastSeconds;
    private final double alpha;
    private double c;
    private boolean adapted;
    private double previousMeanQueue = Double.NaN;

    QueueMonitoringEstimator(double dropRatioBound, double forecastSeconds, double alpha) {
        if (!(dropRatioBound > 0 && dropRatioBound < 1)) {
            throw new IllegalArgumentException("dropRatio: " + dropRatioBound + " (expected: between 0 and 1)");
        }
        if (!(forecastSeconds >= 0)) {
            throw new IllegalArgumentException("forecastSeconds: " + forecastSeconds + " (expected: >= 0)");
        }
        if (!(alpha >= 0 && alpha < 1)) {
            throw new IllegalArgumentException("alpha: " + alpha + " (expected: 0 <= x < 1)");
        }
        this.dropRatioBound = dropRatioBound;
        this.forecastSeconds = forecastSeconds;
        this.alpha = alpha;
    }

    /** ℓ_th, eq. 1-2. */
    static double threshold(double k, double lambdaMax, double c, double t) {
        if (!(lambdaMax > c)) {
            return k;
        }
        double tf = k / (lambdaMax - c);
        if (tf <= t) {
            return (k / 2) * lambdaMax * tf / (c * (t - tf) + lambdaMax * tf);
        }
        return ((k - (lambdaMax - c) * t) + k) / 2;
    }

    @Override
    public double update(Sample s) {
        double t = s.periodSeconds();
        double mu = s.serviceRate();
        double meanQueue = s.meanQueueSeenByArrivals();
        double growth = Double.isNaN(previousMeanQueue) ? 0 : (meanQueue - previousMeanQueue) / t;
        previousMeanQueue = meanQueue;
        double forecast = Math.max(0, meanQueue + growth * forecastSeconds);
        double threshold = threshold(s.queueLimit(), s.peakArrivalRate(), c, t);
        boolean optimistic = Math.min(meanQueue, forecast) >= threshold && c > mu;
        boolean pessimistic = Math.max(meanQueue, forecast) < threshold && c < mu;
        if (s.arrivals() > 0 && s.dropRatio() >= dropRatioBound) {
            c = mu;
            adapted = true;
        } else if (optimistic) {
            c = alpha * c + (1 - alpha) * mu;
            adapted = true;
        } else if (!adapted) {
            c = Math.max(c, Math.max(s.peakArrivalRate(), mu)); // fast start: a lower bound
        } else if (pessimistic) {
            c = alpha * c + (1 - alpha) * mu;
        }
        return c;
    }

    @Override
    public double estimate() {
        return c;
    }

    /** False while the estimate is still a lower bound (fast-start stage). */
    boolean adapting() {
        return adapted;
    }
}
