package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.arbiter.gateway.Lifecycle.Reason;
import org.junit.jupiter.api.Test;

final class LifecycleTest {

    private static final long S = 1_000_000_000L;

    @Test
    void standalone_isReadyAtOnce_whenAServerCanTakeARequest() {
        Lifecycle l = started(new Lifecycle(false, 10 * S, 30 * S), 0);
        assertThat(l.readiness(0, true).ready()).isTrue();
        assertThat(l.readiness(0, false).reason()).contains(Reason.NO_CAPACITY);
    }

    @Test
    void kafkaMode_waitsForTheFirstAllocation_boundedByTheGrace() {
        Lifecycle l = started(new Lifecycle(true, 10 * S, 30 * S), 100 * S);
        assertThat(l.readiness(100 * S, true).reason()).contains(Reason.AWAITING_ALLOCATION);
        assertThat(l.readiness(110 * S - 1, true).reason()).contains(Reason.AWAITING_ALLOCATION);
        // Past the grace it serves on the configured allocation, and says so.
        Lifecycle.Readiness after = l.readiness(110 * S, true);
        assertThat(after.ready()).isTrue();
        assertThat(after.detail()).contains("configured allocation");
    }

    @Test
    void kafkaMode_isReady_onceTheAllocationIsKnown_andStaysReadyWithoutTheBroker() {
        Lifecycle l = started(new Lifecycle(true, 10 * S, 30 * S), 0);
        l.allocationKnown();
        assertThat(l.readiness(1, true)).isEqualTo(new Lifecycle.Readiness(Optional.empty(), "ready"));
        // Nothing else is told when the broker goes away: readiness does not depend on it.
        assertThat(l.readiness(3600 * S, true).ready()).isTrue();
    }

    @Test
    void anAllocationWithNoCapacity_isNotReady_evenAfterItIsKnown() {
        Lifecycle l = started(new Lifecycle(true, 10 * S, 30 * S), 0);
        l.allocationKnown();
        assertThat(l.readiness(S, false).reason()).contains(Reason.NO_CAPACITY);
    }

    @Test
    void draining_winsOverEveryOtherReason_andFixesItsDeadlineOnce() {
        Lifecycle l = started(new Lifecycle(true, 10 * S, 30 * S), 0);
        assertThat(l.draining()).isFalse();
        assertThat(l.beginDrain(5 * S)).isTrue();
        assertThat(l.beginDrain(7 * S)).isFalse();
        assertThat(l.draining()).isTrue();
        assertThat(l.drainStartNanos()).isEqualTo(5 * S);
        assertThat(l.drainDeadlineNanos()).isEqualTo(35 * S);
        assertThat(l.readiness(5 * S, false).reason()).contains(Reason.DRAINING);
        l.allocationKnown();
        assertThat(l.readiness(100 * S, true).reason()).contains(Reason.DRAINING);
    }

    @Test
    void zeroGrace_isReadyAtOnce_andNegativeDurationsAreRefused() {
        assertThat(started(new Lifecycle(true, 0, 0), 0).readiness(0, true).ready()).isTrue();
        assertThatThrownBy(() -> new Lifecycle(true, -1, 0)).hasMessage("startupGraceNanos: -1 (expected: >= 0)");
        assertThatThrownBy(() -> new Lifecycle(true, 0, -1)).hasMessage("drainTimeoutNanos: -1 (expected: >= 0)");
    }

    @Test
    void theGrace_runsFromStarted_notFromConstruction() {
        Lifecycle l = new Lifecycle(true, 10 * S, 30 * S);
        assertThat(l.readiness(100 * S, true).reason()).contains(Reason.AWAITING_ALLOCATION); // not listening yet
        l.started(100 * S);
        l.started(200 * S); // the first call counts
        assertThat(l.readiness(109 * S, true).reason()).contains(Reason.AWAITING_ALLOCATION);
        assertThat(l.readiness(110 * S, true).ready()).isTrue();
    }

    private static Lifecycle started(Lifecycle l, long nowNanos) {
        l.started(nowNanos);
        return l;
    }

    @Test
    void reasons_haveTheirWireNames() {
        assertThat(Reason.DRAINING.wireName()).isEqualTo("draining");
        assertThat(Reason.AWAITING_ALLOCATION.wireName()).isEqualTo("awaitingAllocation");
        assertThat(Reason.NO_CAPACITY.wireName()).isEqualTo("noCapacity");
    }
}
