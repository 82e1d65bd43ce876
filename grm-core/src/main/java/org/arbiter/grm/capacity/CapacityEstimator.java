package org.arbiter.grm.capacity;

/**
 * Estimates the request rate a server sustains with a drop ratio at most ε_th (000 §4:
 * "capacity"). Fed one sample per sampling period; core classes, not thread-safe.
 */
public interface CapacityEstimator {

    /**
     * One sampling period of one server (or of the queue in front of it).
     *
     * @param periodSeconds           T
     * @param arrivals                n_arr, enqueueing attempts
     * @param accepted                n_acc, requests taken into service
     * @param dropped                 n_d, requests refused (queue full or timed out)
     * @param meanQueueSeenByArrivals ℓ̄, the mean queue length arrivals found
     * @param peakArrivalRate         λ_max over sub-intervals of the period, req/s
     * @param queueLimit              K
     * @param busyFraction            the server's utilisation in [0, 1] (for utilisation-based estimators)
     * @param backlogSeconds          time in the period during which requests waited for a busy server
     * @param backlogAccepted         requests the server took into service in that time (each when it
     *                                finished one): divided by backlogSeconds, its service rate
     */
    record Sample(double periodSeconds, long arrivals, long accepted, long dropped, double meanQueueSeenByArrivals,
                  double peakArrivalRate, int queueLimit, double busyFraction, double backlogSeconds,
                  double backlogAccepted) {

        /** Without backlog counters. */
        public Sample(double periodSeconds, long arrivals, long accepted, long dropped, double meanQueueSeenByArrivals,
                      double peakArrivalRate, int queueLimit, double busyFraction) {
            this(periodSeconds, arrivals, accepted, dropped, meanQueueSeenByArrivals, peakArrivalRate, queueLimit,
                    busyFraction, 0, 0);
        }

        public Sample {
            if (!(periodSeconds > 0)) {
                throw new IllegalArgumentException("periodSeconds: " + periodSeconds + " (expected: > 0)");
            }
            if (arrivals < 0 || accepted < 0 || dropped < 0) {
                throw new IllegalArgumentException("counts: " + arrivals + "/" + accepted + "/" + dropped + " (expected: >= 0)");
            }
            if (!(backlogSeconds >= 0 && backlogSeconds <= periodSeconds * (1 + 1e-9)) || !(backlogAccepted >= 0)) {
                throw new IllegalArgumentException("backlog: " + backlogAccepted + " in " + backlogSeconds
                        + " s (expected: >= 0, at most the period)");
            }
        }

        /** λ = n_arr / T. */
        public double arrivalRate() {
            return arrivals / periodSeconds;
        }

        /** μ = n_acc / T. */
        public double serviceRate() {
            return accepted / periodSeconds;
        }

        /** ε = n_d / n_arr (0 without arrivals). */
        public double dropRatio() {
            return arrivals == 0 ? 0 : (double) dropped / arrivals;
        }
    }

    /** Takes one period's sample and returns the estimate after it (req/s; 0 = no estimate yet). */
    double update(Sample sample);

    /** The service rate measured in the gateways' backlog, req/s per server (0 = not measured). */
    default double serviceRate() {
        return 0;
    }

    /** Seconds of backlog the service rate is measured over. */
    default double backlogSeconds() {
        return 0;
    }

    /** The current estimate (req/s; 0 = no estimate yet). */
    double estimate();

    /** A configured figure, never updated (000's static estimator). */
    static CapacityEstimator ofStatic(double requestsPerSecond) {
        return new StaticEstimator(requestsPerSecond);
    }

    /** Throughput divided by the busy fraction the server reports (000's CPU-utilisation estimator). */
    static CapacityEstimator ofUtilization(double smoothing) {
        return new UtilizationEstimator(smoothing);
    }

    /** 000 eq. 1-5 with the mode bit and fast start. */
    static CapacityEstimator ofQueueMonitoring(double dropRatioBound, double forecastSeconds, double alpha) {
        return new QueueMonitoringEstimator(dropRatioBound, forecastSeconds, alpha);
    }
}
