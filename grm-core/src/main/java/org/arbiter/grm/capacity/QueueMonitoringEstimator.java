package org.arbiter.grm.capacity;

import java.util.ArrayDeque;

/*
 * Design note — queue-monitoring capacity estimation (000 §5.3).
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
 * α is not given in 000; the default here is 0.9. One addition: the "too pessimistic" test
 * c < μ asks for an excess of more than two standard deviations of counting noise (√(μT)
 * completions), so the estimate does not ratchet upwards on lucky periods. And in the fast-start
 * stage the overflow threshold ℓ_th is computed with min(c, μ), not the inflated lower bound c; the
 * downward test there looks T_c ahead (ℓ̂ ≥ ℓ_th with a backlog of at least ℓ_th/4), so the
 * warning comes while a server can still boot; and the first downward adaptation restarts the
 * estimate from the mean μ of the last (up to 24) periods that began backlogged (the queue before
 * them held at least a tenth of a period's service) — each one a sample of the service rate, one
 * alone being ±1/√(μT) noisy. Judging a period by its own queue would pick the periods whose
 * service was slow, since that is when a queue builds.
 *
 * Thread-safety: not thread-safe; one control thread (or the simulator) feeds it.
 */

/** 000 eq. 1-5 with the mode bit and fast start. See the design note. */
final class QueueMonitoringEstimator implements CapacityEstimator {

    /** How many standard deviations of counting noise an upward correction needs. */
    static final double NOISE_SIGMAS = 2;

    /** A period is a service-rate sample when it began with this share of a period's service waiting. */
    static final double BACKLOG_SHARE = 0.1;

    /** Backlogged periods whose μ the fast start's exit averages. */
    static final int BACKLOGGED_SAMPLES = 24;

    /** Backlog seconds the service rate μ is measured over (the latest). */
    static final double BACKLOG_WINDOW_SECONDS = 1200;

    /** Backlog seconds before μ counts as measured. */
    static final double MIN_BACKLOG_SECONDS = 10;

    /** Backlog seconds after which the fast start ends even without a warning from the queue. */
    static final double FAST_START_BACKLOG_SECONDS = 30;

