package org.arbiter.grm.sizing;

import java.util.ArrayDeque;

/**
 * λ̂: the arrival rate {@code aheadSeconds} ahead, by a least-squares line through the samples of
 * the last {@code windowSeconds}, never below the latest rate (a falling trend does not turn
 * servers off early: 000 §7.5 turns one off only when the rest carry the load). Core class; not
 * thread-safe.
 */
public final class RateForecast {

    private record Point(double t, double rate) {
    }

    private final double windowSeconds;
    private final double aheadSeconds;
    private final ArrayDeque<Point> points = new ArrayDeque<>();

    public RateForecast(double windowSeconds, double aheadSeconds) {
        if (!(windowSeconds > 0) || !(aheadSeconds >= 0)) {
            throw new IllegalArgumentException("window " + windowSeconds + " s, ahead " + aheadSeconds
                    + " s (expected: window > 0, ahead >= 0)");
        }
        this.windowSeconds = windowSeconds;
        this.aheadSeconds = aheadSeconds;
    }

    /** Adds the rate measured at {@code t}; returns the forecast. */
    public double update(double t, double rate) {
        points.addLast(new Point(t, rate));
        while (points.size() > 2 && points.peekFirst().t() < t - windowSeconds) {
            points.removeFirst();
        }
        int n = points.size();
        if (n < 2) {
            return rate;
        }
        double mt = 0;
        double mr = 0;
        for (Point p : points) {
            mt += p.t() / n;
            mr += p.rate() / n;
        }
        double sxx = 0;
        double sxy = 0;
        for (Point p : points) {
            sxx += (p.t() - mt) * (p.t() - mt);
            sxy += (p.t() - mt) * (p.rate() - mr);
        }
        double slope = sxx == 0 ? 0 : sxy / sxx;
        return Math.max(rate, mr + slope * (t + aheadSeconds - mt));
    }
}
