package org.arbiter.gateway.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import org.arbiter.common.config.ClassConfig.YieldSpec;
import org.arbiter.common.config.ClassConfig.YieldSpec.Shape;
import org.arbiter.common.utility.YieldFunction;
import org.arbiter.gateway.Scheduler;
import org.junit.jupiter.api.Test;

/** 002 Fig. 5 step 2 and Table 1 on hand-made views in fake time (all times in ms below). */
final class YieldSchedulerTest {

    private static final long MS = 1_000_000L;

    /**
     * A view: per class backlog, head arrival (ms), yield, expected service (s), consumption share on the long and
     * the recent memory (of 100 s of service consumed, so that half a request's 0.2 s moves a share by 0.1 %
     * only; null recent = the same as long), min share.
     */
    private static final class View implements Scheduler.ClassView {
        final int[] backlog;
        final long[] arrivalMs;
        final YieldFunction[] yields;
        final double[] service;
        double[] share;
        double[] recentShare;
        double consumed = 100;
        double[] minShare;
        long nowMs;
        double dropRatio;

        View(long nowMs, int[] backlog, long[] arrivalMs, YieldFunction[] yields, double[] service) {
            this.nowMs = nowMs;
            this.backlog = backlog;
            this.arrivalMs = arrivalMs;
            this.yields = yields;
            this.service = service;
            this.share = new double[backlog.length];
            this.minShare = new double[backlog.length];
        }

        @Override public int classCount() { return backlog.length; }
        @Override public int backlog(int c) { return backlog[c]; }
        @Override public int inFlight(int c) { return 0; }
        @Override public double weight(int c) { return 1; }
        @Override public long headSequence(int c) { return arrivalMs[c]; }
        @Override public long nowNanos() { return nowMs * MS; }
        @Override public long headArrivalNanos(int c) { return arrivalMs[c] * MS; }
        @Override public YieldFunction yield(int c) { return yields[c]; }
        @Override public double expectedServiceSeconds(int c) { return service[c]; }
        @Override public double consumption(int c) { return share[c] * consumed; }
        @Override public double recentConsumption(int c) { return (recentShare == null ? share : recentShare)[c] * consumed; }
        @Override public double minShare(int c) { return minShare[c]; }
        @Override public double dropRatio() { return dropRatio; }
    }

    private static YieldFunction hybrid(double full, double deadline) {
        return YieldFunction.of(new YieldSpec(Shape.HYBRID, full, full / 2, deadline, deadline / 2));
    }

    private static YieldScheduler of(YieldScheduler.Policy p) {
        return new YieldScheduler(p, 0.05);
    }

    @Test
    void edf_releasesTheClosestDeadline_whateverTheYield() {
        // class 0: arrived at 0, D = 5 s → deadline 5 s; class 1: arrived at 1 s, D = 2 s → 3 s
        View v = new View(1500, new int[] {1, 1}, new long[] {0, 1000},
                new YieldFunction[] {hybrid(100, 5), hybrid(1, 2)}, new double[] {0.1, 0.1});
        assertThat(of(YieldScheduler.Policy.EDF).next(v)).isEqualTo(1);
    }

    @Test
    void yid_releasesTheSmallestRelativeDeadlineOverExpectedYield() {
        // both D = 2 s, waited 0.5 s, E = 0.25 s → both at full yield; (2 − 0.5)/4 < (2 − 0.5)/1
        View v = new View(500, new int[] {1, 1}, new long[] {0, 0},
                new YieldFunction[] {hybrid(1, 2), hybrid(4, 2)}, new double[] {0.25, 0.25});
        assertThat(of(YieldScheduler.Policy.YID).next(v)).isEqualTo(1);
        // a Bronze head about to miss its deadline: waited 1.74 s, E = 0.2 s, Y(1.94) = 0.53, so
        // (2 − 1.74)/0.53 = 0.49 beats a fresh Silver head's 2/2 = 1
        View late = new View(1740, new int[] {1, 1}, new long[] {0, 1740},
                new YieldFunction[] {hybrid(1, 2), hybrid(2, 2)}, new double[] {0.2, 0.2});
        assertThat(of(YieldScheduler.Policy.YID).next(late)).isEqualTo(0);
    }

    @Test
    void greedy_releasesTheSmallestExpectedConsumptionOverExpectedYield() {
        // class 0: E = 0.4 s, C = 4 → 0.1; class 1: E = 0.1 s, C = 2 → 0.05; class 2: E = 0.1 s, C = 1 → 0.1
        View v = new View(0, new int[] {1, 1, 1}, new long[] {0, 0, 0},
                new YieldFunction[] {hybrid(4, 2), hybrid(2, 2), hybrid(1, 2)}, new double[] {0.4, 0.1, 0.1});
        assertThat(of(YieldScheduler.Policy.GREEDY).next(v)).isEqualTo(1);
        // equal values go to the earlier arrival
        View tie = new View(0, new int[] {1, 0, 1}, new long[] {5, 0, 3},
                new YieldFunction[] {hybrid(4, 2), hybrid(2, 2), hybrid(4, 2)}, new double[] {0.4, 0.1, 0.4});
        assertThat(of(YieldScheduler.Policy.GREEDY).next(tie)).isEqualTo(2);
    }

