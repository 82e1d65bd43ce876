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
}
