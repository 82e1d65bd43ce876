package org.arbiter.sim.experiment;

import java.util.List;

/**
 * The {@code concurrency} experiment's result (003 Fig. 7).
 *
 * @param points throughput at each N_s
 * @param knee   the smallest N_s reaching 95 % of the peak throughput
 */
public record ConcurrencyResult(List<Point> points, int knee) {

    public ConcurrencyResult {
        points = List.copyOf(points);
    }

    /** Throughput (req/s, rounded by {@link Experiments#round}) at {@code concurrency} = N_s. */
    public record Point(int concurrency, double throughput) {
    }
}
