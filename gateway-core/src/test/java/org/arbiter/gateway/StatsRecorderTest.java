package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.GatewayStats.ClassStats;
import org.arbiter.common.message.GatewayStats.ServerStats;
import org.arbiter.common.message.GatewayStats;
import org.junit.jupiter.api.Test;

/**
 * The recorder on a scripted sequence of events in virtual time, every figure checked against
 * the value worked out by hand. Window 10 s and report period 1 s give buckets of 100 ms (the
 * larger of period / 10 and window / 600), a ring of 100 buckets and a period of 10 buckets. The
 * window is the last 100 buckets, the current (partial) one included; the period is the last 10.
 * Time starts at an arbitrary non-zero instant so that nothing may assume it starts at 0, and
 * never goes backwards (the recorder's contract).
 */
final class StatsRecorderTest {

    private static final long T0 = 7_000_000_000_000L;
    private static final double EXACT = 1e-12;
    private static final int GOLD = 0;
    private static final int SILVER = 1;
    private static final int S1 = 0;
    private static final int S2 = 1;

    private static long at(long millis) {
        return T0 + millis * 1_000_000L;
    }

    private static long ms(long millis) {
        return millis * 1_000_000L;
    }

    private static StatsRecorder recorder() {
        return new StatsRecorder(List.of("gold", "silver"), List.of("s1", "s2"), new int[] {100, 50},
                ms(10_000), ms(1_000), at(0));
    }

    private static final StatsRecorder.Live LIVE = Fixtures.live(new double[] {7, 3}, new int[] {4, 2},
            new int[] {5, 1}, new int[] {6, 0}, new int[] {8, 2}, new boolean[] {true, false});

    private static GatewayStats snapshot(StatsRecorder r, long millis) {
        return r.snapshot("g1", Instant.ofEpochSecond(1_700_000_000L), at(millis), 42, LIVE);
    }