    @Test
    void adaptive_isYid_untilMoreThanTheDropRatioWasDropped_thenGreedy() {
        // yid prefers class 0 (deadline close), greedy class 1 (more yield per second of service)
        // class 0 waited 1.5 s: Y(1.7) = 0.65, yid 0.5/0.65 = 0.77, greedy 0.2/0.65 = 0.31;
        // class 1 just arrived: Y = 2, yid 2/2 = 1, greedy 0.2/2 = 0.1
        View v = new View(1500, new int[] {1, 1}, new long[] {0, 1500},
                new YieldFunction[] {hybrid(1, 2), hybrid(2, 2)}, new double[] {0.2, 0.2});
        YieldScheduler adaptive = of(YieldScheduler.Policy.ADAPTIVE);
        assertThat(of(YieldScheduler.Policy.YID).next(v)).isEqualTo(0);
        assertThat(of(YieldScheduler.Policy.GREEDY).next(v)).isEqualTo(1);
        v.dropRatio = 0.05;
        assertThat(adaptive.effective(v)).isEqualTo(YieldScheduler.Policy.YID);
        assertThat(adaptive.next(v)).isEqualTo(0);
        v.dropRatio = 0.051;
        assertThat(adaptive.effective(v)).isEqualTo(YieldScheduler.Policy.GREEDY);
        assertThat(adaptive.next(v)).isEqualTo(1);
    }

    @Test
    void aClassBelowItsGuaranteedShare_goesFirst_theLargestGapFirst() {
        for (YieldScheduler.Policy p : YieldScheduler.Policy.values()) {
            View v = new View(0, new int[] {1, 1, 1}, new long[] {0, 0, 0},
                    new YieldFunction[] {hybrid(4, 2), hybrid(2, 2), hybrid(1, 2)}, new double[] {0.2, 0.2, 0.2});
            v.share = new double[] {0.7, 0.25, 0.05};
            v.minShare = new double[] {0.2, 0.3, 0.2};
            assertThat(of(p).next(v)).as("%s: gaps 0.05 and 0.15", p).isEqualTo(2);
            v.backlog[2] = 0;
            assertThat(of(p).next(v)).as("%s: class 2 has nothing queued", p).isEqualTo(1);
            v.share = new double[] {0.5, 0.3, 0.2};
            int byPolicy = of(p).next(v);
            v.minShare = new double[] {0, 0, 0};
            assertThat(byPolicy).as("%s: at their shares, step 2b decides", p).isEqualTo(of(p).next(v));
        }
    }

    @Test
    void step2a_readsTheSmallerOfTheLongAndTheRecentShare() {
        for (YieldScheduler.Policy p : YieldScheduler.Policy.values()) {
            View v = new View(0, new int[] {1, 1, 1}, new long[] {0, 0, 0},
                    new YieldFunction[] {hybrid(4, 2), hybrid(2, 2), hybrid(1, 2)}, new double[] {0.2, 0.2, 0.2});
            int byPolicy = of(p).next(v);
            assertThat(byPolicy).as("%s: without guarantees class 0 (most yield, or the tie's first)", p).isEqualTo(0);
            v.minShare = new double[] {0, 0, 0.2};
            v.share = new double[] {0.1, 0.3, 0.6};
            v.recentShare = new double[] {0.1, 0.75, 0.15};
            assertThat(of(p).next(v)).as("%s: 60 %% over the long memory, 15 %% just now", p).isEqualTo(2);
            v.share = new double[] {0.1, 0.75, 0.15};
            v.recentShare = new double[] {0.1, 0.3, 0.6};
            assertThat(of(p).next(v)).as("%s: 15 %% over the long memory, 60 %% just now", p).isEqualTo(2);
            v.share = new double[] {0.1, 0.3, 0.6};
            v.recentShare = new double[] {0.1, 0.5, 0.4};
            assertThat(of(p).next(v)).as("%s: above on both, step 2b decides", p).isEqualTo(byPolicy);
        }
    }

    @Test
    void emptyQueues_releaseNothing() {
        View v = new View(0, new int[] {0, 0}, new long[] {0, 0},
                new YieldFunction[] {hybrid(4, 2), hybrid(1, 2)}, new double[] {0, 0});
        for (YieldScheduler.Policy p : YieldScheduler.Policy.values()) {
            assertThat(of(p).next(v)).isEqualTo(-1);
        }
    }
}
