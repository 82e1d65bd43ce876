package org.arbiter.grm.sizing;

import java.util.ArrayDeque;

/**
 * λ̂: the arrival rate {@code aheadSeconds} ahead, by a least-squares line through the samples of
 * the last {@code windowSeconds} when its slope stands out of the noise (more than two standard
 * errors from 0); otherwise the level of the window. It never falls below the latest rate less two
 * standard deviations of its counting noise (√(λ/W) for a rate counted over W seconds): a surge
 * the window's line has not caught up with still counts, a lucky window does not. (A falling trend
 * does not turn servers off early: 000 §7.5 turns one off only when the rest carry the load.)
 * Core class; not thread-safe.
 */
public final class RateForecast {

    private record Point(double t, double rate) {
    }

    private final double windowSeconds;
    private final double aheadSeconds;
    private final double overlap;
    private final double measureSeconds;
    private final ArrayDeque<Point> points = new ArrayDeque<>();
    private double level;
    private boolean falling;

    /**
     * @param windowSeconds  the line is fitted over the samples of this last stretch of time
     * @param aheadSeconds   how far ahead λ̂ looks (T_c, the start-up delay)
     * @param overlap        how many consecutive samples share their measurement (the statistics
     *                       window over the control period): their noise is correlated, so the
     *                       slope's standard error is widened by √overlap
     * @param measureSeconds W, the window each rate is counted over
     */
    public RateForecast(double windowSeconds, double aheadSeconds, double overlap, double measureSeconds) {
        this.overlap = Math.max(1, overlap);
        if (!(windowSeconds > 0) || !(aheadSeconds >= 0) || !(measureSeconds > 0)) {
            throw new IllegalArgumentException("window " + windowSeconds + " s, ahead " + aheadSeconds
                    + " s, measured over " + measureSeconds + " s (expected: window > 0, ahead >= 0, measured > 0)");
        }
        this.windowSeconds = windowSeconds;
        this.aheadSeconds = aheadSeconds;
        this.measureSeconds = measureSeconds;
    }

    /** Adds the rate measured at {@code t}; returns the forecast. */
    public double update(double t, double rate) {
        points.addLast(new Point(t, rate));
        while (points.size() > 2 && points.peekFirst().t() < t - windowSeconds) {
            points.removeFirst();
        }
        double floor = Math.max(0, rate - 2 * Math.sqrt(Math.max(rate, 0) / measureSeconds));
        falling = false;
        int n = points.size();
        if (n < 2) {
            level = rate;
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
        if (n > 2 && sxx > 0) {
            // extrapolate only a trend that stands out of the noise: a slope within two standard
            // errors of 0 would add noise, and taking the max with the rate makes noise one-sided
            double rss = 0;
            for (Point p : points) {
                double e = p.rate() - (mr + slope * (p.t() - mt));
                rss += e * e;
            }
            double se = Math.sqrt(rss / (n - 2) / sxx * overlap);
            if (Math.abs(slope) <= 2 * se) {
                level = mr;
                return Math.max(floor, level);
            }
        }
        level = mr + slope * (t - mt);
        falling = slope < 0;
        return Math.max(floor, mr + slope * (t + aheadSeconds - mt));
    }

    /** The rate now as the last update saw it: the trend line's value, or the window's level without a trend. */
    public double level() {
        return level;
    }

    /** True when the last update found a falling trend that stands out of the noise. */
    public boolean falling() {
        return falling;
    }
}
