package org.arbiter.sim.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

final class EventKernelTest {

    @Test
    void eventsRun_byTime_thenRank_thenInsertionOrder() {
        EventKernel k = new EventKernel();
        List<String> seen = new ArrayList<>();
        k.schedule(2, () -> seen.add("t2-first"));
        k.schedule(1, 5, () -> seen.add("t1-rank5"));
        k.schedule(2, () -> seen.add("t2-second"));
        k.schedule(1, 0, () -> seen.add("t1-rank0"));
        k.schedule(1, 5, () -> seen.add("t1-rank5-later"));
        k.runUntil(10);
        assertThat(seen).containsExactly("t1-rank0", "t1-rank5", "t1-rank5-later", "t2-first", "t2-second");
    }

    @Test
    void now_isTheRunningEventsTime_andEventsScheduledWhileRunning_keepTheOrder() {
        EventKernel k = new EventKernel();
        List<String> seen = new ArrayList<>();
        k.schedule(1, () -> {
            seen.add("a@" + k.now());
            k.schedule(1, () -> seen.add("c@" + k.now())); // same time, scheduled later: after b
        });
        k.schedule(1, () -> seen.add("b@" + k.now()));
        k.schedule(3, () -> seen.add("d@" + k.now()));
        k.runUntil(10);
        assertThat(seen).containsExactly("a@1.0", "b@1.0", "c@1.0", "d@3.0");
    }

    @Test
    void runUntil_leavesLaterEvents_andStop_endsTheRunAfterTheCurrentEvent() {
        EventKernel k = new EventKernel();
        List<Double> seen = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            double t = i;
            k.schedule(t, () -> seen.add(t));
        }
        k.runUntil(2);
        assertThat(seen).containsExactly(1.0, 2.0);
        assertThat(k.pending()).isEqualTo(3);
        k.schedule(3, () -> k.stop());
        k.runUntil(10);
        assertThat(seen).containsExactly(1.0, 2.0, 3.0);
        assertThat(k.now()).isEqualTo(3.0);
    }
}
