package org.arbiter.grm.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The fast start's exit: which periods count as samples of the service rate. */
final class QueueMonitoringEstimatorTest {

    static CapacityEstimator.Sample period(long arrivals, long accepted, double meanQueue, double peak) {
        return new CapacityEstimator.Sample(5, arrivals, accepted, 0, meanQueue, peak, 400, 1);
    }

    @Test
    void theExitRestartsFromPeriodsThatBeganBacklogged_notFromThoseWhoseOwnQueueWasLong() {
        QueueMonitoringEstimator q = new QueueMonitoringEstimator(0.01, 60, 0.9);
        q.update(period(90, 90, 0.2, 24));       // idle-ish: no sample
        q.update(period(100, 80, 30, 24));       // a queue built because service was slow (16/s): not a sample
        q.update(period(100, 100, 60, 24));      // began with 30 waiting (≥ a tenth of 80): a sample, 20/s
        q.update(period(100, 100, 90, 24));      // began with 60 waiting: a sample, 20/s
        assertThat(q.adapting()).isFalse();
        q.update(period(130, 100, 200, 30));     // the queue forecast overflows: the fast start ends
        assertThat(q.adapting()).isTrue();
        // from the three periods that began backlogged (20, 20, 20/s), not the slow one (16/s)
        assertThat(q.estimate()).isCloseTo(20, within(1e-9));
    }

    /** A 5 s period at 18 req/s whose queue stayed short, with {@code backlogSeconds} of backlog served at {@code rate}. */
    static CapacityEstimator.Sample backlogged(double backlogSeconds, double rate) {
        return new CapacityEstimator.Sample(5, 90, 90, 0, 0.5, 24, 400, 0.9, backlogSeconds, backlogSeconds * rate);
    }

    @Test
    void theBacklogMeasuresTheServiceRate_theFastStartEndsAtItsLowerConfidenceBound_andCFollowsIt() {
        QueueMonitoringEstimator q = new QueueMonitoringEstimator(0.01, 60, 0.9);
        // 18 req/s arrive and are served: n_acc/T says 18, the backlog says the server does 20
        for (int i = 0; i < 14; i++) {
            q.update(backlogged(2, 20));
        }
        assertThat(q.adapting()).isFalse(); // 28 s of backlog: not yet measured enough
        q.update(backlogged(2, 20));
        assertThat(q.adapting()).isTrue();
        assertThat(q.estimate()).isCloseTo(20 - 2 * Math.sqrt(20 / 30.0), within(1e-9));
        // as the window fills, c rises to within two standard errors of the measured rate
        for (int i = 0; i < 600; i++) {
            q.update(backlogged(2, 20));
        }
        assertThat(q.estimate()).isBetween(20 - 2 * Math.sqrt(20 / 1200.0) - 0.05, 20.0);
        // the server slows down: the measured rate falls, and c with it, without waiting for the queue
        for (int i = 0; i < 600; i++) {
            q.update(backlogged(2, 16));
        }
        assertThat(q.estimate()).isBetween(16.0, 16 + 2 * Math.sqrt(16 / 1200.0) + 0.05);
    }
}
