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
 *                 thinning a Poisson process at the peak rate (Lewis–Shedler), so it is exact.
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
        if (!(peakPerSecond >= 0) || !(troughPerSecond >= 0)) {
            throw new IllegalArgumentException("peak/trough: " + peakPerSecond + "/" + troughPerSecond + " (expected: >= 0)");
        }
        if (!(lengthSeconds > 0)) {
            throw new IllegalArgumentException("lengthSeconds: " + lengthSeconds + " (expected: > 0)");
        }
        double max = Math.max(peakPerSecond, troughPerSecond);
        return (after, random) -> {
            if (max == 0) {
                return Double.POSITIVE_INFINITY;
            }
            double t = after;
            while (true) {
                t += Distributions.exponential(random, 1 / max);
                if (random.nextDouble() * max < diurnalRate(peakPerSecond, troughPerSecond, startSeconds, lengthSeconds, t)) {
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
