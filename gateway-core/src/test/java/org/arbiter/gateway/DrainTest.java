package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The drain's verdicts on fake time: when it forces, when it sweeps, when it ends, what it reports. */
final class DrainTest {

    private static final long S = 1_000_000_000L;

    @Test
    void heldRequests_areAnsweredNormally_untilTheDeadline_thenForcedOnce_andTheReportCountsThem() {
        Drain d = new Drain();
        assertThat(d.draining()).isFalse();
        assertThat(d.begin(0, S, () -> 6)).isTrue();
        assertThat(d.draining()).isTrue();
        assertThat(d.forced()).isFalse();
        assertThat(d.pastDeadline(S - 1)).as("one nanosecond before the deadline").isFalse();
        assertThat(d.next(6)).isEqualTo(Drain.Step.WAIT);
        assertThat(d.pastDeadline(S)).as("at the deadline").isTrue();
        assertThat(d.forced()).isTrue();
        assertThat(d.pastDeadline(S + 1)).as("forced once").isFalse();
        for (int i = 0; i < 6; i++) {
            d.refused();
        }
        assertThat(d.next(6)).as("the 503s are written on their loops").isEqualTo(Drain.Step.WAIT);
        assertThat(d.next(0)).as("no sweep after the deadline").isEqualTo(Drain.Step.FINISH);
        assertThat(d.over()).isTrue();
        assertThat(d.forced()).as("a request arriving now gets 503, not a reset").isTrue();
        DrainReport r = d.report(S + S / 10);
        assertThat(r).isEqualTo(new DrainReport(6, 0, 0, 6, 0, S + S / 10));
        assertThat(r.clean()).isFalse();
    }

    @Test
    void nothingHeld_sweepsTheIdleConnectionsOnce_thenFinishesAtOnce() {
        Drain d = new Drain();
        d.begin(5 * S, 35 * S, () -> 0);
        assertThat(d.next(0)).isEqualTo(Drain.Step.SWEEP);
        assertThat(d.forced()).isFalse();
        assertThat(d.next(0)).isEqualTo(Drain.Step.FINISH);
        DrainReport r = d.report(5 * S);
        assertThat(r.held()).isZero();
        assertThat(r.nanos()).isZero();
        assertThat(r.clean()).isTrue();
    }

    @Test
    void aRequestReadDuringTheSweep_isWaitedFor_andServed_withoutASecondSweep() {
        Drain d = new Drain();
        d.begin(0, 30 * S, () -> 1);
        d.served();
        assertThat(d.next(0)).isEqualTo(Drain.Step.SWEEP);
        d.arrived(); // read on a connection before its turn in the sweep
        assertThat(d.next(1)).isEqualTo(Drain.Step.WAIT);
        assertThat(d.pastDeadline(2 * S)).isFalse();
        d.served();
        assertThat(d.next(0)).isEqualTo(Drain.Step.FINISH);
        DrainReport r = d.report(2 * S);
        assertThat(r).isEqualTo(new DrainReport(1, 1, 2, 0, 0, 2 * S));
        assertThat(r.clean()).isTrue();
    }

    @Test
    void theDeadlinePassingDuringTheSweep_forcesIt() {
        Drain d = new Drain();
        d.begin(0, S, () -> 0);
        assertThat(d.next(0)).isEqualTo(Drain.Step.SWEEP);
        assertThat(d.pastDeadline(S)).isTrue();
        d.cut();
        assertThat(d.next(0)).isEqualTo(Drain.Step.FINISH);
        assertThat(d.report(S).cut()).isEqualTo(1);
    }

    @Test
    void aSecondBegin_changesNothing_andSteppingOutsideADrainFailsLoudly() {
        Drain d = new Drain();
        assertThatThrownBy(() -> d.next(0)).isInstanceOf(IllegalStateException.class);
        assertThat(d.pastDeadline(Long.MAX_VALUE)).as("no drain, no deadline").isFalse();
        d.begin(0, S, () -> 3);
        assertThat(d.begin(10 * S, 20 * S, () -> 9)).isFalse();
        assertThat(d.pastDeadline(S)).as("the first deadline holds").isTrue();
        assertThat(d.report(S).held()).isEqualTo(3);
        assertThat(d.next(0)).isEqualTo(Drain.Step.FINISH);
        assertThatThrownBy(() -> d.next(0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theDeadline_isComparedWrapSafely() {
        Drain d = new Drain();
        long start = Long.MAX_VALUE - S / 2; // nanoTime may be anywhere, also near the wrap
        d.begin(start, start + S, () -> 1);
        assertThat(d.pastDeadline(start + S - 1)).isFalse();
        assertThat(d.pastDeadline(start + S)).isTrue();
    }
}