    @Test
    void oneRequestOfEachFate_givesExactCountsRatesAndMeans_whileTheWindowIsYoung() {
        StatsRecorder r = recorder();
        // gold: one request queues 200 ms, is served 200 ms at s1.
        r.arrival(GOLD, 0, at(50));
        r.accepted(GOLD, at(50));
        r.queueLength(GOLD, 1, at(50));
        r.dispatched(GOLD, ms(200), false, at(250));
        r.queueLength(GOLD, 0, at(250));
        r.serverInFlight(S1, 1, at(250));
        r.completed(GOLD, S1, ms(400), ms(200), at(450));
        r.serverInFlight(S1, 0, at(450));
        // silver: two turned away (queue full), one dispatched during a backlog and failed at s2.
        r.arrival(SILVER, 3, at(500));
        r.dropped(SILVER, DropReason.QUEUE_FULL, at(500));
        r.arrival(SILVER, 1, at(600));
        r.dropped(SILVER, DropReason.QUEUE_FULL, at(600));
        r.backlogged(true, at(1_200));
        r.arrival(SILVER, 2, at(1_500));
        r.accepted(SILVER, at(1_500));
        r.dispatched(SILVER, 0, true, at(1_500));
        r.serverInFlight(S2, 1, at(1_500));
        r.backlogged(false, at(1_600));
        r.serverError(S2, at(1_700));
        r.serverInFlight(S2, 0, at(1_700));
        r.dropped(SILVER, DropReason.BACKEND_ERROR, at(1_700));

        GatewayStats s = snapshot(r, 2_000);

        // Young: rates divide by the 2 s since the start, not by the 10 s window.
        assertThat(s.windowSeconds()).isCloseTo(2.0, within(EXACT));
        assertThat(s.gateway()).isEqualTo("g1");
        assertThat(s.allocationVersion()).isEqualTo(42);
        ClassStats gold = s.classes().get("gold");
        assertThat(gold.arrivalRate()).isCloseTo(0.5, within(EXACT));
        assertThat(gold.throughput()).isCloseTo(0.5, within(EXACT));
        assertThat(gold.meanResponseTime()).isCloseTo(0.4, within(EXACT));
        assertThat(gold.meanQueueTime()).isCloseTo(0.2, within(EXACT));
        assertThat(gold.meanServiceTime()).isCloseTo(0.2, within(EXACT));
        assertThat(gold.p95ResponseTime()).isCloseTo(0.4, within(0.4 * 0.04)); // a log histogram: 4 %
        assertThat(gold.meanQueueLength()).as("1 request × 0.2 s over 2 s").isCloseTo(0.1, within(EXACT));
        assertThat(gold.drops()).containsOnly(Map.entry("queueFull", 0L), Map.entry("queueTimeout", 0L),
                Map.entry("zeroYield", 0L), Map.entry("shed", 0L), Map.entry("backendTimeout", 0L),
                Map.entry("backendError", 0L));
        ClassStats silver = s.classes().get("silver");
        assertThat(silver.arrivalRate()).isCloseTo(1.5, within(EXACT));
        assertThat(silver.throughput()).isZero();
        assertThat(silver.meanResponseTime()).isZero();
        assertThat(silver.meanQueueTime()).isZero();
        assertThat(silver.p95ResponseTime()).as("no completion, no percentile").isZero();
        assertThat(silver.meanQueueLength()).isZero();
        assertThat(silver.drops()).containsOnly(Map.entry("queueFull", 2L), Map.entry("queueTimeout", 0L), Map.entry("zeroYield", 0L),
                Map.entry("shed", 0L), Map.entry("backendTimeout", 0L), Map.entry("backendError", 1L));
        // What the recorder does not measure is passed through from Live.
        assertThat(gold.queueLength()).isEqualTo(4);
        assertThat(gold.inFlight()).isEqualTo(5);
        assertThat(gold.weight()).isEqualTo(7.0);
        assertThat(silver.queueLength()).isEqualTo(2);
        assertThat(silver.inFlight()).isEqualTo(1);
        assertThat(silver.weight()).isEqualTo(3.0);

        ServerStats s1 = s.servers().get("s1");
        assertThat(s1.throughput()).isCloseTo(0.5, within(EXACT));
        assertThat(s1.meanServiceTime()).isCloseTo(0.2, within(EXACT));
        assertThat(s1.meanInFlight()).as("1 request × 0.2 s over 2 s").isCloseTo(0.1, within(EXACT));
        assertThat(s1.errors()).isZero();
        assertThat(s1.inFlight()).isEqualTo(6);
        assertThat(s1.cap()).isEqualTo(8);
        assertThat(s1.up()).isTrue();
        ServerStats s2 = s.servers().get("s2");
        assertThat(s2.throughput()).isZero();
        assertThat(s2.meanServiceTime()).isZero();
        assertThat(s2.meanInFlight()).isCloseTo(0.1, within(EXACT));
        assertThat(s2.errors()).isEqualTo(1);
        assertThat(s2.cap()).isEqualTo(2);
        assertThat(s2.up()).isFalse();

        // The period is the last 10 buckets: [1.1 s, 2.0 s) and the current one, empty at 2.0 s —
        // 0.9 s, which periodSeconds says; the events before 1.1 s are outside it.
        GatewayStats.PeriodCounters sp = silver.period();
        assertThat(sp.periodSeconds()).isCloseTo(0.9, within(EXACT));
        assertThat(sp.arrivals()).isEqualTo(1);
        assertThat(sp.accepted()).as("n_acc: released from the queue to a server").isEqualTo(1);
        assertThat(sp.dropped()).isEqualTo(1);
        assertThat(sp.meanQueueSeenByArrivals()).isCloseTo(2.0, within(EXACT));
        assertThat(sp.peakArrivalRate()).as("1 arrival in a 100 ms bucket").isCloseTo(10.0, within(EXACT));
        assertThat(sp.queueLimit()).isEqualTo(50);
        GatewayStats.PeriodCounters gp = gold.period();
        assertThat(gp.arrivals()).isZero();
        assertThat(gp.accepted()).isZero();
        assertThat(gp.dropped()).isZero();
        assertThat(gp.meanQueueSeenByArrivals()).isZero();
        assertThat(gp.peakArrivalRate()).isZero();
        assertThat(gp.queueLimit()).isEqualTo(100);
        // Backlogged from 1.2 s to 1.6 s, one dispatch into a freed slot in it.
        assertThat(s.backlog().periodSeconds()).isCloseTo(0.9, within(EXACT));
        assertThat(s.backlog().seconds()).isCloseTo(0.4, within(EXACT));
        assertThat(s.backlog().dispatched()).isEqualTo(1);
    }

