package org.arbiter.loadgen.workload;

import java.util.random.RandomGenerator;

/**
 * 001's Pareto on/off source (see {@link ArrivalProcess}): ON periods and OFF periods drawn from
 * Pareto(shape) with the given means; one request every {@code interval} while ON, the first at
 * the start of the ON period. Long-run rate: on/(on + off)/interval. Not thread-safe.
 */
final class ParetoOnOff implements ArrivalProcess {

    private final double shape;
    private final double onMeanSeconds;
    private final double offMeanSeconds;
    private final double intervalSeconds;
    private final double startSeconds;
    private double onFrom = Double.NaN;
    private double onUntil;

    ParetoOnOff(double shape, double onMeanSeconds, double offMeanSeconds, double intervalSeconds, double startSeconds) {
        if (!(shape > 1)) {
            throw new IllegalArgumentException("shape: " + shape + " (expected: > 1)");
        }
        if (!(onMeanSeconds > 0) || !(offMeanSeconds > 0) || !(intervalSeconds > 0)) {
            throw new IllegalArgumentException("on/off/interval: " + onMeanSeconds + "/" + offMeanSeconds + "/"
                    + intervalSeconds + " (expected: > 0)");
        }
        this.shape = shape;
        this.onMeanSeconds = onMeanSeconds;
        this.offMeanSeconds = offMeanSeconds;
        this.intervalSeconds = intervalSeconds;
        this.startSeconds = startSeconds;
    }

    @Override
    public double nextArrival(double afterSeconds, RandomGenerator random) {
        if (Double.isNaN(onFrom)) {
            onFrom = startSeconds;
            onUntil = startSeconds + Distributions.pareto(random, shape, onMeanSeconds);
            if (startSeconds >= afterSeconds) {
                return startSeconds;
            }
        }
        while (true) {
            // The next slot of the current ON period after `afterSeconds`.
            double k = Math.floor((afterSeconds - onFrom) / intervalSeconds) + 1;
            k = Math.max(0, k);
            double next = onFrom + k * intervalSeconds;
            if (next <= afterSeconds) {
                next = onFrom + (k + 1) * intervalSeconds; // rounding put the slot on `afterSeconds`
            }
            if (next < onUntil) {
                return next;
            }
            onFrom = onUntil + Distributions.pareto(random, shape, offMeanSeconds);
            onUntil = onFrom + Distributions.pareto(random, shape, onMeanSeconds);
            if (onFrom > afterSeconds) {
                return onFrom;
            }
        }
    }
}
