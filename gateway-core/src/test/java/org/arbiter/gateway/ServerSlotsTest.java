package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The per-server slot book: slots under the cap, allocations, and what a reload does to caps. */
final class ServerSlotsTest {

    private final ServerSlots slots = new ServerSlots(
            Fixtures.twoClasses(3, "1s", "http://127.0.0.1:1", "http://127.0.0.1:2").servers());

    @Test
    void aSlotIsTakenOnlyUnderTheCap() {
        slots.install(Fixtures.allocation(1, Map.of(), Map.of("s1", 2, "s2", 0)));
        assertThat(slots.take(0)).isEqualTo(1);
        assertThat(slots.take(0)).isEqualTo(2);
        assertThat(slots.hasFreeSlot(0)).isFalse();
        assertThatThrownBy(() -> slots.take(0)).isInstanceOf(IllegalStateException.class)
                .hasMessage("server s1: inflight 2 (expected: < cap 2)");
        assertThatThrownBy(() -> slots.take(1)).hasMessage("server s2: inflight 0 (expected: < cap 0)");
        assertThat(slots.release(0)).isEqualTo(1);
        assertThat(slots.inFlights()).containsExactly(1, 0);
    }

    @Test
    void aLoweredCap_cutsNothingOff_theExcessDrains() {
        slots.take(0);
        slots.take(0);
        slots.take(0);
        slots.install(Fixtures.allocation(1, Map.of(), Map.of("s1", 1, "s2", 10)));
        assertThat(slots.inFlight(0)).isEqualTo(3);
        assertThat(slots.hasFreeSlot(0)).isFalse();
        slots.release(0);
        slots.release(0);
        assertThat(slots.hasFreeSlot(0)).isFalse();
        slots.release(0);
        assertThat(slots.hasFreeSlot(0)).isTrue();
    }

    @Test
    void aRetiredServer_hasCap0WhateverTheAllocationSays_untilItRejoins() {
        assertThat(slots.retireAbsent(Set.of("s1"))).containsExactly("s2");
        assertThat(slots.retireAbsent(Set.of("s1"))).as("retired once").isEmpty();
        slots.install(Fixtures.allocation(1, Map.of(), Map.of("s1", 4, "s2", 4)));
        assertThat(slots.caps()).containsExactly(4, 0);
        assertThat(slots.rejoin(0)).as("s1 was never retired").isFalse();
        assertThat(slots.rejoin(1)).isTrue();
        slots.install(Fixtures.allocation(2, Map.of(), Map.of("s1", 4, "s2", 4)));
        assertThat(slots.caps()).containsExactly(4, 4);
    }

    @Test
    void anAddedServer_takesTheNextIndex_andItsProvisionalCapUntilAnAllocationNamesIt() {
        int s3 = slots.add("s3");
        assertThat(s3).isEqualTo(2);
        assertThat(slots.indexOf("s3")).isEqualTo(2);
        assertThat(slots.ids()).containsExactly("s1", "s2", "s3");
        slots.provisional("s3", 6);
        slots.install(Fixtures.allocation(1, Map.of(), Map.of("s1", 1, "s2", 1)));
        assertThat(slots.caps()).containsExactly(1, 1, 6);
        slots.install(Fixtures.allocation(2, Map.of(), Map.of("s1", 1, "s2", 1, "s3", 2)));
        assertThat(slots.caps()).containsExactly(1, 1, 2);
        slots.install(Fixtures.allocation(3, Map.of(), Map.of("s1", 1, "s2", 1)));
        assertThat(slots.cap(2)).as("the GRM knows s3 now: not named means 0").isZero();
    }

    @Test
    void aProvisionalCap_endsWhenAnAllocationNamesTheServerZero_andANamelessOneKeepsIt() {
        slots.add("s3");
        slots.provisional("s3", 5);
        slots.install(Fixtures.allocation(1, Map.of(), Map.of("s1", 2)));
        assertThat(slots.caps()).as("s2 not named: 0; s3 not named: provisional").containsExactly(2, 0, 5);
        slots.install(Fixtures.allocation(2, Map.of(), Map.of("s1", 2, "s3", 0)));
        assertThat(slots.caps()).as("the GRM names s3 (the gateway reported its cap): taken back").containsExactly(2, 0, 0);
        slots.install(Fixtures.allocation(3, Map.of(), Map.of("s1", 2)));
        assertThat(slots.cap(2)).as("forgotten once named").isZero();
    }
}
