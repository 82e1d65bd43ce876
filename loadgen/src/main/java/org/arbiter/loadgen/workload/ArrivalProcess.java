package org.arbiter.loadgen.workload;

import java.util.random.RandomGenerator;

/*
 * Design note — open-loop arrivals as pure functions of time and a random generator.
 *
 * An arrival process answers one question: given the last arrival (or the start of its phase) at
 * `afterSeconds`, when is the next one? The live load generator asks it on a timer and sends at
 * exactly that (intended) time; the simulator asks it on virtual time. Processes:
 *
 *   poisson       exponential gaps at a constant rate (003's and 000's open load).
 *   paretoOnOff   001's bursty source: ON and OFF periods Pareto(shape) with the given means;
 *                 while ON, one request every `interval`. Starts ON, with a request at its
 *                 start time (the one exception to "strictly after").
 *   diurnal       a compressed day: rate(t) = trough + (peak − trough)·(1 − cos 2πx)/2 with
 *                 x = (t − start)/length — trough at both ends, peak in the middle — drawn by
 *                 thinning a Poisson process at the peak rate (Lewis–Shedler), so it is exact;
 *                 optionally times a log-normal factor per noise interval (a real day's noise).
 *
 * Thread-safety: instances may hold state (the ON/OFF period of a Pareto source); use one per
 * source from one thread.
 */

/** When the next request of an open-loop source arrives. See the design note. */
public interface ArrivalProcess {

    /** The next arrival strictly after {@code afterSeconds} (+∞ if there is none). */
    double nextArrival(double afterSeconds, RandomGenerator random);

    /** Poisson arrivals at {@code ratePerSecond} (0: none). */
    static ArrivalProcess poisson(double ratePerSecond) {
        if (!(ratePerSecond >= 0)) {
            throw new IllegalArgumentException("ratePerSecond: " + ratePerSecond + " (expected: >= 0)");
        }
        return (after, random) -> ratePerSecond == 0 ? Double.POSITIVE_INFINITY
                : after + Distributions.exponential(random, 1 / ratePerSecond);
    }

    /** 001's Pareto on/off source, ON from {@code startSeconds}. */
    static ArrivalProcess paretoOnOff(double shape, double onMeanSeconds, double offMeanSeconds, double intervalSeconds,
                                      double startSeconds) {
        return new ParetoOnOff(shape, onMeanSeconds, offMeanSeconds, intervalSeconds, startSeconds);
    }

    /** A compressed day over [{@code startSeconds}, {@code startSeconds + lengthSeconds}]. */
    static ArrivalProcess diurnal(double peakPerSecond, double troughPerSecond, double startSeconds, double lengthSeconds) {
        checkDay(peakPerSecond, troughPerSecond, lengthSeconds);
        return thinned(Math.max(peakPerSecond, troughPerSecond),
                t -> diurnalRate(peakPerSecond, troughPerSecond, startSeconds, lengthSeconds, t));
    }

    /**
     * A compressed day with noise: the diurnal rate multiplied, over each {@code noiseSeconds} from the start, by
     * a log-normal factor exp(σZ − σ²/2) (mean 1; Z standard normal, clipped to ±3), the factors fixed by
     * {@code noiseSeed} alone — the same day whatever the arrivals' random generator — so policies compared
     * on one seed see one day. σ = 0 is {@link #diurnal(double, double, double, double)}.
     */
    static ArrivalProcess diurnal(double peakPerSecond, double troughPerSecond, double startSeconds, double lengthSeconds,
                                  double noise, double noiseSeconds, long noiseSeed) {
        if (!(noise >= 0) || noise > 2) {
            throw new IllegalArgumentException("noise: " + noise + " (expected: 0..2)");
        }
        if (noise == 0) {
            return diurnal(peakPerSecond, troughPerSecond, startSeconds, lengthSeconds);
        }
        if (!(noiseSeconds > 0)) {
            throw new IllegalArgumentException("noiseSeconds: " + noiseSeconds + " (expected: > 0)");
        }
        checkDay(peakPerSecond, troughPerSecond, lengthSeconds);
        int intervals = (int) Math.ceil(lengthSeconds / noiseSeconds) + 1;
        double[] factor = new double[intervals];
        java.util.SplittableRandom r = new java.util.SplittableRandom(noiseSeed);
        double maxFactor = 0;
        for (int k = 0; k < intervals; k++) {
            double z = Math.max(-3, Math.min(3, r.nextGaussian()));
            factor[k] = Math.exp(noise * z - noise * noise / 2);
            maxFactor = Math.max(maxFactor, factor[k]);
        }
        return thinned(Math.max(peakPerSecond, troughPerSecond) * maxFactor, t -> diurnalRate(peakPerSecond,
                troughPerSecond, startSeconds, lengthSeconds, t)
                * factor[(int) Math.max(0, Math.min(intervals - 1, Math.floor((t - startSeconds) / noiseSeconds)))]);
    }

    private static void checkDay(double peakPerSecond, double troughPerSecond, double lengthSeconds) {
        if (!(peakPerSecond >= 0) || !(troughPerSecond >= 0)) {
            throw new IllegalArgumentException("peak/trough: " + peakPerSecond + "/" + troughPerSecond + " (expected: >= 0)");
        }
        if (!(lengthSeconds > 0)) {
            throw new IllegalArgumentException("lengthSeconds: " + lengthSeconds + " (expected: > 0)");
        }
    }

    /** Arrivals at {@code rate(t)} ≤ {@code max}, by thinning a Poisson process at {@code max} (Lewis–Shedler). */
    private static ArrivalProcess thinned(double max, java.util.function.DoubleUnaryOperator rate) {
        return (after, random) -> {
            if (max == 0) {
                return Double.POSITIVE_INFINITY;
            }
            double t = after;
            while (true) {
                t += Distributions.exponential(random, 1 / max);
                if (random.nextDouble() * max < rate.applyAsDouble(t)) {
                    return t;
                }
            }
        };
    }

    /** The diurnal rate at {@code t}: trough at the start and end, peak half-way. */
    static double diurnalRate(double peakPerSecond, double troughPerSecond, double startSeconds, double lengthSeconds,
                              double t) {
        double x = (t - startSeconds) / lengthSeconds;
        return troughPerSecond + (peakPerSecond - troughPerSecond) * (1 - Math.cos(2 * Math.PI * x)) / 2;
    }
}