    private final double dropRatioBound;
    private final double forecastSeconds;
    private final double alpha;
    private double c;
    private boolean adapted;
    private double previousMeanQueue = Double.NaN;
    private double previousMu;
    /** (backlog seconds, requests taken into service in them) of recent periods, newest last. */
    private final ArrayDeque<double[]> backlog = new ArrayDeque<>();
    private double backlogSeconds;
    private double backlogAccepted;
    /** μ of the last periods in which arrivals found a queue (the server was busy throughout). */
    private final ArrayDeque<Double> backloggedMu = new ArrayDeque<>();

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
        double accepted = s.serviceRate();
        double meanQueue = s.meanQueueSeenByArrivals();
        double growth = Double.isNaN(previousMeanQueue) ? 0 : (meanQueue - previousMeanQueue) / t;
        double queueBefore = Double.isNaN(previousMeanQueue) ? 0 : previousMeanQueue;
        previousMeanQueue = meanQueue;
        double previousMuSeen = previousMu;
        previousMu = accepted;
        double forecast = Math.max(0, meanQueue + growth * forecastSeconds);
        addBacklog(s.backlogSeconds(), s.backlogAccepted());
        // μ: the service rate measured over the backlog window when there is one; else 000's n_acc/T
        boolean measured = backlogSeconds >= MIN_BACKLOG_SECONDS;
        double mu = measured ? backlogAccepted / backlogSeconds : accepted;
        double muError = measured ? Math.sqrt(Math.max(mu, 1e-9) / backlogSeconds) : Double.NaN;
        // Without backlog counters, a service-rate sample is a period that began backlogged — at
        // least a tenth of a period's service waiting — judged by the queue before it, not by its
        // own: a period picked for its own queue is picked because its service was slow.
        if (queueBefore >= Math.max(1, BACKLOG_SHARE * previousMuSeen * t) && s.accepted() > 0) {
            backloggedMu.addLast(accepted);
            while (backloggedMu.size() > BACKLOGGED_SAMPLES) {
                backloggedMu.removeFirst();
            }
        }
        // In the fast-start stage c is a lower bound raised by arrival peaks, often far above what
        // the server can do; judged against it, the queue could never overflow (λ_max ≤ c gives
        // ℓ_th = K) and the first warning would be the drops themselves. Until the first downward
        // adaptation the threshold uses what the server demonstrably serves, min(c, μ).
        double threshold = threshold(s.queueLimit(), s.peakArrivalRate(), adapted ? c : Math.min(c, mu), t);
        boolean optimistic = adapted
                ? Math.min(meanQueue, forecast) >= threshold && c > mu
                // fast start: the queue forecast T_c ahead (the start-up delay) overflows, with a real
                // backlog already — warn while a new server can still boot in time
                : forecast >= threshold && meanQueue >= threshold / 4 && c > mu;
        // "c < μ" and, measured, "c > μ" without a queue only beyond the noise: completions are
        // roughly Poisson, so a rate counted over T seconds carries ±√(μ/T); following lucky periods
        // upwards drifts the estimate above the truth (drops after a power-off).
        double noise = measured ? muError : Math.sqrt(Math.max(1, mu * t)) / t;
        boolean pessimistic = Math.max(meanQueue, forecast) < threshold && mu - c > NOISE_SIGMAS * noise;
        if (s.arrivals() > 0 && s.dropRatio() >= dropRatioBound) {
            c = mu;
            adapted = true;
        } else if (!adapted && (optimistic || backlogSeconds >= FAST_START_BACKLOG_SECONDS)) {
            // the fast start ends at its first downward adaptation, or once the backlog has measured
            // the service rate: the lower bound was never a measurement, so the estimate restarts
            // from the lower confidence bound of the measured rate (or, without backlog counters,
            // from the mean of the recent backlogged periods)
            c = measured ? mu - NOISE_SIGMAS * muError : backloggedServiceRate(accepted);
            adapted = true;
        } else if (!adapted) {
            c = Math.max(c, Math.max(s.peakArrivalRate(), accepted)); // fast start: a lower bound
        } else if (optimistic || pessimistic || measured && c - mu > NOISE_SIGMAS * muError) {
            c = alpha * c + (1 - alpha) * mu;
        }
        return c;
    }

    /** Adds a period's backlog; keeps the last BACKLOG_WINDOW_SECONDS of it. */
    private void addBacklog(double seconds, double servedInBacklog) {
        if (!(seconds > 0)) {
            return;
        }
        backlog.addLast(new double[] {seconds, servedInBacklog});
        backlogSeconds += seconds;
        backlogAccepted += servedInBacklog;
        while (backlogSeconds - backlog.peekFirst()[0] >= BACKLOG_WINDOW_SECONDS) {
            double[] old = backlog.removeFirst();
            backlogSeconds -= old[0];
            backlogAccepted -= old[1];
        }
    }

    /** The mean μ of the recent backlogged periods (a service-rate sample each), or μ without any. */
    private double backloggedServiceRate(double mu) {
        return backloggedMu.isEmpty() ? mu
                : backloggedMu.stream().mapToDouble(Double::doubleValue).average().orElse(mu);
    }

    @Override
    public double estimate() {
        return c;
    }

    @Override
    public double serviceRate() {
        return backlogSeconds > 0 ? backlogAccepted / backlogSeconds : 0; // used once MIN_BACKLOG_SECONDS are in
    }

    @Override
    public double backlogSeconds() {
        return backlogSeconds;
    }

    /** False while the estimate is still a lower bound (fast-start stage). */
    boolean adapting() {
        return adapted;
    }
}