    @Test
    void theWindowSlides_anEventLeavesItWhenItsBucketLeavesTheRing() {
        StatsRecorder r = recorder();
        r.arrival(GOLD, 0, at(1_000));
        r.dropped(GOLD, DropReason.QUEUE_TIMEOUT, at(1_000));
        r.arrival(GOLD, 0, at(5_000));

        // At 10.5 s the ring (100 buckets, [0.6 s, 10.6 s)) holds both; covered: 99 full buckets + 0.
        GatewayStats full = snapshot(r, 10_500);
        assertThat(full.windowSeconds()).isCloseTo(9.9, within(EXACT));
        assertThat(full.classes().get("gold").arrivalRate()).isCloseTo(2 / 9.9, within(EXACT));
        assertThat(full.classes().get("gold").drops()).containsEntry("queueTimeout", 1L);

        // At 11.05 s the ring starts at 1.1 s: the arrival and the drop at 1.0 s are gone.
        GatewayStats slid = snapshot(r, 11_050);
        assertThat(slid.windowSeconds()).isCloseTo(9.95, within(EXACT));
        assertThat(slid.classes().get("gold").arrivalRate()).isCloseTo(1 / 9.95, within(EXACT));
        assertThat(slid.classes().get("gold").drops()).containsEntry("queueTimeout", 0L);
        // And the period (the last 10 buckets, [10.1 s, 11.05 s)) holds none of them.
        assertThat(slid.classes().get("gold").period().arrivals()).isZero();
        assertThat(slid.classes().get("gold").period().periodSeconds()).isCloseTo(0.95, within(EXACT));
    }

    @Test
    void queueLengthAndInFlight_areTimeAverages_acrossBuckets() {
        StatsRecorder r = recorder();
        r.queueLength(GOLD, 3, at(250));
        r.serverInFlight(S1, 2, at(250));
        r.queueLength(GOLD, 1, at(1_250));
        r.serverInFlight(S1, 4, at(1_750));

        GatewayStats s = snapshot(r, 2_000);

        // 3 × 1.0 s + 1 × 0.75 s over 2 s; 2 × 1.5 s + 4 × 0.25 s over 2 s.
        assertThat(s.classes().get("gold").meanQueueLength()).isCloseTo(1.875, within(EXACT));
        assertThat(s.servers().get("s1").meanInFlight()).isCloseTo(2.0, within(EXACT));
        assertThat(s.classes().get("silver").meanQueueLength()).isZero();
    }

    @Test
    void aQueueHeldThroughAnIdleLongerThanTheWindow_averagesToItsLength() {
        StatsRecorder r = recorder();
        r.arrival(GOLD, 0, at(50));
        r.queueLength(GOLD, 2, at(50));
        r.serverInFlight(S2, 1, at(50));
        r.backlogged(true, at(50));

        // No event for 60 s (the window is 10 s): the queue, the in-flight request and the backlog
        // were there the whole window, and the old arrival is not.
        GatewayStats s = snapshot(r, 60_050);

        assertThat(s.windowSeconds()).isCloseTo(9.95, within(EXACT));
        assertThat(s.classes().get("gold").arrivalRate()).isZero();
        assertThat(s.classes().get("gold").meanQueueLength()).isCloseTo(2.0, within(EXACT));
        assertThat(s.servers().get("s2").meanInFlight()).isCloseTo(1.0, within(EXACT));
        assertThat(s.backlog().seconds()).isCloseTo(s.backlog().periodSeconds(), within(EXACT));
        assertThat(s.backlog().periodSeconds()).isCloseTo(0.95, within(EXACT));
    }

    @Test
    void thePeakArrivalRate_isTheBusiestBucketOfThePeriod() {
        StatsRecorder r = recorder();
        for (int i = 0; i < 5; i++) {
            r.arrival(SILVER, 0, at(200 + 10 * i)); // 5 in [0.2 s, 0.3 s), before the period
        }
        for (int i = 0; i < 3; i++) {
            r.arrival(SILVER, i, at(1_510 + 10 * i)); // 3 in [1.5 s, 1.6 s)
        }
        r.arrival(SILVER, 4, at(1_820)); // 1 in [1.8 s, 1.9 s)

        GatewayStats.PeriodCounters p = snapshot(r, 2_000).classes().get("silver").period();

        assertThat(p.arrivals()).isEqualTo(4);
        assertThat(p.peakArrivalRate()).isCloseTo(30.0, within(EXACT));
        assertThat(p.meanQueueSeenByArrivals()).isCloseTo((0 + 1 + 2 + 4) / 4.0, within(EXACT));
    }

    @Test
    void p95_isTheNinetyFifthPercentile_withinTheHistogramsPrecision() {
        StatsRecorder r = recorder();
        for (int i = 1; i <= 100; i++) {
            r.completed(GOLD, S1, ms(10L * i), ms(1), at(i));
        }
        assertThat(snapshot(r, 1_000).classes().get("gold").p95ResponseTime()).isCloseTo(0.95, within(0.95 * 0.04));
    }

    @Test
    void aWindowOrPeriodThatIsNotPositive_isRefused() {
        assertThatThrownBy(() -> new StatsRecorder(List.of("a"), List.of("s"), new int[] {1}, 0, ms(1_000), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected: > 0");
        assertThatThrownBy(() -> new StatsRecorder(List.of("a"), List.of("s"), new int[] {1}, ms(1_000), -1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected: > 0");
    }
}
