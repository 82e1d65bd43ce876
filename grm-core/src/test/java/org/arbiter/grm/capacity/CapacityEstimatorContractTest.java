package org.arbiter.grm.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * One contract over every estimator, fed by a small fluid queue model of a server with true
 * capacity 100 req/s, queue limit K = 128, under a slow sinusoid of load that crosses capacity.
 */
final class CapacityEstimatorContractTest {

    static final double TRUE_CAPACITY = 100;

    static List<Supplier<CapacityEstimator>> estimators() {
        return List.of(() -> CapacityEstimator.ofQueueMonitoring(0.01, 10, 0.9),
                () -> CapacityEstimator.ofUtilization(0.5),
                () -> CapacityEstimator.ofStatic(TRUE_CAPACITY));
    }

    /** Runs the fluid model for {@code periods} periods of 1 s, with backlog counters; returns the final estimate. */
    static double drive(CapacityEstimator e, int periods, double ioFraction, long seed) {
        return drive(e, periods, ioFraction, seed, true);
    }

    /**
     * As above; {@code backlog}: the samples carry the backlog a gateway reports (the time the
     * fluid queue was non-empty, at full service meanwhile), else none (an older gateway).
     */
    static double drive(CapacityEstimator e, int periods, double ioFraction, long seed, boolean backlog) {
        Random rnd = new Random(seed);
        double queue = 0;
        int k = 128;
        for (int p = 0; p < periods; p++) {
            double load = TRUE_CAPACITY * (0.9 + 0.25 * Math.sin(2 * Math.PI * p / 120.0)) * (0.95 + 0.1 * rnd.nextDouble());
            double peak = load * 1.1;
            double served = Math.min(TRUE_CAPACITY, queue + load);
            double seen = queue;
            queue = queue + load - served;
            double dropped = Math.max(0, queue - k);
            queue = Math.min(queue, k);
            double busy = served / TRUE_CAPACITY * (1 - ioFraction);
            // the queue is non-empty all period when load exceeds capacity, else until the start's backlog drains
            double backlogSeconds = load >= TRUE_CAPACITY ? 1 : Math.min(1, seen / (TRUE_CAPACITY - load));
            e.update(new CapacityEstimator.Sample(1, Math.round(load), Math.round(served), Math.round(dropped),
                    (seen + queue) / 2, peak, k, busy, backlog ? backlogSeconds : 0,
                    backlog ? TRUE_CAPACITY * backlogSeconds : 0));
        }
        return e.estimate();
    }

    @ParameterizedTest
    @MethodSource("estimators")
    void everyEstimator_isNonNegative_andNearCapacity_forCpuBoundWork(Supplier<CapacityEstimator> make) {
        double c = drive(make.get(), 600, 0, 1);
        assertThat(c).isGreaterThanOrEqualTo(0);
        assertThat(c).isCloseTo(TRUE_CAPACITY, within(TRUE_CAPACITY * 0.1));
    }

    @Test
    void queueMonitoring_withoutBacklogCounters_stillNearCapacity() {
        double c = drive(CapacityEstimator.ofQueueMonitoring(0.01, 10, 0.9), 600, 0, 1, false);
        assertThat(c).isCloseTo(TRUE_CAPACITY, within(TRUE_CAPACITY * 0.1));
    }

    @Test
    void utilisation_overshoots_ioBoundWork_whileQueueMonitoringDoesNot() {
        double util = drive(CapacityEstimator.ofUtilization(0.5), 600, 0.5, 2);
        double queue = drive(CapacityEstimator.ofQueueMonitoring(0.01, 10, 0.9), 600, 0.5, 2);
        assertThat(util).isGreaterThan(TRUE_CAPACITY * 1.2);
        assertThat(queue).isCloseTo(TRUE_CAPACITY, within(TRUE_CAPACITY * 0.1));
    }

    @Test
    void threshold_followsEquation2() {
        // t_f = 128 / (150 − 100) = 2.56 > T = 1: ([128 − 50] + 128) / 2 = 103.
        assertThat(QueueMonitoringEstimator.threshold(128, 150, 100, 1)).isCloseTo(103, within(1e-9));
        // t_f = 128 / (400 − 100) = 0.4267 ≤ 1: 64·400·0.4267 / (100·0.5733 + 400·0.4267)
        double tf = 128.0 / 300;
        assertThat(QueueMonitoringEstimator.threshold(128, 400, 100, 1))
                .isCloseTo(64 * 400 * tf / (100 * (1 - tf) + 400 * tf), within(1e-9));
        assertThat(QueueMonitoringEstimator.threshold(128, 90, 100, 1)).isEqualTo(128);
    }
}
